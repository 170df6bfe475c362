/**
 * The client side of a query's time limit and cancellation (watch.ts): when the cancel is sent, and
 * when it is not.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { QueryWatch } from '../../../src/kinds/sql/watch.js';

function watched(settleMs: number, deadlineMs = 60_000) {
  const controller = new AbortController();
  const sent: string[] = [];
  const watch = new QueryWatch(
    controller.signal,
    deadlineMs,
    deadlineMs,
    async () => {
      sent.push('cancel');
    },
    settleMs,
  );
  return { controller, sent, watch };
}

test('without a settle time, a cancellation sends the cancel at once', async () => {
  const { controller, sent, watch } = watched(0);
  controller.abort();
  assert.deepEqual(sent, ['cancel']);
  assert.equal(watch.reason, 'cancelled');
  await watch.finish();
});

test('a query that ends within the settle time after its cancellation gets no cancel', async () => {
  const { controller, sent, watch } = watched(60_000);
  controller.abort();
  await sleep(20);
  await watch.finish();
  assert.deepEqual(sent, []);
  assert.equal(watch.reason, undefined);
});

test('a query still running at the end of the settle time is cancelled', async () => {
  const { controller, sent, watch } = watched(30);
  controller.abort();
  assert.deepEqual(sent, []);
  for (let i = 0; i < 200 && sent.length === 0; i++) await sleep(10);
  assert.deepEqual(sent, ['cancel']);
  assert.equal(watch.reason, 'cancelled');
  assert.match(watch.error(new Error('driver'), (s) => s).message, /cancelled/);
  await watch.finish();
});

test('a signal already aborted when the watch starts waits out the settle time too', async () => {
  const controller = new AbortController();
  controller.abort();
  const sent: string[] = [];
  const watch = new QueryWatch(controller.signal, 60_000, 60_000, async () => void sent.push('cancel'), 30);
  assert.deepEqual(sent, []);
  for (let i = 0; i < 200 && sent.length === 0; i++) await sleep(10);
  assert.deepEqual(sent, ['cancel']);
  await watch.finish();
});

test('the deadline cancels at once whatever the settle time of a cancellation', async () => {
  const { controller, sent, watch } = watched(60_000, 20);
  controller.abort();
  for (let i = 0; i < 200 && sent.length === 0; i++) await sleep(10);
  assert.deepEqual(sent, ['cancel']);
  assert.equal(watch.reason, 'timeout');
  await watch.finish();
});

test('a cancellation after the query ended sends nothing; the deadline still holds', async () => {
  const { controller, sent, watch } = watched(10, 200);
  watch.ended();
  controller.abort();
  await sleep(50);
  assert.deepEqual(sent, [], 'no cancel for a query that has ended');
  assert.equal(watch.reason, undefined);
  for (let i = 0; i < 200 && sent.length === 0; i++) await sleep(10);
  assert.deepEqual(sent, ['cancel']);
  assert.equal(watch.reason, 'timeout');
  await watch.finish();
});

test('a cancellation after finish sends nothing', async () => {
  const { controller, sent, watch } = watched(10);
  await watch.finish();
  controller.abort();
  await sleep(50);
  assert.deepEqual(sent, []);
});
