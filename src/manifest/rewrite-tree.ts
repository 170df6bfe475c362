/**
 * A parsed manifest's tree with some of its nodes replaced, the rest shared: the arrays and plain
 * objects on the way to a replaced node are copies, every other node is the one it was. Both
 * rewrites of the load (`${env:…}` references, resolve.ts; shared-schema references, schemas.ts)
 * change a handful of nodes in a tree of megabytes: copying the whole tree, with a path for each
 * node, was the manifest's size again, kept until compile was over.
 */
import { isPlainObject } from './finding.js';
import type { ManifestPath } from './types.js';

/** What `visit` returns for a node it leaves as it is, to walk its members. */
export const DESCEND: unique symbol = Symbol('descend');

/**
 * `root` with each node replaced by what `visit` returns for it, or, where that is DESCEND, walked
 * into (an array or a plain object; anything else stays). `path` is where the node is, from `root`:
 * one stack for the whole walk, so a visitor that keeps it copies it.
 */
export function rewriteTree(
  root: unknown,
  visit: (node: unknown, path: readonly (string | number)[]) => unknown,
  path: ManifestPath = [],
): unknown {
  const at = [...path];
  const walk = (node: unknown): unknown => {
    const replaced = visit(node, at);
    if (replaced !== DESCEND) return replaced;
    if (Array.isArray(node)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < node.length; i++) {
        at.push(i);
        const value = walk(node[i]);
        at.pop();
        if (Object.is(value, node[i])) continue;
        copy ??= [...node];
        copy[i] = value;
      }
      return copy ?? node;
    }
    if (!isPlainObject(node)) return node;
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(node)) {
      at.push(key);
      const value = walk(node[key]);
      at.pop();
      if (Object.is(value, node[key])) continue;
      // The spread copies a `__proto__` key as an own property, so this sets that plain key.
      copy ??= { ...node };
      copy[key] = value;
    }
    return copy ?? node;
  };
  return walk(root);
}
