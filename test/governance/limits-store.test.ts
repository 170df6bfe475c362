/**
 * The counting of the limits per caller, on both stores with a clock the test sets: exact counts,
 * no more than the limit in any window (across a fixed window's edge too), the retry time, a call
 * refused by one rate using nothing of the others, the bound on memory. On Redis (the shared one,
 * a prefix of this test's own): the same table, exact counts under concurrent takes, concurrency
 * leases; on a redis-server of the test's own, what a restart does: refused while it is down (fail
 * closed), counting from zero once it is back without its data.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CallLimits } from '../../src/governance/limits/gate.js';
import { hostLimits, IpcLimitStore } from '../../src/governance/limits/ipc-store.js';
import { RedisLimitStore } from '../../src/governance/limits/redis-store.js';
import { installLimitStore, type LimitStore, MemoryLimitStore } from '../../src/governance/limits/store.js';
import { bucketsOf, type WindowSpec } from '../../src/governance/limits/window.js';
import { GovernanceRefusal } from '../../src/governance/refusal.js';
import { RedisState } from '../../src/state/redis.js';
import { IpcRooms, IpcUnavailable } from '../../src/util/ipc.js';
import { ipcPair } from '../helpers/ipc-pair.js';
import { captureLogger } from '../protocol/harness.js';
import { type OwnRedis, skipReason, startOwnRedis, stateUrl } from '../state/replicas-harness.js';

const MINUTE = 60_000;

/** A store on a clock the test moves. */
interface Clocked {
  readonly store: LimitStore;
  at(ms: number): void;
}

const window = (key: string, limit: number, windowMs = MINUTE): WindowSpec => ({ key, limit, windowMs });

async function admitted(store: LimitStore, spec: WindowSpec, attempts: number): Promise<number> {
  let passed = 0;
  for (let i = 0; i < attempts; i++) if ((await store.take([spec])) === undefined) passed++;
  return passed;
}

/** The same cases for both stores; `fresh` makes a store whose keys no other case used. */
function countingCases(fresh: () => Promise<Clocked>): void {
  test('exactly N of many attempts pass in one window', async () => {
    const { store, at } = await fresh();
    at(10 * MINUTE + 5);
    assert.equal(await admitted(store, window('exact', 7), 20), 7);
  });

  test('across a fixed window edge: N just before it, then nothing just after it', async () => {
    const { store, at } = await fresh();
    const spec = window('edge', 5);
    // A fixed window of one minute starting at 0 would reset at 60,000 and let 5 more through.
    at(MINUTE - 1);
    assert.equal(await admitted(store, spec, 5), 5);
    at(MINUTE + 1);
    assert.equal(await admitted(store, spec, 5), 0, 'nothing passes right after the edge');
    at(MINUTE + MINUTE / 2);
    assert.equal(await admitted(store, spec, 5), 0, 'nor half a window later');
    // Once the whole window has passed (plus at most one bucket's width), all 5 again.
    const { width } = bucketsOf(MINUTE);
    at(2 * MINUTE - 1 + width);
    assert.equal(await admitted(store, spec, 10), 5);
  });

  test('no span of the window length ever holds more than N admitted calls', async () => {
    const { store, at } = await fresh();
    const limit = 4;
    const windowMs = 10_000;
    const spec = window('sliding', limit, windowMs);
    const passed: number[] = [];
    // Deterministic arrivals over six windows, bunched and spread (a linear congruential sequence).
    let seed = 12345;
    let t = 3 * windowMs;
    for (let i = 0; i < 300; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      t += seed % 400;
      at(t);
      if ((await store.take([spec])) === undefined) passed.push(t);
    }
    for (const end of passed) {
      const inSpan = passed.filter((p) => p > end - windowMs && p <= end).length;
      assert.ok(inSpan <= limit, `${inSpan} calls in the ${windowMs} ms up to ${end}`);
    }
    // And the limit is used, not just obeyed: about N per window over six windows.
    assert.ok(passed.length >= 4 * limit, `only ${passed.length} passed`);
  });

  test('a refusal says when a retry passes, and a retry then passes', async () => {
    const { store, at } = await fresh();
    const spec = window('retry', 3);
    at(5 * MINUTE + 123);
    assert.equal(await admitted(store, spec, 3), 3);
    at(5 * MINUTE + 20_000);
    const full = await store.take([spec]);
    assert.ok(full !== undefined && full.retryAfterMs > 0);
    assert.equal(full.index, 0);
    assert.ok(full.retryAfterMs <= MINUTE, `retry after ${full.retryAfterMs} ms`);
    at(5 * MINUTE + 20_000 + full.retryAfterMs - 1);
    assert.ok((await store.take([spec])) !== undefined, 'refused 1 ms before the time given');
    at(5 * MINUTE + 20_000 + full.retryAfterMs);
    assert.equal(await store.take([spec]), undefined, 'admitted at the time given');
  });

  test('a call refused by one rate uses nothing of the others', async () => {
    const { store, at } = await fresh();
    at(7 * MINUTE);
    const roomy = window('roomy', 3);
    const tight = window('tight', 1);
    assert.equal(await store.take([roomy, tight]), undefined);
    const full = await store.take([roomy, tight]);
    assert.equal(full?.index, 1, 'the second rate is the full one');
    assert.equal(await admitted(store, roomy, 5), 2, 'the refused call took nothing of the first');
  });
}

