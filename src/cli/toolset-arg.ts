/**
 * `--toolset <name>` (repeatable) on the commands that show or run what a client sees (`serve` on
 * stdio, `list`, `call`, `read`, `prompt`, `lint`, `test`): the union of those toolsets, as
 * catalog/toolsets.ts views it. A name the manifest has no toolset for is bad usage, said with the
 * toolsets it has.
 */
import { unknownToolset } from '../catalog/toolsets.js';
import type { Catalog } from '../catalog/types.js';

/** Why `--toolset` cannot select from this catalog, or undefined. */
export function toolsetFault(catalog: Catalog, names: readonly string[] | undefined): string | undefined {
  const problem = names === undefined ? undefined : unknownToolset(catalog, names);
  return problem && `--toolset: ${problem.message}; ${problem.hint}`;
}
