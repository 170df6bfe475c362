/**
 * The shared TaskStore (src/tasks/shared-store.ts) over both SharedState implementations: memory,
 * and the real Redis under a prefix of this test's own (skipped with the reason without
 * MCP_RUN_TEST_REDIS_URL). Records keep their ttl as the store's expiry, lists are per owner and
 * oldest first, the memory budget sums what is held, two engines on one store see each other's
 * tasks (a cancel through one aborts the call running on the other), a result beyond the store's
 * value bound fails its task with a clear error, and a silent runner's task reads failed.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { MemoryState } from '../../src/state/memory.js';
import { RedisState } from '../../src/state/redis.js';
import { MAX_VALUE_BYTES, type SharedState } from '../../src/state/shared.js';
import { TaskEngine } from '../../src/tasks/engine.js';
import { SharedTaskStore } from '../../src/tasks/shared-store.js';
import type { TaskRecord } from '../../src/tasks/types.js';
import { captureLogger } from '../protocol/harness.js';
import { eventually, REDIS_URL, stateUrl } from './replicas-harness.js';

const implementations: [string, string | undefined, () => Promise<SharedState>][] = [
  ['memory', undefined, async () => new MemoryState()],
  [
    'redis',
    REDIS_URL === undefined ? 'MCP_RUN_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379)' : undefined,
    async () => {
      const state = new RedisState(stateUrl(), captureLogger());
      assert.ok(await state.connect(), 'Redis answers');
      return state;
    },
  ],
];

const record = (taskId: string, owner: string, createdAt: number, ttlMs = 60_000): TaskRecord => ({
  taskId,
  owner,
  status: 'working',
  createdAt,
  lastUpdatedAt: createdAt,
  ttlMs,
  pollIntervalMs: 100,
  runner: 'r',
  aliveAt: createdAt,
  bytes: 512,
});

for (const [name, skip, open] of implementations) {
  describe(`SharedTaskStore over ${name}`, { skip }, () => {
    const opened: SharedState[] = [];
    const engines: TaskEngine[] = [];
    const make = async () => {
      const state = await open();
      opened.push(state);
      return new SharedTaskStore(state);
    };
    after(async () => {
      for (const engine of engines) await engine.close();
      for (const state of opened) await state.close();
    });

    test('put, get, list per owner oldest first, delete, bytes; an expired record is gone', async () => {
      const store = await make();
      const now = Date.now();
      await store.put(record('b', 'alice', now));
      await store.put(record('a', 'alice', now - 1000));
      await store.put(record('c', 'bob', now));
      await store.put(record('short', 'alice', now, 150));
      assert.equal((await store.get('a'))?.owner, 'alice');
      await eventually(async () => (await store.get('short')) === undefined, 'the short ttl to expire');
      assert.deepEqual(
        (await store.list('alice')).map((r) => r.taskId),
        ['a', 'b'],
      );
      assert.deepEqual(
        (await store.list('bob')).map((r) => r.taskId),
        ['c'],
      );
      assert.equal(await store.bytes(), 3 * 512);
      await store.delete('b');
      assert.equal(await store.get('b'), undefined);
      assert.deepEqual(
        (await store.list('alice')).map((r) => r.taskId),
        ['a'],
      );
      await eventually(
        async () => (await store.bytes()) === 2 * 512,
        'the budget to drop the deleted record',
      );
      // A record already past its ttl is not written at all.
      await store.put(record('old', 'alice', now - 120_000));
      assert.equal(await store.get('old'), undefined);
    });

    test('two engines on one store: each reads the other’s task, and a cancel through one aborts the call on the other', async () => {
      // Two stores over one shared state, as two replicas over one Redis prefix.
      const store = await make();
      const state = opened.at(-1) as SharedState;
      const storeB = new SharedTaskStore(state);
      const busRunner = new TaskEngine(store, () => ({}), { staleMs: 600, bus: store });
      const reader = new TaskEngine(storeB, () => ({}), { staleMs: 600, bus: storeB });
      engines.push(busRunner, reader);
      const task = await busRunner.create('alice');
      const signal = busRunner.signal(task.taskId);
      assert.equal((await reader.get('alice', task.taskId))?.status, 'working');
      assert.equal(await reader.get('mallory', task.taskId), undefined, 'another owner: unknown');
      const cancelled = await reader.cancel('alice', task.taskId);
      assert.equal(cancelled?.status, 'cancelled');
      assert.equal(signal.aborted, true, 'the runner’s call was aborted');
      const done = await busRunner.create('alice');
      await busRunner.complete(done.taskId, { content: [{ type: 'text', text: 'ok' }] });
      assert.equal((await reader.get('alice', done.taskId))?.status, 'completed');
    });

    test('a result beyond the store’s value bound fails the task with a clear error', async () => {
      const store = await make();
      const engine = new TaskEngine(store, () => ({ maxBytes: 4 * MAX_VALUE_BYTES }), { bus: store });
      engines.push(engine);
      const task = await engine.create('alice');
      await engine.complete(task.taskId, { content: [{ type: 'text', text: 'x'.repeat(MAX_VALUE_BYTES) }] });
      const after = await engine.get('alice', task.taskId);
      assert.equal(after?.status, 'failed');
      assert.match(after?.error?.message ?? '', /could not be stored: .*beyond the \d+-byte bound/);
    });

    test('a runner that falls silent: its task reads failed after the window, never working forever', async () => {
      const store = await make();
      const reader = new TaskEngine(store, () => ({}), { staleMs: 300, bus: store });
      engines.push(reader);
      const now = Date.now();
      await store.put({ ...record('silent', 'alice', now), runner: 'gone' });
      assert.equal((await reader.get('alice', 'silent'))?.status, 'working', 'within the window');
      await eventually(
        async () => (await reader.get('alice', 'silent'))?.status === 'failed',
        'the silent runner’s task to read failed',
      );
    });
  });
}
