/**
 * A context that remembers whether anything was reported through it, so a kind can check many
 * fields (reporting every problem) and then decide once whether the entry compiled.
 */

import type { Problem } from '../../errors.js';
import type { EntryPath } from '../contract/kinds.js';

export function trackErrors<C extends { error(at: EntryPath, problem: Problem): void }>(
  ctx: C,
): { ctx: C; failed: () => boolean } {
  let failed = false;
  // A child object, so every other member (getters and methods included) still comes from ctx.
  const tracked = Object.create(ctx) as C;
  tracked.error = (at, problem) => {
    failed = true;
    ctx.error(at, problem);
  };
  return { ctx: tracked, failed: () => failed };
}
