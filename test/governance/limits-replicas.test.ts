/**
 * One limit, three replicas: mcp-run processes with `--state` on the shared Redis (a key prefix of
 * this test's own) behind HAProxy (round-robin, no stickiness). Calls of one caller spread over the
 * replicas; exactly N of M pass a rate of N, and a cap of K calls at once holds across replicas.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  type Balancer,
  eventually,
  type Replica,
  skipReason,
  startHaproxy,
  startReplica,
  stateUrl,
} from '../state/replicas-harness.js';
import { type Json, postModern, type RawResponse } from '../transports/http-harness.js';

const N = 10;
const M = 30;

const manifest = (dir: string) => `
server: { name: limits-replicas, version: 1.0.0 }
tools:
  hello:
    kind: content
    description: Says hello.
    content: [{ text: hello }]
    limits: { calls: ${N}/minute }
  slow:
    kind: shell
    description: Waits until the test writes the file go, then says done.
    command: [node, -e, "const fs = require('fs'); const t = setInterval(() => { if (fs.existsSync('${join(dir, 'go')}')) { clearInterval(t); console.log('done'); } }, 20)"]
    timeoutMs: 60000
    limits: { concurrent: 2 }
`;

/** The JSON-RPC answer of a 2026 POST, whether it came as JSON or as an SSE stream. */
function answer(res: RawResponse): Json {
  return String(res.headers['content-type']).includes('event-stream') ? res.events().at(-1) : res.json();
}

describe('limits across three replicas behind HAProxy on one Redis', {
  skip: skipReason({ haproxy: true }),
}, () => {
  let dir: string;
  let replicas: Replica[] = [];
  let balancer: Balancer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-run-limits-replicas-'));
    const file = join(dir, 'mcp.yaml');
    writeFileSync(file, manifest(dir));
    const state = stateUrl();
    replicas = await Promise.all([0, 1, 2].map(() => startReplica(file, state)));
    balancer = await startHaproxy(replicas);
  });
  after(async () => {
    await balancer?.stop();
    await Promise.all(replicas.map((r) => r.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  test(`a rate of ${N}/minute: exactly ${N} of ${M} calls pass, on every replica`, async () => {
    const outcomes: { replica: string; ok: boolean; rule?: string }[] = [];
    // Six at a time, so that calls race on different replicas at once.
    for (let i = 0; i < M; i += 6) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(6, M - i) }, (_, j) =>
          postModern(balancer.url, i + j, 'tools/call', { name: 'hello', arguments: {} }),
        ),
      );
      for (const res of batch) {
        const body = answer(res);
        outcomes.push({
          replica: String(res.headers['x-mcp-run-replica']),
          ok: body.result?.content?.[0]?.text === 'hello',
          ...(body.error && { rule: `${body.error.code} ${body.error.data?.rule}` }),
        });
      }
    }
    assert.equal(outcomes.filter((o) => o.ok).length, N);
    const refused = outcomes.filter((o) => !o.ok);
    assert.equal(refused.length, M - N);
    for (const o of refused) assert.equal(o.rule, `-32041 tools.hello.limits.calls ${N}/minute`);
    assert.equal(new Set(outcomes.map((o) => o.replica)).size, 3, 'every replica answered some');
  });

  test('a cap of 2 calls at once: of 5 slow calls spread over the replicas, 3 are refused, 2 finish', async () => {
    const calls = Array.from({ length: 5 }, (_, i) =>
      postModern(balancer.url, 100 + i, 'tools/call', { name: 'slow', arguments: {} }).then(answer),
    );
    const settled: Json[] = [];
    for (const call of calls) void call.then((body) => settled.push(body));
    await eventually(() => settled.length >= 3, 'three refusals while two calls hold the slots');
    for (const body of settled) {
      assert.equal(body.error?.code, -32041);
      assert.equal(body.error?.data?.rule, 'tools.slow.limits.concurrent 2');
    }
    writeFileSync(join(dir, 'go'), '');
    const all = await Promise.all(calls);
    assert.equal(all.filter((b) => b.result?.content?.[0]?.text?.trim() === 'done').length, 2);
    assert.equal(all.filter((b) => b.error?.code === -32041).length, 3);
  });
});
