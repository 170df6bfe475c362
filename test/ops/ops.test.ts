// Health, readiness, metrics and JSON logs of the built CLI serving over HTTP, against real parts: a
// real PostgreSQL (through a TCP proxy on 127.0.0.1 the test closes to take it down), an in-memory
// SQLite source, an HTTP upstream on 127.0.0.1. /metrics is read with a Prometheus text parser.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
// @ts-expect-error: the parser ships no types; parse() returns the metric families below.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { readExposition } from '../helpers/exposition.js';
import { eventually, openSession, type Served, serveJson } from './harness.js';

interface Family {
  name: string;
  type: string;
  metrics: {
    labels?: Record<string, string>;
    value?: string;
    count?: string;
    buckets?: Record<string, string>;
  }[];
}

const PG = process.env.MCP_RUN_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let upstream: Server;
let upstreamUrl: string;
const traceparents: (string | undefined)[] = [];
let proxy: TcpServer;
const proxied = new Set<Socket>();
let proxyPort: number;
let served: Served;
let base: string;

before(async () => {
  upstream = createHttpServer((req, res) => {
    traceparents.push(req.headers.traceparent as string | undefined);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"pong":true}');
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;

  const target = new URL(PG);
  const pgPort = Number(target.port || 5432);
  const pgHost = target.hostname;
  proxy = createTcpServer((client) => {
    const server = connect(pgPort, pgHost);
    proxied.add(client).add(server);
    client.pipe(server).pipe(client);
    const drop = () => {
      client.destroy();
      server.destroy();
    };
    client.on('error', drop).on('close', drop);
    server.on('error', drop).on('close', drop);
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  proxyPort = (proxy.address() as { port: number }).port;
  target.host = `127.0.0.1:${proxyPort}`;

  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-ops-'));
  const manifest = join(dir, 'mcp.yaml');
  writeFileSync(
    manifest,
    `sources:
  mem: { kind: sqlite, path: ":memory:" }
  warehouse: { kind: postgres, url: "${target.href}" }
  api: { kind: http, baseUrl: "${upstreamUrl}" }
tools:
  square:
    kind: sql
    source: mem
    input:
      n: { type: integer }
    sql: SELECT :n * :n AS sq
  ping_api:
    kind: http
    source: api
    path: /ping
`,
  );
  served = await serveJson(manifest, ['--metrics', '--log-level', 'debug']);
  base = served.base;
});

after(async () => {
  await served?.stop();
  upstream?.close();
  proxy?.close();
  for (const s of proxied) s.destroy();
});

const call = (name: string, args: unknown) => served.call(name, args);

let lastText = '';
async function scrape(): Promise<Map<string, Family>> {
  const res = await fetch(`${base}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  lastText = await res.text();
  const families = parsePrometheusTextFormat(lastText) as Family[];
  return new Map(families.map((f) => [f.name, f]));
}

/**
 * The parser merges a histogram's labelled series into one (it follows an old client_python), so
 * one series is parsed on its own: the family's header lines and that series' samples.
 */
function histogramSeries(text: string, name: string, label: string): Family | undefined {
  const lines = text
    .split('\n')
    .filter(
      (l) =>
        l === `# HELP ${name} ${l.split(' ').slice(3).join(' ')}` ||
        l === `# TYPE ${name} histogram` ||
        (l.startsWith(`${name}_`) && l.includes(label)),
    );
  return (parsePrometheusTextFormat(`${lines.join('\n')}\n`) as Family[])[0];
}

function value(f: Family | undefined, labels: Record<string, string>): number {
  const m = f?.metrics.find((x) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v));
  return m ? Number(m.value ?? m.count) : 0;
}

test('/healthz answers live without auth, with any Host', async () => {
  const res = await fetch(`${base}/healthz`, { headers: { host: 'pod-10-0-0-7:3000' } });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: 'ok' });
});

