/** The large-load hook: the command line's action runs once, before the first load past the limit. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LARGE_LOAD_BYTES, loading, whenLoadIsLarge } from '../../src/util/large-load.js';

test('loads up to the limit leave the action waiting; the first larger one runs it, once', () => {
  let runs = 0;
  whenLoadIsLarge(() => runs++);
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
  whenLoadIsLarge(() => seen.push('first'));
  whenLoadIsLarge(() => seen.push('second'));
  loading(LARGE_LOAD_BYTES + 1);
  assert.deepEqual(seen, ['second']);
});
