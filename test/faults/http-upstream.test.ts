/**
 * Faults between mcp-run and an HTTP API: a real node:http upstream on 127.0.0.1 behind the fault
 * relay, mcp-run as a real process on stdio with the official v1 client. For each fault (latency
 * past the timeout, a blackhole, a reset in the middle of the body, a slow drip), every call ends
 * within its timeoutMs (plus a margin) with an error result that says what happened; none is
 * silent; the server's memory stays bounded under a burst of such calls; and once the fault is
 * lifted the next call succeeds.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempFiles } from '../helpers/demo.js';
import { type Outcome, outcome, recovery, rssOf, stdioServer } from './harness.js';
import { type Fault, type FaultRelay, startRelay } from './relay.js';

const TIMEOUT_MS = 600;
/** A call still unanswered this long after its timeout is counted as lost. */
const MARGIN_MS = 2000;
/** The body: big enough that a reset after 4 KiB is mid-body, and a drip takes far past the timeout. */
const BODY = JSON.stringify({ rows: Array.from({ length: 800 }, (_, i) => ({ i, pad: 'x'.repeat(40) })) });

let upstream: Server;
let relay: FaultRelay;
let files: { dir: string; cleanup: () => void };
let server: Awaited<ReturnType<typeof stdioServer>>;

before(async () => {
  upstream = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) });
    res.end(BODY);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  relay = await startRelay({ port: (upstream.address() as AddressInfo).port });
  files = tempFiles({
    'mcp.yaml': [
      'sources:',
      `  api: { kind: http, baseUrl: "http://127.0.0.1:${relay.port}", timeoutMs: ${TIMEOUT_MS}, retries: 1 }`,
      'tools:',
      '  rows:',
      '    kind: http',
      '    source: api',
      '    description: The rows.',
      '    path: /rows',
      '',
    ].join('\n'),
  });
  server = await stdioServer(join(files.dir, 'mcp.yaml'), ['--no-watch']);
});

after(async () => {
  await server?.close();
  await relay?.close();
  upstream?.closeAllConnections();
  await new Promise((resolve) => upstream?.close(resolve));
  files?.cleanup();
});

const call = (): Promise<Outcome> =>
  outcome(() => server.client.callTool({ name: 'rows', arguments: {} }) as never, TIMEOUT_MS + MARGIN_MS);

const FAULTS: [name: string, fault: Fault, says: RegExp][] = [
  ['latency past the timeout', { kind: 'latency', ms: TIMEOUT_MS + 500 }, /no complete answer within 600 ms/],
  ['a blackhole', { kind: 'blackhole' }, /no complete answer within 600 ms/],
  [
    'a reset in the middle of the body',
    { kind: 'reset', afterBytes: 4096 },
    /closed before the answer was complete/,
  ],
  ['a slow drip', { kind: 'drip', bytes: 64, everyMs: 100 }, /no complete answer within 600 ms/],
];

describe('faults between mcp-run and an HTTP API', () => {
  it('works through the relay before any fault', async () => {
    const first = await call();
    assert.equal(first.kind, 'ok', JSON.stringify(first));
    assert.match(first.kind === 'ok' ? first.text : '', /"pad"/);
  });

  it('latency under the timeout only slows a call down', async () => {
    relay.fault = { kind: 'latency', ms: 100 };
    const slow = await call();
    relay.fault = { kind: 'none' };
    assert.equal(slow.kind, 'ok', JSON.stringify(slow));
  });

  for (const [name, fault, says] of FAULTS) {
    it(`${name}: a clear error within the timeout, none lost, then the next call succeeds`, async () => {
      relay.fault = fault;
      // Four at once: each ends on its own within the bound, none waits behind another.
      const outcomes = await Promise.all([call(), call(), call(), call()]);
      relay.fault = { kind: 'none' };
      relay.cut();
      for (const o of outcomes) {
        assert.equal(o.kind, 'error', `${name}: ${JSON.stringify(o)}`);
        assert.match(o.kind === 'error' ? o.text : '', says, name);
        assert.ok(o.ms < TIMEOUT_MS + MARGIN_MS, `${name}: the call took ${o.ms} ms`);
      }
      const recoveredMs = await recovery(call, 3000);
      assert.ok(recoveredMs < 3000);
    });
  }

  it('memory stays bounded under a burst of blackholed and dripping calls', async () => {
    const before = rssOf(server.pid);
    for (const fault of [{ kind: 'blackhole' }, { kind: 'drip', bytes: 256, everyMs: 20 }] as Fault[]) {
      relay.fault = fault;
      // Rounds of 16: stdio runs at most 16 requests at once, the rest wait their turn.
      for (let round = 0; round < 2; round++) {
        const outcomes = await Promise.all(Array.from({ length: 16 }, call));
        assert.ok(
          outcomes.every((o) => o.kind === 'error'),
          JSON.stringify(outcomes.find((o) => o.kind !== 'error')),
        );
      }
    }
    relay.fault = { kind: 'none' };
    relay.cut();
    const grown = rssOf(server.pid) - before;
    // 64 calls of a 50 KB answer each: anything near 64 MiB would mean something is kept per call.
    assert.ok(grown < 64 * 1024 * 1024, `RSS grew by ${Math.round(grown / 1024 / 1024)} MiB`);
    assert.equal((await call()).kind, 'ok');
  });
});
