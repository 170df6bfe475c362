/**
 * `--state` when Redis goes away mid-run (a redis-server of the test's own, killed and restarted;
 * never the shared one): /readyz and the logs say so, 2025 requests that need the shared sessions
 * get a clear 503 with a JSON-RPC error, 2026 requests go on being served, and when Redis returns
 * readiness and the 2025 session come back.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import {
  eventually,
  type OwnRedis,
  type Replica,
  skipReason,
  startOwnRedis,
  startReplica,
} from './replicas-harness.js';

const MANIFEST = `
server: { name: redis-down, version: 1.0.0 }
tools:
  hello:
    kind: content
    description: Says hello.
    input:
      name: { type: string }
    content:
      - text: "Hello {{name}}"
`;

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const skip = skipReason({ redisServer: true });

let dir: string;
let redis: OwnRedis;
let replica: Replica;

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'mcp-run-redis-down-'));
  writeFileSync(join(dir, 'mcp.yaml'), MANIFEST);
  redis = await startOwnRedis({ persist: true });
  replica = await startReplica(join(dir, 'mcp.yaml'), `${redis.url}?prefix=down`, ['--no-watch']);
});

after(async () => {
  await replica?.stop();
  await redis?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function post(
  body: unknown,
  session?: string,
): Promise<{ status: number; json: any; session: string | null }> {
  const res = await fetch(replica.url, {
    method: 'POST',
    headers: {
      ...HEADERS,
      ...(session && { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const json = text.startsWith('{')
    ? JSON.parse(text)
    : JSON.parse(/^data: (\{.*)$/m.exec(text)?.[1] ?? 'null');
  return { status: res.status, json, session: res.headers.get('mcp-session-id') };
}

const initialize = () =>
  post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'down', version: '1' } },
  });
const hello = (session: string, id: number) =>
  post(
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'hello', arguments: { name: 'x' } } },
    session,
  );
const ready = async () => (await fetch(new URL('/readyz', replica.url))).json() as Promise<any>;

async function modernCall(): Promise<string> {
  const client = new ClientV2(
    { name: 'down-v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new HttpV2(new URL(replica.url)));
  try {
    const r = await client.callTool({ name: 'hello', arguments: { name: 'modern' } });
    return (r.content as { text: string }[])[0]?.text ?? '';
  } finally {
    await client.close();
  }
}

test('Redis going away: readyz and logs say so, 2025 gets 503, 2026 goes on, all recovers', {
  skip,
}, async () => {
  const init = await initialize();
  assert.equal(init.status, 200);
  const session = init.session as string;
  assert.ok(session);
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  assert.equal((await hello(session, 1)).json.result.content[0].text, 'Hello x');
  assert.equal((await ready()).status, 'ready');

  await redis.stop();
  await eventually(async () => (await ready()).status === 'not ready', '/readyz not ready');
  const report = await ready();
  assert.match(report.reason, /shared state \(redis:\/\/127\.0\.0\.1:\d+\) is unreachable/);
  await eventually(
    () => /"level":"error".*Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable/.test(replica.stderr()),
    'the outage logged',
  );

  const refused = await hello(session, 2);
  assert.equal(refused.status, 503);
  assert.equal(refused.json.id, 2);
  assert.match(refused.json.error.message, /shared session state is unreachable/);
  const noInit = await initialize();
  assert.equal(noInit.status, 503);
  assert.match(noInit.json.error.message, /shared session state is unreachable/);
  assert.equal(await modernCall(), 'Hello modern', '2026 requests need no shared state');

  await redis.start();
  await eventually(async () => (await ready()).status === 'ready', '/readyz ready again');
  assert.match(replica.stderr(), /Redis at redis:\/\/127\.0\.0\.1:\d+ is reachable/);
  assert.equal((await hello(session, 3)).json.result.content[0].text, 'Hello x', 'the session goes on');
  assert.equal((await initialize()).status, 200);
  assert.equal(await modernCall(), 'Hello modern');
});

test('an initialize whose session record is beyond its bound gets a clear error and no session', {
  skip,
}, async () => {
  const huge = { experimental: { blob: 'x'.repeat(100 * 1024) } };
  const res = await post({
    jsonrpc: '2.0',
    id: 7,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: huge, clientInfo: { name: 'huge', version: '1' } },
  });
  assert.equal(res.session, null, 'no Mcp-Session-Id');
  assert.equal(res.json.id, 7);
  assert.match(
    res.json.error.message,
    /could not be shared with the other replicas: .*beyond the 65536-byte bound/,
  );
});
