/** Goals as the issue states them, checked against what was measured. */
import type { Goal } from './types.js';

/**
 * One goal over several measured points (eras, connection counts): met when every point passes.
 * `points` are label → value; `show` formats a value.
 */
export function goal(
  text: string,
  target: string,
  points: readonly (readonly [string, number])[],
  pass: (value: number) => boolean,
  show: (value: number) => string,
): Goal {
  const usable = points.filter(([, v]) => Number.isFinite(v));
  return {
    goal: text,
    target,
    measured: points.map(([label, v]) => (label ? `${label}: ${show(v)}` : show(v))).join('; '),
    met: usable.length === points.length && usable.length > 0 ? usable.every(([, v]) => pass(v)) : null,
  };
}
