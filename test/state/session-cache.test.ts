/**
 * The copy of a 2025 session record each replica serves from (`--state`): three HTTP transports in
 * this process share a redis-server of the test's own (never the shared one, since it is restarted
 * and its subscribers killed). What a copy must never do is outlive what it copies:
 * - DELETE on one replica drops the copy on every other (their next request is refused);
 * - a record changed on one replica is what the others serve next, and what they write next;
 * - a session that expired in Redis is refused everywhere, though the copies were not told;
 * - after Redis restarted (its data gone) or the subscription reconnected (an announcement may have
 *   been missed), no copy is trusted: each is read again;
 * - the copies a replica holds are bounded in entries and in bytes, and a dropped one is read again.
 * Waits are bounded (`eventually`), never timed.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { RedisState } from '../../src/state/redis.js';
import { captureLogger } from '../protocol/harness.js';
import { type Json, post, type Served, sessionHeaders, startHttp } from '../transports/http-harness.js';
import { eventually, type OwnRedis, REDIS_SERVER, startOwnRedis } from './replicas-harness.js';

const skip = REDIS_SERVER === undefined ? 'redis-server is not installed' : undefined;

interface Replica {
  readonly served: Served;
  readonly state: RedisState;
  readonly url: string;
}

let redis: OwnRedis;
let port: number;
const replicas: Replica[] = [];
let nextId = 1;

async function replica(prefix: string, options: Parameters<typeof startHttp>[0] = {}): Promise<Replica> {
  const state = new RedisState(`${redis.url}/?prefix=${prefix}`, captureLogger());
  assert.ok(await state.connect(), 'Redis is reachable');
  const served = await startHttp({ state, ...options });
  const made = { served, state, url: served.url };
  replicas.push(made);
  return made;
}

const redisCli = (...args: string[]): string =>
  execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).trim();

/** A new session opened on `on`, with `capabilities` as its client's. */
async function open(on: Replica, capabilities: Json = {}): Promise<string> {
  const init = await post(on.url, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'cache', version: '0' } },
  });
  const id = init.headers['mcp-session-id'];
  assert.equal(init.status, 200, init.body);
  assert.equal(typeof id, 'string');
  const ready = await post(
    on.url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    sessionHeaders(id as string),
  );
  assert.equal(ready.status, 202);
  return id as string;
}

/** A tools/call of the fixture's `work` (it logs at debug, info and error): status and messages. */
async function work(on: Replica, session: string): Promise<{ status: number; messages: Json[] }> {
  const res = await post(
    on.url,
    { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'work', arguments: {} } },
    sessionHeaders(session),
  );
  if (res.status !== 200) return { status: res.status, messages: [] };
  const type = String(res.headers['content-type'] ?? '');
  return { status: res.status, messages: type.includes('text/event-stream') ? res.events() : [res.json()] };
}

const logLevels = (messages: Json[]): string[] =>
  messages.filter((m) => m.method === 'notifications/message').map((m) => m.params.level);

const held = (r: Replica): number => r.served.transport.stats().sessions;

/** Every replica serves the session once, so each holds a copy of its record. */
async function holdEverywhere(session: string, on: readonly Replica[]): Promise<void> {
  for (const r of on) assert.equal((await work(r, session)).status, 200);
}