test('/metrics counts the calls made, per tool and outcome, parsed by a Prometheus parser', async () => {
  for (const n of [2, 3, 4]) {
    const r = await call('square', { n });
    assert.equal(r.result?.isError ?? false, false, JSON.stringify(r));
  }
  const bad = await call('square', { n: 'not a number' });
  assert.equal(bad.result?.isError, true);
  const api = await call('ping_api', {});
  assert.equal(api.result?.isError ?? false, false, JSON.stringify(api));

  const m = await scrape();
  const calls = m.get('mcp_run_tool_calls_total');
  assert.equal(calls?.type, 'COUNTER');
  assert.equal(value(calls, { tool: 'square', outcome: 'ok' }), 3);
  assert.equal(value(calls, { tool: 'square', outcome: 'tool_error' }), 1);
  assert.equal(value(calls, { tool: 'ping_api', outcome: 'ok' }), 1);
  // Labels never carry argument values.
  for (const metric of calls?.metrics ?? [])
    assert.deepEqual(Object.keys(metric.labels ?? {}).sort(), ['outcome', 'tool']);
  assert.equal(m.get('mcp_run_tool_call_duration_seconds')?.type, 'HISTOGRAM');
  const latency = histogramSeries(lastText, 'mcp_run_tool_call_duration_seconds', 'tool="square"');
  assert.equal(latency?.metrics[0]?.buckets?.['+Inf'], '4');
  assert.equal(value(m.get('mcp_run_tool_calls_in_flight'), { tool: 'square' }), 0);
  assert.equal(value(m.get('mcp_run_sessions'), {}), 1);
  assert.ok(value(m.get('mcp_run_http_bytes_out_total'), {}) > 0);
  assert.ok(value(m.get('mcp_run_source_pool_connections'), { source: 'warehouse', state: 'total' }) >= 1);
  assert.ok(m.has('mcp_run_reloads_total'));
  // One process: a valid exposition, with no worker label (that is --workers' alone).
  const families = readExposition(lastText);
  assert.ok(families.has('mcp_run_process_resident_memory_bytes'));
  for (const [name, family] of families)
    assert.ok(
      family.samples.every((s) => s.labels.worker === undefined),
      `${name} has no worker label`,
    );
});

test('/metrics counts the SSE streams open: a 2025 GET stream while it is open, and not once it closed', async () => {
  const session = await openSession(base);
  const streams = async () => value((await scrape()).get('mcp_run_streams'), {});
  assert.equal(await streams(), 0);
  const abort = new AbortController();
  const stream = await fetch(`${base}/mcp`, {
    headers: { accept: 'text/event-stream', ...session },
    signal: abort.signal,
  });
  assert.equal(stream.status, 200);
  assert.equal(await streams(), 1);
  abort.abort();
  await eventually(async () => (await streams()) === 0, 'the closed stream no longer counted');
  await fetch(`${base}/mcp`, { method: 'DELETE', headers: session });
});

test('--log-format json: one JSON object a line, with request ids', async () => {
  // A tool call with the client's X-Request-Id: the answer echoes it and the call's log line has it.
  const res = await served.post(
    { jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'square', arguments: { n: 5 } } },
    { 'x-request-id': 'req-42' },
  );
  await res.text();
  assert.equal(res.headers.get('x-request-id'), 'req-42');
  const parsed = () =>
    served
      .stderr()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, string>);
  await eventually(() => parsed().some((l) => l.requestId === 'req-42'), 'a line of request req-42');
  const line = parsed().find((l) => l.requestId === 'req-42')!;
  assert.deepEqual(
    { level: line.level, msg: line.msg, tool: line.tool },
    { level: 'debug', msg: 'tool square: ok', tool: 'square' },
  );
  assert.ok(!Number.isNaN(Date.parse(line.time!)));
  for (const l of parsed()) assert.ok(l.level && l.time && typeof l.msg === 'string', JSON.stringify(l));
  // Without one, a fresh id.
  const noId = await fetch(`${base}/healthz`);
  assert.match(noId.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
});

test('/readyz names the source that went down', async () => {
  const up = await fetch(`${base}/readyz`);
  const upBody = (await up.json()) as { status: string; sources: Record<string, string> };
  assert.equal(up.status, 200, JSON.stringify(upBody));
  assert.deepEqual(upBody.sources, { api: 'ok', mem: 'ok', warehouse: 'ok' });

  // Take PostgreSQL away: the proxy's port closes and its connections drop.
  await new Promise<void>((resolve) => {
    proxy.close(() => resolve());
    for (const s of proxied) s.destroy();
  });
  const down = await fetch(`${base}/readyz`, { headers: { authorization: 'Bearer nothing' } });
  const body = (await down.json()) as { status: string; reason: string; sources: Record<string, string> };
  assert.equal(down.status, 503, JSON.stringify(body));
  assert.equal(body.status, 'not ready');
  assert.match(body.reason, /warehouse/);
  assert.notEqual(body.sources.warehouse, 'ok');
  assert.equal(body.sources.mem, 'ok');
  assert.equal(body.sources.api, 'ok');
});
