/**
 * Fair 2025-era sessions (issue 13): one client opening many sessions cannot lock others out. Each
 * client (by accepted credential: all test requests come from 127.0.0.1) holds at most its share;
 * at a bound, the least recently used idle session is evicted before anyone gets 503; a session
 * with no GET stream expires sooner than one holding a stream.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type OpenStream, openStream, post, type Served, sessionHeaders, startHttp } from './http-harness.js';

const TOKENS = ['alice-token', 'bob-token', 'carol-token', 'dave-token', 'erin-token'];
const as = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

const initialize = (s: Served, headers: Record<string, string>) =>
  post(
    s.url,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    },
    headers,
  );

/** Runs the handshake as this client; resolves with the session id. */
async function open(s: Served, headers: Record<string, string>): Promise<string> {
  const res = await initialize(s, headers);
  const id = res.headers['mcp-session-id'];
  assert.equal(res.status, 200, res.body);
  assert.equal(typeof id, 'string');
  const ready = await post(
    s.url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { ...headers, ...sessionHeaders(String(id)) },
  );
  assert.equal(ready.status, 202);
  return String(id);
}

/** Opens the session's GET stream: the session is then held, never evicted. */
async function hold(s: Served, headers: Record<string, string>, id: string): Promise<OpenStream> {
  const stream = await openStream(s.url, { method: 'GET', headers: { ...headers, ...sessionHeaders(id) } });
  assert.equal(stream.status, 200);
  return stream;
}

const ping = async (s: Served, headers: Record<string, string>, id: string): Promise<number> =>
  (await post(s.url, { jsonrpc: '2.0', id: 5, method: 'ping' }, { ...headers, ...sessionHeaders(id) }))
    .status;

async function withServer(
  options: Parameters<typeof startHttp>[0],
  body: (s: Served, streams: OpenStream[]) => Promise<void>,
): Promise<void> {
  const s = await startHttp(options);
  const streams: OpenStream[] = [];
  try {
    await body(s, streams);
  } finally {
    for (const stream of streams) stream.close();
    await s.close();
  }
}

describe('fair sessions: the per-client share', () => {
  it('a client opening more sessions than its share evicts its own oldest idle ones, never another client’s', async () => {
    // maxSessions 8: the default share is a quarter, 2 sessions.
    await withServer({ maxSessions: 8, auth: { bearerTokens: TOKENS } }, async (s) => {
      const alice = as(TOKENS[0]!);
      const bob = as(TOKENS[1]!);
      const bobs = await open(s, bob);
      const alices: string[] = [];
      for (let i = 0; i < 6; i++) alices.push(await open(s, alice));
      const statuses = [];
      for (const id of alices) statuses.push(await ping(s, alice, id));
      assert.deepEqual(statuses, [404, 404, 404, 404, 200, 200], 'only the newest two of alice’s remain');
      assert.equal(await ping(s, bob, bobs), 200, 'bob’s idle session was not touched');
      await open(s, bob);
    });
  });

  it('a client at its share with no idle session gets 503 naming its share, while others still initialize', async () => {
    await withServer({ maxSessions: 8, auth: { bearerTokens: TOKENS } }, async (s, streams) => {
      const alice = as(TOKENS[0]!);
      for (let i = 0; i < 2; i++) streams.push(await hold(s, alice, await open(s, alice)));
      const refused = await initialize(s, alice);
      assert.equal(refused.status, 503);
      assert.equal(refused.json().id, 1);
      assert.match(refused.json().error.message, /this client already holds its share of 2 open sessions/);
      assert.equal(refused.headers['retry-after'], '10');
      // A second, made-up credential beside the accepted one does not make alice someone else.
      const disguised = await initialize(s, { ...alice, 'x-api-key': 'made-up' });
      assert.equal(disguised.status, 503);
      for (const token of TOKENS.slice(1, 4)) {
        const id = await open(s, as(token));
        assert.equal(await ping(s, as(token), id), 200);
      }
    });
  });

  it('without auth, every request from one address is one client', async () => {
    await withServer({ maxSessions: 8 }, async (s, streams) => {
      for (let i = 0; i < 2; i++) streams.push(await hold(s, {}, await open(s, {})));
      // A bearer token means nothing when auth is off: still the same client.
      const refused = await initialize(s, as('anything'));
      assert.equal(refused.status, 503);
      assert.match(refused.json().error.message, /its share of 2/);
    });
  });
});

describe('fair sessions: eviction before 503', () => {
  it('at the server bound, the least recently used idle session of any client is evicted; 503 only when none is idle', async () => {
    await withServer({ maxSessions: 8, auth: { bearerTokens: TOKENS } }, async (s, streams) => {
      const opened: { who: Record<string, string>; id: string }[] = [];
      for (const token of TOKENS.slice(0, 4))
        for (let i = 0; i < 2; i++) opened.push({ who: as(token), id: await open(s, as(token)) });
      // The first session is used again: the second becomes the least recently used.
      assert.equal(await ping(s, opened[0]!.who, opened[0]!.id), 200);

      const erin = as(TOKENS[4]!);
      const first = await open(s, erin);
      assert.equal(await ping(s, opened[1]!.who, opened[1]!.id), 404, 'the LRU idle session was evicted');
      for (const { who, id } of [opened[0]!, ...opened.slice(2)]) assert.equal(await ping(s, who, id), 200);

      // Every session now holds a GET stream: nothing is idle, so the next one is refused.
      for (const { who, id } of [opened[0]!, ...opened.slice(2)]) streams.push(await hold(s, who, id));
      streams.push(await hold(s, erin, first));
      const refused = await initialize(s, erin);
      assert.equal(refused.status, 503);
      assert.match(refused.json().error.message, /the server holds its 8 open sessions/);

      // A stream that closes makes its session idle again, and evictable.
      streams.shift()!.close();
      for (let i = 0; i < 50; i++) {
        const res = await initialize(s, erin);
        if (res.status === 200) break;
        await sleep(20);
      }
      assert.equal(await ping(s, opened[0]!.who, opened[0]!.id), 404);
    });
  });
});

describe('fair sessions: expiry', () => {
  it('a session without a GET stream expires after sessionIdleMs; one holding a stream outlives it', async () => {
    await withServer({ sessionIdleMs: 50, heldSessionIdleMs: 60_000 }, async (s, streams) => {
      const held = await open(s, {});
      streams.push(await hold(s, {}, held));
      const idle = await open(s, {});
      // The sweep runs every second at most; any request would count as use, so watch the log.
      for (let i = 0; i < 50 && !s.log.lines.some((l) => l.includes('expired')); i++) await sleep(100);
      assert.equal(await ping(s, {}, idle), 404);
      assert.equal(await ping(s, {}, held), 200);
    });
  });

  it('a session holding a GET stream expires after heldSessionIdleMs without a request; its stream ends', async () => {
    await withServer({ sessionIdleMs: 50, heldSessionIdleMs: 100 }, async (s) => {
      const held = await open(s, {});
      const stream = await hold(s, {}, held);
      const ended = await Promise.race([stream.ended.then(() => true), sleep(10_000, false, { ref: false })]);
      assert.ok(ended, 'the server ended the GET stream of the expired session');
      assert.ok(s.log.lines.some((l) => l.includes('expired') && l.includes('holding a stream')));
      assert.equal(await ping(s, {}, held), 404);
    });
  });
});