describe('memory store', () => {
  countingCases(async () => {
    let now = 0;
    const store = new MemoryLimitStore(() => now);
    return { store, at: (ms) => (now = ms) };
  });

  test('keeps at most its bound of windows, forgetting the least recently used', async () => {
    const store = new MemoryLimitStore(() => 1000, 3);
    for (const key of ['a', 'b', 'c', 'd', 'e']) await store.take([window(key, 1)]);
    assert.equal(store.size, 3);
    // `e` is remembered (refused again), `a` was forgotten (admitted again).
    assert.notEqual(await store.take([window('e', 1)]), undefined);
    assert.equal(await store.take([window('a', 1)]), undefined);
  });

  test('a concurrency slot is given back once, whatever calls release', async () => {
    const store = new MemoryLimitStore();
    const first = await store.enter('cap', 2);
    const second = await store.enter('cap', 2);
    assert.ok(first && second);
    assert.equal(await store.enter('cap', 2), undefined);
    first.release();
    first.release();
    const third = await store.enter('cap', 2);
    assert.ok(third, 'one slot came back');
    assert.equal(await store.enter('cap', 2), undefined, 'and only one');
  });
});

describe("the primary's store, reached over IPC (--workers)", () => {
  countingCases(async () => {
    let now = 0;
    const { client, rooms } = ipcPair();
    hostLimits(rooms, new MemoryLimitStore(() => now));
    return { store: new IpcLimitStore(client), at: (ms) => (now = ms) };
  });

  test('two workers at once: exactly the limit passes over both', async () => {
    const rooms = new IpcRooms();
    hostLimits(rooms);
    const [a, b] = [new IpcLimitStore(ipcPair(rooms).client), new IpcLimitStore(ipcPair(rooms).client)];
    const spec = window('two-workers', 13);
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).take([spec])));
    assert.equal(results.filter((r) => r === undefined).length, 13);
  });

  test('concurrency slots count every worker, and a worker that is gone frees its own', async () => {
    const rooms = new IpcRooms();
    const host = hostLimits(rooms);
    const one = ipcPair(rooms);
    const two = ipcPair(rooms);
    const [a, b] = [new IpcLimitStore(one.client), new IpcLimitStore(two.client)];
    const held = await a.enter('cap', 2);
    assert.ok(held && (await b.enter('cap', 2)));
    assert.equal(await a.enter('cap', 2), undefined, 'both slots are held, one by each worker');
    held.release();
    assert.ok(await a.enter('cap', 2), 'a released slot can be taken again');
    assert.equal(await b.enter('cap', 2), undefined);
    host.forget(two.peer);
    assert.ok(await a.enter('cap', 2), "the gone worker's slot came back");
    assert.equal(await a.enter('cap', 2), undefined, 'and only that one');
  });

  test('a slot the primary grants after the worker gave up waiting is released by the worker', async () => {
    const rooms = new IpcRooms();
    hostLimits(rooms);
    // A short timeout; the primary's answer is held past it, so the order is fixed, not raced.
    const slow = ipcPair(rooms, { timeoutMs: 20 });
    const worker = new IpcLimitStore(slow.client);
    slow.pause();
    // The client's timer is unref'd (it must not keep a worker alive): this keeps the test's.
    const alive = setInterval(() => {}, 1000);
    try {
      await assert.rejects(worker.enter('late', 1), IpcUnavailable);
    } finally {
      clearInterval(alive);
    }
    await slow.resume();
    const again = await worker.enter('late', 1);
    assert.ok(again, 'the one slot is free again: the late grant was handed back');
    assert.equal(await worker.enter('late', 1), undefined, 'and it is the only one');
  });
});

