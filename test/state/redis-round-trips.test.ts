/**
 * What a 2025-era request costs in Redis round trips with `--state`: two replicas share a Redis of
 * the test's own, reached through a relay that counts the turns of every conversation (one request
 * in flight at a time: the count is exact, not timed). The session is opened on one replica and
 * called on both alternately, the worst case of a round-robin balancer:
 * - a replica that already holds the session serves a call from its cached record, without asking
 *   Redis; it refreshes the session's expiry (one round trip) at most once per refresh interval;
 * - a replica that takes a session up loads it in one round trip (GET and the refresh, one script);
 * - a record changed on one replica (logging/setLevel) is announced: the other drops its cached
 *   copy and the next call there sees the change;
 * - DELETE on one replica ends the session on the other;
 * - while the subscriber is away the cache is not used (a change may have been missed).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type TurnRelay, turnRelay } from '../helpers/turn-relay.js';
import {
  eventually,
  type OwnRedis,
  REDIS_SERVER,
  type Replica,
  startOwnRedis,
  startReplica,
} from './replicas-harness.js';

const MANIFEST = `
server: { name: round-trips, version: 1.0.0 }
tools:
  ping:
    kind: content
    description: Answers pong.
    content:
      - text: pong
  chatty:
    kind: shell
    description: Writes one line to stderr, sent as an info log message to a session that asked for info.
    command: [node, -e, "console.error('said on stderr'); console.log('ok')"]
`;

/** How often a replica refreshes a session it serves from cache (sessions.ts REFRESH_MS). */
const REFRESH_MS = 10_000;

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

/** The JSON-RPC messages of one POST's answer (a JSON body, or the data lines of an SSE stream). */
async function post(url: string, session: string | undefined, body: object) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, ...(session !== undefined && { 'mcp-session-id': session }) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  const messages: Record<string, unknown>[] =
    text === ''
      ? []
      : type.includes('text/event-stream')
        ? text
            .split('\n')
            .filter((line) => line.startsWith('data: ') && line.length > 6)
            .map((line) => JSON.parse(line.slice(6)))
        : [JSON.parse(text)];
  return { status: res.status, session: res.headers.get('mcp-session-id') ?? undefined, messages };
}

let nextId = 1;
const call = (url: string, session: string, name: string) =>
  post(url, session, { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: {} } });

const skip = REDIS_SERVER === undefined ? 'redis-server is not installed' : undefined;

describe('Redis round trips of 2025-era requests with --state', { skip }, () => {
  let dir: string;
  let redis: OwnRedis;
  let relay: TurnRelay;
  let a: Replica;
  let b: Replica;
  let session: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-run-round-trips-'));
    const manifest = join(dir, 'mcp.yaml');
    writeFileSync(manifest, MANIFEST);
    redis = await startOwnRedis();
    relay = await turnRelay('127.0.0.1', Number(new URL(redis.url).port));
    const state = `redis://127.0.0.1:${relay.port}/?prefix=rt`;
    [a, b] = await Promise.all([startReplica(manifest, state), startReplica(manifest, state)]);
    const init = await post(a.url, undefined, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'rt', version: '1' } },
    });
    assert.equal(init.status, 200);
    session = init.session as string;
    assert.equal(
      (await post(b.url, session, { jsonrpc: '2.0', method: 'notifications/initialized' })).status,
      202,
    );
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    relay?.close();
    await redis?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a call on a replica that holds the session costs no round trip; taking it up costs one', async () => {
    // Both replicas hold the session now (b took it up for `initialized`); a takes up b's change.
    relay.turns = 0;
    const first = await call(a.url, session, 'ping');
    assert.equal(first.status, 200);
    assert.ok(relay.turns <= 1, `taking up a changed record: ${relay.turns} round trips`);

    const calls = 20;
    const started = Date.now();
    relay.turns = 0;
    for (let i = 0; i < calls; i++) {
      const answer = await call(i % 2 === 0 ? b.url : a.url, session, 'ping');
      assert.equal(answer.status, 200);
      assert.deepEqual((answer.messages[0]?.result as { content?: unknown } | undefined)?.content, [
        { type: 'text', text: 'pong' },
      ]);
    }
    const turns = relay.turns;
    // Each replica refreshes the session at most once per interval it served in.
    const refreshes = 2 * (1 + Math.ceil((Date.now() - started) / REFRESH_MS));
    assert.ok(turns <= calls, `${turns} round trips for ${calls} calls: more than one a call`);
    assert.ok(turns <= refreshes, `${turns} round trips for ${calls} calls: the record was not cached`);
  });

  test('a record changed on one replica reaches the other before its next call', async () => {
    const before = await call(a.url, session, 'chatty');
    assert.equal(before.status, 200);
    assert.ok(!JSON.stringify(before.messages).includes('notifications/message'), 'no level set: no log');
    const mark = b.stderr().length;
    const set = await post(b.url, session, {
      jsonrpc: '2.0',
      id: nextId++,
      method: 'logging/setLevel',
      params: { level: 'info' },
    });
    assert.equal(set.status, 200);
    // a drops its cached copy when b's announcement arrives (it logs that at debug).
    await eventually(() => a.stderr().includes('changed on another replica'), 'the announcement on a');
    assert.ok(
      !b.stderr().slice(mark).includes('changed on another replica'),
      'b does not hear its own change',
    );
    relay.turns = 0;
    assert.equal((await call(a.url, session, 'ping')).status, 200);
    assert.equal(relay.turns, 1, 'a reads the changed record again, in one round trip');
    relay.turns = 0;
    assert.equal((await call(a.url, session, 'ping')).status, 200);
    assert.equal(relay.turns, 0, 'then serves from its copy again');
    const after = await call(a.url, session, 'chatty');
    assert.ok(JSON.stringify(after.messages).includes('said on stderr'), 'a sends the log at the new level');
  });

  test('after the subscription was lost, a copy is read again', async () => {
    // The last test's shell call wrote its stream's events to Redis, some after its answer: a call
    // served from the copy costs nothing once those are done.
    await eventually(async () => {
      relay.turns = 0;
      assert.equal((await call(a.url, session, 'ping')).status, 200);
      return relay.turns === 0;
    }, 'a call served from the copy');
    const mark = a.stderr().length;
    const markB = b.stderr().length;
    relay.cut();
    await eventually(() => a.stderr().slice(mark).includes('are live again'), 'the subscription back on a');
    await eventually(() => a.stderr().slice(mark).includes('is reachable'), 'the client back on a');
    // The cut dropped b's connections too: its reconnection goes through the same relay, and is
    // not a's call's to count.
    await eventually(() => b.stderr().slice(markB).includes('are live again'), 'the subscription back on b');
    await eventually(() => b.stderr().slice(markB).includes('is reachable'), 'the client back on b');
    relay.turns = 0;
    assert.equal((await call(a.url, session, 'ping')).status, 200);
    assert.equal(relay.turns, 1, 'a change may have been missed: the record is read again');
    relay.turns = 0;
    assert.equal((await call(a.url, session, 'ping')).status, 200);
    assert.equal(relay.turns, 0, 'then served from the copy');
  });

  test('DELETE on one replica ends the session on the other', async () => {
    const ended = await fetch(b.url, {
      method: 'DELETE',
      headers: { ...HEADERS, 'mcp-session-id': session },
    });
    await ended.text();
    assert.equal(ended.status, 200);
    await eventually(async () => (await call(a.url, session, 'ping')).status === 404, 'a 404 on a');
  });
});
