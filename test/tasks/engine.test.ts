/**
 * The task engine on its own, with the in-memory store: ids that do not repeat, the owner binding,
 * the caps (tasks per caller, task memory), expiry, cancellation reaching the call's signal, the
 * 2026 input_required round trip with partial answers, and a task whose runner went away.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TaskEngine, TaskLimitReached } from '../../src/tasks/engine.js';
import { newTaskId } from '../../src/tasks/ids.js';
import { MemoryTaskStore } from '../../src/tasks/memory-store.js';
import type { TaskSettings } from '../../src/tasks/types.js';

const engineWith = (settings: TaskSettings = {}) => new TaskEngine(new MemoryTaskStore(), () => settings);
const ASK = { method: 'elicitation/create' as const, params: { message: 'name?' } };

describe('task ids', () => {
  test('100,000 ids do not repeat, and each is 128 bits of base64url', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) seen.add(newTaskId());
    assert.equal(seen.size, 100_000);
    for (const id of [...seen].slice(0, 100)) {
      assert.match(id, /^[A-Za-z0-9_-]{22}$/);
      assert.equal(Buffer.from(id, 'base64url').length, 16);
    }
  });
});

describe('TaskEngine', () => {
  test("another owner's task id is unknown to it, for every operation", async () => {
    const engine = engineWith();
    const task = await engine.create('alice');
    assert.equal((await engine.get('alice', task.taskId))?.status, 'working');
    assert.equal(await engine.get('mallory', task.taskId), undefined);
    assert.equal(await engine.cancel('mallory', task.taskId), undefined);
    assert.equal(await engine.answer('mallory', task.taskId, {}), false);
    assert.deepEqual(await engine.list('mallory'), []);
    assert.equal(engine.signal(task.taskId).aborted, false, 'the foreign cancel reached nothing');
    await engine.close();
  });

  test('a flood of creations stops at maxPerCaller with a clear error; other callers are unaffected', async () => {
    const engine = engineWith({ maxPerCaller: 5 });
    for (let i = 0; i < 5; i++) await engine.create('flood');
    for (let i = 0; i < 50; i++) {
      await assert.rejects(engine.create('flood'), (err: Error) => {
        assert.ok(err instanceof TaskLimitReached);
        assert.match(
          err.message,
          /too many tasks: this caller holds 5 \(the limit is 5, server\.tasks\.maxPerCaller\)/,
        );
        return true;
      });
    }
    assert.equal((await engine.list('flood')).length, 5);
    await engine.create('someone-else');
    await engine.close();
  });

  test('a result that does not fit the task memory fails the task, saying why', async () => {
    const engine = engineWith({ maxBytes: 4096 });
    const task = await engine.create('a');
    await engine.complete(task.taskId, { content: [{ type: 'text', text: 'x'.repeat(10_000) }] });
    const after = await engine.get('a', task.taskId);
    assert.equal(after?.status, 'failed');
    assert.match(after?.error?.message ?? '', /does not fit the task memory/);
    assert.equal(after?.result, undefined);
  });

  test('the task memory full refuses new tasks', async () => {
    const engine = engineWith({ maxBytes: 2048 });
    const first = await engine.create('a');
    await engine.complete(first.taskId, { content: [{ type: 'text', text: 'y'.repeat(1000) }] });
    assert.equal((await engine.get('a', first.taskId))?.status, 'completed');
    await engine.create('b');
    await assert.rejects(engine.create('c'), /the task memory is full \(\d+ of 2048 bytes/);
  });

  test('a task is kept until its ttl, then unknown', async () => {
    const engine = engineWith({ ttlMs: 60_000 });
    const task = await engine.create('a', 40);
    assert.equal(task.ttlMs, 40, 'a shorter ttl asked for is granted');
    const long = await engine.create('a', 10_000_000);
    assert.equal(long.ttlMs, 60_000, 'a longer one is capped at the configured ttl');
    await engine.complete(task.taskId, { content: [] });
    assert.equal((await engine.get('a', task.taskId))?.status, 'completed');
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(await engine.get('a', task.taskId), undefined);
    assert.deepEqual(
      (await engine.list('a')).map((t) => t.taskId),
      [long.taskId],
    );
    await engine.close();
  });

  test('cancel aborts the running call and is final; a late result does not undo it', async () => {
    const engine = engineWith();
    const task = await engine.create('a');
    const signal = engine.signal(task.taskId);
    const cancelled = await engine.cancel('a', task.taskId);
    assert.equal(cancelled?.status, 'cancelled');
    assert.equal(signal.aborted, true);
    await engine.complete(task.taskId, { content: [{ type: 'text', text: 'too late' }] });
    assert.equal((await engine.get('a', task.taskId))?.status, 'cancelled');
    assert.equal(
      (await engine.cancel('a', task.taskId))?.status,
      'cancelled',
      'cancelling again changes nothing',
    );
  });

  test('2026 questions: input_required until every key is answered, answered keys leave inputRequests', async () => {
    const engine = engineWith();
    const task = await engine.create('a');
    const answered = engine.ask(task.taskId, { one: ASK, two: ASK });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(Object.keys((await engine.get('a', task.taskId))?.inputRequests ?? {}), ['one', 'two']);
    await engine.answer('a', task.taskId, { one: { action: 'accept' }, stranger: {} });
    const partial = await engine.get('a', task.taskId);
    assert.equal(partial?.status, 'input_required');
    assert.deepEqual(Object.keys(partial?.inputRequests ?? {}), ['two']);
    await engine.answer('a', task.taskId, { two: { action: 'decline' } });
    assert.deepEqual(await answered, { one: { action: 'accept' }, two: { action: 'decline' } });
    const resumed = await engine.get('a', task.taskId);
    assert.equal(resumed?.status, 'working');
    assert.equal(resumed?.inputRequests, undefined);
  });

  test('a working task whose runner is gone reads as failed, never working forever', async () => {
    const store = new MemoryTaskStore();
    const first = new TaskEngine(store, () => ({}));
    const task = await first.create('a');
    // A record left by a runner that stopped long ago (another replica, or a previous process).
    await store.put({ ...task, runner: 'gone', aliveAt: Date.now() - 60_000 });
    const second = new TaskEngine(store, () => ({}));
    const seen = await second.get('a', task.taskId);
    assert.equal(seen?.status, 'failed');
    assert.match(seen?.error?.message ?? '', /went away/);
  });

  test('a call still running at its expiry is stopped, and the record forgotten', async () => {
    const engine = engineWith();
    const task = await engine.create('a', 30);
    const signal = engine.signal(task.taskId);
    // The expiry timer does not hold the process open (unref): this wait does.
    for (let i = 0; i < 100 && !signal.aborted; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.match(String(signal.reason), /expired/);
    assert.equal(await engine.get('a', task.taskId), undefined);
  });

  test('an owner gone for good (its session ended): its calls stop and its records go', async () => {
    const engine = engineWith();
    const running = await engine.create('session-1');
    const done = await engine.create('session-1');
    await engine.complete(done.taskId, { content: [] });
    const other = await engine.create('session-2');
    const signal = engine.signal(running.taskId);
    await engine.dropOwner('session-1');
    assert.equal(signal.aborted, true);
    assert.deepEqual(await engine.list('session-1'), []);
    assert.equal((await engine.get('session-2', other.taskId))?.status, 'working');
    await engine.close();
  });

  test('close fails what is still running here', async () => {
    const engine = engineWith();
    const task = await engine.create('a');
    const signal = engine.signal(task.taskId);
    await engine.close();
    assert.equal(signal.aborted, true);
    assert.equal((await engine.get('a', task.taskId))?.status, 'failed');
  });
});
