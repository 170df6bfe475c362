/**
 * The large-load hook: the command line's `before` runs once, before the first load past the limit,
 * and its `after` once the server's first load is over, if `before` ran; later loads run neither.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LARGE_LOAD_BYTES, loading, startupLoadIsOver, whenLoadIsLarge } from '../../src/util/large-load.js';

test('loads up to the limit leave the action waiting; the first larger one runs it, once', () => {
  let runs = 0;
  whenLoadIsLarge(
    () => runs++,
    () => {},
  );
  loading(1024);
  loading(LARGE_LOAD_BYTES);
  assert.equal(runs, 0);
  loading(LARGE_LOAD_BYTES + 1);
  assert.equal(runs, 1);
  loading(10 * LARGE_LOAD_BYTES);
  assert.equal(runs, 1);
});

test('a new action waits for the next large load', () => {
  const seen: string[] = [];
  whenLoadIsLarge(
    () => seen.push('first'),
    () => {},
  );
  whenLoadIsLarge(
    () => seen.push('second'),
    () => {},
  );
  loading(LARGE_LOAD_BYTES + 1);
  assert.deepEqual(seen, ['second']);
});

test('after a large first load, its `after` runs when that load is over; a large reload then runs nothing', () => {
  const seen: string[] = [];
  whenLoadIsLarge(
    () => seen.push('before'),
    () => seen.push('after'),
  );
  loading(LARGE_LOAD_BYTES + 1);
  startupLoadIsOver();
  assert.deepEqual(seen, ['before', 'after']);
  loading(10 * LARGE_LOAD_BYTES);
  startupLoadIsOver();
  assert.deepEqual(seen, ['before', 'after']);
});

test('after a small first load, neither runs, then or at a large reload', () => {
  const seen: string[] = [];
  whenLoadIsLarge(
    () => seen.push('before'),
    () => seen.push('after'),
  );
  loading(1024);
  startupLoadIsOver();
  loading(10 * LARGE_LOAD_BYTES);
  assert.deepEqual(seen, []);
});
