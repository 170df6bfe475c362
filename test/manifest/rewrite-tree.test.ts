/**
 * rewriteTree: a tree with some nodes replaced, copied only on the way to them (rewrite-tree.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DESCEND, rewriteTree } from '../../src/manifest/rewrite-tree.js';

const upper = (node: unknown) =>
  typeof node === 'string' && node.startsWith('x') ? node.toUpperCase() : DESCEND;

test('a tree with nothing to replace is returned as it is', () => {
  const tree = { a: [1, { b: 'y' }], c: { d: null } };
  assert.equal(rewriteTree(tree, upper), tree);
});

test('only the way to a replaced node is copied; the rest is shared', () => {
  const kept = { e: 'y' };
  const tree = { a: [1, { b: 'x1' }], c: kept, list: ['y', 'x2'] };
  const out = rewriteTree(tree, upper) as typeof tree;
  assert.deepEqual(out, { a: [1, { b: 'X1' }], c: { e: 'y' }, list: ['y', 'X2'] });
  assert.notEqual(out, tree);
  assert.notEqual(out.a, tree.a);
  assert.equal(out.c, kept);
  // The original is untouched.
  assert.deepEqual(tree, { a: [1, { b: 'x1' }], c: { e: 'y' }, list: ['y', 'x2'] });
});

test('the visitor sees each node with its path from the root, after the given start', () => {
  const seen: string[] = [];
  rewriteTree(
    { a: [{ b: 'x' }] },
    (node, at) => {
      if (typeof node === 'string') seen.push(`${at.join('.')}=${node}`);
      return DESCEND;
    },
    ['tools', 't'],
  );
  assert.deepEqual(seen, ['tools.t.a.0.b=x']);
});

test('a `__proto__` key stays a plain key of the copy', () => {
  const tree = JSON.parse('{"__proto__": {"v": "x"}, "w": 1}') as Record<string, unknown>;
  const out = rewriteTree(tree, upper) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.ok(Object.hasOwn(out, '__proto__'));
  assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, { v: 'X' });
});
