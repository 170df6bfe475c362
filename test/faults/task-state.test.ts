/**
 * Tasks across a Redis fault (`--state`): a task whose call finishes while Redis is down keeps its
 * outcome on its runner and stores it once Redis is back, so its owner polls it to its result from
 * any replica; nothing is lost and the process does not fall over. Two task engines (two replicas)
 * share a redis-server of this test's own, SIGKILLed and started again on its append-only file.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RedisState } from '../../src/state/redis.js';
import { StateUnavailable } from '../../src/state/shared.js';
import { TaskEngine } from '../../src/tasks/engine.js';
import { SharedTaskStore } from '../../src/tasks/shared-store.js';
import { captureLogger } from '../protocol/harness.js';
import { eventually, type OwnRedis, skipReason, startOwnRedis } from '../state/replicas-harness.js';

const skip = skipReason({ redisServer: true });

describe('tasks across a Redis fault', { skip }, () => {
  let redis: OwnRedis;
  const states: RedisState[] = [];
  const engines: TaskEngine[] = [];

  /** One replica's engine on the shared Redis. */
  const replica = async (): Promise<TaskEngine> => {
    const state = new RedisState(`${redis.url}?prefix=task-fault`, captureLogger());
    assert.ok(await state.connect(), 'Redis answers');
    states.push(state);
    const store = new SharedTaskStore(state);
    const engine = new TaskEngine(store, () => undefined, { bus: store });
    engines.push(engine);
    return engine;
  };

  before(async () => {
    redis = await startOwnRedis({ persist: true });
  });
  after(async () => {
    for (const engine of engines) await engine.close();
    for (const state of states) await state.close();
    await redis?.remove();
  });

  test('a call that completes while Redis is down is polled to its result once Redis is back', async () => {
    const runner = await replica();
    const other = await replica();
    const task = await runner.create('alice');

    await redis.stop();
    // Meanwhile a poll gets a clear error, not a wrong answer.
    await assert.rejects(other.get('alice', task.taskId), StateUnavailable);
    const completing = runner.complete(task.taskId, { content: [{ type: 'text', text: 'done' }] });
    await new Promise((resolve) => setTimeout(resolve, 600));
    await redis.start();
    await completing;

    for (const engine of [other, runner]) {
      let seen: Awaited<ReturnType<TaskEngine['get']>>;
      await eventually(async () => {
        seen = await engine.get('alice', task.taskId).catch(() => undefined);
        return seen !== undefined;
      }, 'the task to be readable again');
      assert.equal(seen?.status, 'completed');
      assert.deepEqual(seen?.result, { content: [{ type: 'text', text: 'done' }] });
    }
  });

  test('a call that fails while Redis is down is polled to its error once Redis is back', async () => {
    const runner = await replica();
    const other = await replica();
    const task = await runner.create('bob');

    await redis.stop();
    const failing = runner.fail(task.taskId, { code: -32000, message: 'the upstream said no' });
    await new Promise((resolve) => setTimeout(resolve, 600));
    await redis.start();
    await failing;

    let seen: Awaited<ReturnType<TaskEngine['get']>>;
    await eventually(async () => {
      seen = await other.get('bob', task.taskId).catch(() => undefined);
      return seen !== undefined;
    }, 'the task to be readable again');
    assert.equal(seen?.status, 'failed');
    assert.equal(seen?.error?.message, 'the upstream said no');
  });
});
