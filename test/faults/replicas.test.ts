/**
 * Faults of a replicated deployment: two mcp-run replicas with `--state` on a redis-server of the
 * suite's own (never the shared one), behind HAProxy (round-robin, health checks, redispatch; the
 * replica tests' harness). Counted per fault:
 * - a replica SIGKILLed under load: 2026 clients through HAProxy lose only the calls in flight on
 *   it, each of which gets an error (never silence); every call after succeeds on the other one;
 * - Redis SIGKILLed, then started again on its append-only file: 2025 requests meanwhile get a
 *   clear error (503 with a JSON-RPC error), and once Redis is back the same 2025 session (the
 *   official v1 client, through HAProxy) goes on, nothing lost.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type Balancer,
  eventually,
  type OwnRedis,
  type Replica,
  skipReason,
  startHaproxy,
  startOwnRedis,
  startReplica,
} from '../state/replicas-harness.js';
import { modernRequest } from '../transports/http-harness.js';
import { type Outcome, outcome, sleep } from './harness.js';

const MANIFEST = `
server: { name: faults-replicas, version: 1.0.0 }
tools:
  hello:
    kind: content
    description: Says hello.
    content:
      - text: "hello"
  slow:
    kind: shell
    description: Sleeps half a second, then says done.
    command: [sh, -c, "sleep 0.5; echo done"]
`;

const skip = skipReason({ haproxy: true, redisServer: true });
const HARD_MS = 10_000;

let dir: string;
let redis: OwnRedis;
let replicas: Replica[] = [];
let balancer: Balancer;

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'mcp-run-faults-replicas-'));
  writeFileSync(join(dir, 'mcp.yaml'), MANIFEST);
  redis = await startOwnRedis({ persist: true });
  const state = `${redis.url}?prefix=faults`;
  replicas = await Promise.all([0, 1].map(() => startReplica(join(dir, 'mcp.yaml'), state, ['--no-watch'])));
  balancer = await startHaproxy(replicas, { fall: 3 });
});

after(async () => {
  await balancer?.stop();
  for (const r of replicas) await r.stop();
  await redis?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** One 2026 tools/call through HAProxy, as raw JSON-RPC (stateless: any replica serves it). */
async function modernCall(id: number, name: string): Promise<Outcome> {
  return outcome(async () => {
    const { message, headers } = modernRequest(id, 'tools/call', { name, arguments: {} });
    const res = await fetch(balancer.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(message),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
    const body = JSON.parse(text.startsWith('{') ? text : (/^data: (\{.*)$/m.exec(text)?.[1] ?? 'null'));
    if (body?.error) throw new Error(body.error.message);
    return body.result;
  }, HARD_MS);
}

describe('faults of replicas behind HAProxy', { skip }, () => {
  it('a replica SIGKILLed under load: only its calls in flight fail, each with an error; none is silent', async (t) => {
    const seen: { at: number; o: Outcome }[] = [];
    let running = true;
    let id = 0;
    const clients = Array.from({ length: 4 }, async () => {
      while (running) {
        const at = Date.now();
        seen.push({ at, o: await modernCall(++id, 'slow') });
      }
    });
    await sleep(800);
    const killedAt = Date.now();
    await replicas[0]!.kill();
    await sleep(1500);
    running = false;
    await Promise.all(clients);

    const silent = seen.filter((s) => s.o.kind === 'silent');
    assert.deepEqual(silent, [], 'calls with no answer');
    const failed = seen.filter((s) => s.o.kind !== 'ok');
    t.diagnostic(
      `${seen.length} calls, ${failed.length} failed (in flight at the kill): ${failed.map((f) => (f.o.kind === 'error' ? f.o.text : '')).join(' | ')}`,
    );
    // At most the calls in flight at the kill: four clients, so four.
    assert.ok(failed.length <= 4, `${failed.length} calls failed: ${JSON.stringify(failed)}`);
    // A call sent in the moment between the kill and HAProxy's next health check may meet the dead
    // replica's closed connection too (an error, never silence); from 500 ms on, none fails.
    for (const f of failed)
      assert.ok(
        f.at < killedAt + 500,
        `a call started ${f.at - killedAt} ms after the kill failed: ${JSON.stringify(f)}`,
      );
    assert.ok(
      seen.filter((s) => s.at > killedAt && s.o.kind === 'ok').length >= 4,
      'calls went on being served after the kill',
    );
    // The survivor carries on alone.
    replicas = replicas.slice(1).concat(replicas[0]!);
  });

  it('Redis SIGKILLed and restarted: 2025 requests get a clear error meanwhile, and the session goes on', async () => {
    const client = new Client({ name: 'faults-redis', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(balancer.url));
    await client.connect(transport);
    try {
      const before = await outcome(() => client.callTool({ name: 'hello', arguments: {} }) as never, HARD_MS);
      assert.equal(before.kind, 'ok', JSON.stringify(before));
      const session = transport.sessionId;

      await redis.stop();
      // A replica that has not yet seen Redis go may still serve the session from its copy of the
      // record; once it has (ms after the kill), the answer is a clear error. Never silence.
      let during: Outcome | undefined;
      await eventually(
        async () => {
          during = await outcome(() => client.callTool({ name: 'hello', arguments: {} }) as never, HARD_MS);
          assert.notEqual(during.kind, 'silent', JSON.stringify(during));
          return during.kind === 'error';
        },
        'a 2025 call to get an error while Redis is down',
        3_000,
      );
      if (during?.kind !== 'error') assert.fail(JSON.stringify(during));
      assert.match(during.kind === 'error' ? during.text : '', /state|unavailable|503/i);
      // 2026 requests need no shared state: served all along.
      assert.equal((await modernCall(9001, 'hello')).kind, 'ok');

      await redis.start();
      const backAt = Date.now();
      let after: Outcome | undefined;
      await eventually(
        async () => {
          after = await outcome(() => client.callTool({ name: 'hello', arguments: {} }) as never, HARD_MS);
          return after.kind === 'ok';
        },
        `the 2025 session to be served again (last: ${JSON.stringify(after)})`,
        10_000,
      );
      assert.equal(transport.sessionId, session, 'the same session, not a new one');
      assert.ok(Date.now() - backAt < 10_000);
    } finally {
      await client.close();
    }
  });
});
