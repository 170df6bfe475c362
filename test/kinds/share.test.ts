/**
 * A bound of the whole server divided among `--workers N` (kinds/contract/share.ts): the shares add
 * up to the bound (the remainder goes one each to the first slots), never below 1, and one process
 * keeps the bound as written.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { processCount, setProcessCount, shareOf } from '../../src/kinds/contract/share.js';

const sharesOf = (total: number, n: number): number[] =>
  Array.from({ length: n }, (_, i) => {
    setProcessCount(n, i + 1);
    return shareOf(total);
  });

test('one process keeps every bound as written', () => {
  setProcessCount(1);
  assert.equal(processCount(), 1);
  assert.equal(shareOf(5), 5);
});

test('the shares of N workers add up to the bound, the first slots taking the remainder', () => {
  assert.deepEqual(sharesOf(5, 2), [3, 2]);
  assert.deepEqual(sharesOf(1000, 2), [500, 500]);
  assert.deepEqual(sharesOf(10, 4), [3, 3, 2, 2]);
  for (const [total, n] of [
    [5, 3],
    [7, 8],
    [100, 7],
  ] as const) {
    const shares = sharesOf(total, n);
    assert.equal(Math.max(...shares) - Math.min(...shares) <= 1, true, `${shares}`);
    if (total >= n)
      assert.equal(
        shares.reduce((a, b) => a + b, 0),
        total,
        `${total} over ${n}: ${shares}`,
      );
  }
});

test('a bound below the number of workers still gives each worker 1', () => {
  assert.deepEqual(sharesOf(1, 3), [1, 1, 1]);
  assert.deepEqual(sharesOf(2, 4), [1, 1, 1, 1]);
  setProcessCount(1);
});