describe('cached 2025 session records across replicas', { skip }, () => {
  before(async () => {
    redis = await startOwnRedis();
    port = Number(new URL(redis.url).port);
  });

  after(async () => {
    for (const r of replicas) {
      await r.served.close(100);
      await r.state.close();
    }
    await redis?.remove();
  });

  test('DELETE on one replica drops the copy on every other, and each refuses the session', async () => {
    const [a, b, c] = [await replica('del'), await replica('del'), await replica('del')];
    const session = await open(a);
    await holdEverywhere(session, [a, b, c]);
    assert.deepEqual([held(b), held(c)], [1, 1]);
    const res = await fetch(a.url, { method: 'DELETE', headers: sessionHeaders(session) });
    await res.text();
    assert.equal(res.status, 200);
    // Dropped by the announcement, not by a request (nothing else ends a copy within minutes here).
    await eventually(() => held(b) === 0 && held(c) === 0, 'the copies dropped on b and c');
    assert.equal((await work(b, session)).status, 404);
    assert.equal((await work(c, session)).status, 404);
  });

  test('a log level set on one replica is the one every other serves next', async () => {
    const [a, b, c] = [await replica('level'), await replica('level'), await replica('level')];
    const session = await open(a);
    await holdEverywhere(session, [a, b, c]);
    assert.ok(!logLevels((await work(c, session)).messages).includes('debug'), 'no debug log by default');
    const set = await post(
      b.url,
      { jsonrpc: '2.0', id: nextId++, method: 'logging/setLevel', params: { level: 'debug' } },
      sessionHeaders(session),
    );
    assert.equal(set.status, 200);
    const told = (r: Replica) => r.served.log.lines.some((l) => l.includes('changed on another replica'));
    await eventually(() => told(a) && told(c), 'the change announced to a and c');
    assert.deepEqual(logLevels((await work(a, session)).messages), ['debug', 'info', 'error']);
    assert.deepEqual(logLevels((await work(c, session)).messages), ['debug', 'info', 'error']);
  });

  test('a subscription made on one replica survives a later change of the record on another', async () => {
    const [a, b] = [await replica('subs'), await replica('subs')];
    const session = await open(a);
    await holdEverywhere(session, [a, b]);
    const sub = await post(
      b.url,
      { jsonrpc: '2.0', id: nextId++, method: 'resources/subscribe', params: { uri: 'test://static' } },
      sessionHeaders(session),
    );
    assert.equal(sub.status, 200, sub.body);
    await eventually(
      () => a.served.log.lines.some((l) => l.includes('changed on another replica')),
      'the change announced to a',
    );
    // a writes the record next: from b's version of it, not from the copy it held before.
    const set = await post(
      a.url,
      { jsonrpc: '2.0', id: nextId++, method: 'logging/setLevel', params: { level: 'info' } },
      sessionHeaders(session),
    );
    assert.equal(set.status, 200);
    const record = JSON.parse(redisCli('get', `mcp-run:subs:s:${session}`));
    assert.deepEqual(record.subscriptions, ['test://static']);
    assert.equal(record.logLevel, 'info');
  });

  test('a session that expired in Redis is refused on every replica that held it', async () => {
    // A short session life (its copies are read again within a tenth of it); copies held here
    // would otherwise outlive it, since a replica drops an idle one only after sessionIdleMs.
    const options = { heldSessionIdleMs: 1500, sessionIdleMs: 60_000 };
    const [a, b] = [await replica('expiry', options), await replica('expiry', options)];
    const session = await open(a);
    await holdEverywhere(session, [a, b]);
    await eventually(() => redisCli('exists', `mcp-run:expiry:s:${session}`) === '0', 'the record expired');
    assert.deepEqual([held(a), held(b)], [1, 1], 'both still hold a copy');
    assert.equal((await work(b, session)).status, 404);
    assert.equal((await work(a, session)).status, 404);
  });

  test('an announcement missed while the subscription was down: the copy is read again', async () => {
    const [a, b] = [await replica('gap'), await replica('gap')];
    const session = await open(a);
    await holdEverywhere(session, [a, b]);
    // The record goes without a word (as if its announcement were lost): the copy still serves.
    redisCli('del', `mcp-run:gap:s:${session}`);
    assert.equal((await work(b, session)).status, 200, 'b serves from its copy');
    const gaps = b.state.gaps;
    redisCli('client', 'kill', 'type', 'pubsub');
    await eventually(() => b.state.gaps > gaps && b.state.delivering, 'the subscription back on b');
    assert.equal((await work(b, session)).status, 404, 'a change may have been missed: read again');
    assert.equal((await work(a, session)).status, 404);
  });

  test('Redis restarted without its data: no copy is trusted, the session is refused', async () => {
    const [a, b] = [await replica('restart'), await replica('restart')];
    const session = await open(a);
    await holdEverywhere(session, [a, b]);
    const gaps = [a.state.gaps, b.state.gaps];
    await redis.stop();
    // Seen by both before Redis is back (the test's blocking start must not hide the outage).
    await eventually(
      () => a.state.gaps > (gaps[0] as number) && b.state.gaps > (gaps[1] as number),
      'the outage on both',
    );
    await redis.start();
    const back = (r: Replica) => r.state.healthy && r.state.delivering;
    await eventually(() => back(a) && back(b), 'both replicas reconnected');
    assert.equal((await work(a, session)).status, 404);
    assert.equal((await work(b, session)).status, 404);
    const again = await open(b);
    await holdEverywhere(again, [a, b]);
  });

  test('the copies held are bounded in entries and in bytes; a dropped one is read again', async () => {
    const a = await replica('bound');
    const few = await replica('bound', { maxSessions: 3 });
    const small = await replica('bound', { heldRecordBytes: 50_000 });
    // Each record is about 20 kB: its client's capabilities.
    const pad = { experimental: { pad: { text: 'x'.repeat(20_000) } } };
    const sessions = [];
    for (let i = 0; i < 5; i++) sessions.push(await open(a, pad));
    for (const session of sessions) {
      assert.equal((await work(few, session)).status, 200);
      assert.equal((await work(small, session)).status, 200);
      assert.ok(held(few) <= 3, `${held(few)} copies held beyond the bound of 3`);
      assert.ok(held(small) <= 2, `${held(small)} copies of 20 kB held beyond 50 000 bytes`);
    }
    assert.equal(held(small), 2, 'the newest copies are kept');
    // The first was dropped from both; it is read again, from Redis.
    assert.equal((await work(few, sessions[0] as string)).status, 200);
    assert.equal((await work(small, sessions[0] as string)).status, 200);
  });
});
