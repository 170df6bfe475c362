/**
 * The Redis state under a stall (the fault relay holds every byte, both ways, then passes it on in
 * order): a command that times out may still run once the stall ends. What the fan-out of a
 * notification retries must then not count twice: a claim retried by its owner is still its own
 * (another replica's is refused), and an append retried with its id is not appended again. A
 * redis-server of this test's own; the shared one is never touched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RedisState } from '../../src/state/redis.js';
import { StateUnavailable } from '../../src/state/shared.js';
import { captureLogger } from '../protocol/harness.js';
import { eventually, type OwnRedis, skipReason, startOwnRedis } from '../state/replicas-harness.js';
import { type FaultRelay, startRelay } from './relay.js';

const skip = skipReason({ redisServer: true });
const BOUNDS = { items: 100, bytes: 100_000, ttlMs: 60_000 };

describe('the Redis state across a stall', { skip }, () => {
  let redis: OwnRedis;
  let relay: FaultRelay;
  let state: RedisState;
  /** A second client, straight to Redis: what Redis holds, whatever the relay does. */
  let direct: RedisState;

  before(async () => {
    redis = await startOwnRedis();
    relay = await startRelay({ port: redis.port });
    state = new RedisState(`redis://127.0.0.1:${relay.port}?prefix=stall`, captureLogger());
    direct = new RedisState(`${redis.url}?prefix=stall`, captureLogger());
    assert.ok((await state.connect()) && (await direct.connect()), 'Redis answers');
  });
  after(async () => {
    await state?.close();
    await direct?.close();
    await relay?.close();
    await redis?.remove();
  });

  /** `command` times out in a stall; the stall ends once Redis holds what it did. */
  async function timedOutButRan(command: () => Promise<unknown>, ran: () => Promise<boolean>): Promise<void> {
    relay.fault = { kind: 'stall' };
    await assert.rejects(command(), StateUnavailable);
    relay.fault = { kind: 'none' };
    await eventually(ran, 'the stalled command to run once the stall ended', 5000);
  }

  test('a claim that timed out but ran is still its owner’s on retry, and not another’s', async () => {
    await timedOutButRan(
      () => state.claim('c:change', 60_000, 'r1'),
      async () => (await direct.get('c:change')) !== undefined,
    );
    assert.equal(await state.claim('c:change', 60_000, 'r1'), true);
    assert.equal(await state.claim('c:change', 60_000, 'r2'), false);
  });

  test('an append that timed out but ran is not appended again by its retry', async () => {
    await state.logCreate('log', 'get', 60_000);
    await timedOutButRan(
      () => state.logAppend('log', 'list_changed', BOUNDS, 'r1:change:0'),
      async () => (await direct.logRead('log', 0, 60_000))?.last === 1,
    );
    assert.equal(await state.logAppend('log', 'list_changed', BOUNDS, 'r1:change:0'), 1);
    assert.deepEqual((await direct.logRead('log', 0, 60_000))?.items, [{ seq: 1, item: 'list_changed' }]);
  });
});