const redisSkip = skipReason();

describe('Redis store', { skip: redisSkip }, () => {
  let state: RedisState;
  let now = 0;
  before(async () => {
    state = new RedisState(stateUrl(), captureLogger());
    assert.ok(await state.connect());
  });
  after(() => state?.close());

  let n = 0;
  countingCases(async () => {
    // Each case its own keys: the windows of earlier cases stay in Redis until they expire.
    const prefix = `case${n++}-`;
    const inner = new RedisLimitStore(state, () => now);
    const store: LimitStore = {
      where: inner.where,
      take: (windows) => inner.take(windows.map((w) => ({ ...w, key: prefix + w.key }))),
      enter: (key, max) => inner.enter(prefix + key, max),
    };
    return { store, at: (ms) => (now = ms) };
  });

  test('60 takes at once from one process: exactly the limit pass', async () => {
    const store = new RedisLimitStore(state);
    const spec = window('at-once', 13);
    const results = await Promise.all(Array.from({ length: 60 }, () => store.take([spec])));
    assert.equal(results.filter((r) => r === undefined).length, 13);
  });

  test('concurrency leases: max held at once, a released one can be taken again', async () => {
    const store = new RedisLimitStore(state);
    const leases = await Promise.all(Array.from({ length: 5 }, () => store.enter('leases', 2)));
    const held = leases.filter((l) => l !== undefined);
    assert.equal(held.length, 2);
    held[0]?.release();
    // The release is sent without waiting for it; the next enter follows it on the same connection.
    assert.ok(await store.enter('leases', 2));
    assert.equal(await store.enter('leases', 2), undefined);
  });
});

describe('Redis restart (a redis-server of this test, without persistence)', {
  skip: skipReason({ redisServer: true }),
}, () => {
  let redis: OwnRedis;
  let state: RedisState;
  let previous: LimitStore;
  before(async () => {
    redis = await startOwnRedis();
    state = new RedisState(`${redis.url}?prefix=limits-restart`, captureLogger());
    assert.ok(await state.connect());
    previous = installLimitStore(new RedisLimitStore(state));
  });
  after(async () => {
    installLimitStore(previous);
    await state?.close();
    await redis?.remove();
  });

  const limits = CallLimits.of([{ at: 'tools.t.limits', limits: { calls: '2/minute', concurrent: 5 } }]);

  async function refusal(): Promise<GovernanceRefusal | undefined> {
    try {
      (await limits?.admit('alice'))?.release();
      return undefined;
    } catch (err) {
      assert.ok(err instanceof GovernanceRefusal);
      return err;
    }
  }

  test('fails closed while Redis is down, counts from zero once it is back without its data', async () => {
    assert.equal(await refusal(), undefined);
    assert.equal(await refusal(), undefined);
    assert.equal((await refusal())?.rule, 'tools.t.limits.calls 2/minute');
    await redis.stop();
    const down = await refusal();
    assert.ok(down, 'refused while Redis is down');
    assert.equal(down.decision, 'limit');
    assert.match(down.message, /cannot be checked now/);
    assert.equal(down.retryAfterMs, 1000);
    await redis.start();
    // ioredis reconnects on its own; until it has, calls stay refused.
    const until = Date.now() + 15_000;
    let back: GovernanceRefusal | undefined = down;
    while (back !== undefined && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      back = await refusal();
    }
    assert.equal(back, undefined, 'admitted again: the restarted Redis kept no counts');
  });
});
