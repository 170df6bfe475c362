// --otel: the built CLI exports spans over OTLP/HTTP (JSON) to a receiver on 127.0.0.1; a tool call
// is a child of the request's traceparent, its backend calls are children of it, and the
// traceparent goes on to the HTTP upstream. Also: --metrics <port>, and the JSON logger's redaction.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
// @ts-expect-error: the parser ships no types.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { StderrLogger, withLogFields } from '../../src/log.js';
import { eventually, type Served, serveJson } from './harness.js';

interface Family {
  name: string;
  metrics: { labels?: Record<string, string>; value?: string }[];
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: { stringValue?: string; intValue?: number } }[];
}

let receiver: Server;
let receiverUrl: string;
const spans: OtlpSpan[] = [];
let upstream: Server;
const upstreamSaw: (string | undefined)[] = [];
let manifest: string;

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

before(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      if (req.url === '/v1/traces' && String(req.headers['content-type']).startsWith('application/json')) {
        const data = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
        for (const r of data.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  receiverUrl = await listen(receiver);
  upstream = createServer((req, res) => {
    upstreamSaw.push(req.headers.traceparent as string | undefined);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"pong":true}');
  });
  const upstreamUrl = await listen(upstream);
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-otel-'));
  manifest = join(dir, 'mcp.yaml');
  writeFileSync(
    manifest,
    `sources:
  mem: { kind: sqlite, path: ":memory:" }
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
});

after(() => {
  receiver?.close();
  upstream?.close();
});

const attr = (span: OtlpSpan | undefined, key: string) => {
  const v = span?.attributes.find((a) => a.key === key)?.value;
  return v?.stringValue ?? v?.intValue;
};

test('--otel: tool spans under the incoming traceparent, backend spans under them, propagated upstream', async () => {
  const served: Served = await serveJson(manifest, ['--otel', receiverUrl]);
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const parentId = '00f067aa0ba902b7';
  try {
    const api = await served.call('ping_api', {}, { traceparent: `00-${traceId}-${parentId}-01` });
    assert.equal(api.result?.isError ?? false, false, JSON.stringify(api));
    const sq = await served.call('square', { n: 7 });
    assert.equal(sq.result?.isError ?? false, false, JSON.stringify(sq));
  } finally {
    // A graceful stop flushes the last spans.
    await served.stop();
  }
  const tool = spans.find((s) => s.name === 'tools/call ping_api');
  assert.ok(tool, `spans: ${spans.map((s) => s.name).join(', ')}`);
  assert.equal(tool.traceId, traceId);
  assert.equal(tool.parentSpanId, parentId);
  assert.equal(attr(tool, 'mcp_run.outcome'), 'ok');
  assert.equal(spans.filter((s) => s.name === 'tools/call ping_api').length, 1, 'one span per request');
  // Every request has its span, named by its method.
  assert.ok(spans.some((s) => s.name === 'initialize'));
  assert.ok(spans.some((s) => s.name === 'notifications/initialized'));
  const get = spans.find((s) => s.name === 'GET api');
  assert.ok(get);
  assert.equal(get.traceId, traceId);
  assert.equal(get.parentSpanId, tool.spanId);
  assert.equal(upstreamSaw[0], `00-${traceId}-${get.spanId}-01`);

  const sqTool = spans.find((s) => s.name === 'tools/call square');
  const select = spans.find((s) => s.name === 'SELECT mem');
  assert.ok(sqTool && select);
  assert.notEqual(sqTool.traceId, traceId, 'a request without traceparent starts its own trace');
  assert.equal(select.parentSpanId, sqTool.spanId);
  assert.equal(attr(select, 'db.query.text'), 'SELECT ? * ? AS sq');
  // No value of the call (7) nor its result (49) in any attribute (ids and times are random hex).
  const values = JSON.stringify(select.attributes.map((a) => a.value));
  assert.ok(!/7|49/.test(values), values);
});

test('--metrics <port>: metrics on a port of their own, not on the MCP server', async () => {
  const probe = createServer();
  const free = Number(new URL(await listen(probe)).port);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const served = await serveJson(manifest, ['--metrics', String(free)]);
  try {
    await served.call('square', { n: 2 });
    const own = await fetch(`http://127.0.0.1:${free}/metrics`);
    assert.equal(own.status, 200);
    const families = parsePrometheusTextFormat(await own.text()) as Family[];
    const calls = families.find((f) => f.name === 'mcp_run_tool_calls_total');
    assert.equal(
      calls?.metrics.find((m) => m.labels?.tool === 'square' && m.labels.outcome === 'ok')?.value,
      '1',
    );
    assert.equal((await fetch(`${served.base}/metrics`)).status, 404);
    assert.equal((await fetch(`http://127.0.0.1:${free}/readyz`)).status, 200);
  } finally {
    await served.stop();
  }
});

test('--metrics counts reloads, good and failed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-reload-'));
  const file = join(dir, 'mcp.yaml');
  const manifestWith = (tool: string) =>
    `sources:\n  mem: { kind: sqlite, path: ":memory:" }\ntools:\n  ${tool}: { kind: sql, source: mem, sql: "SELECT 1 AS one" }\n`;
  writeFileSync(file, manifestWith('first'));
  const served = await serveJson(file, ['--metrics', '--log-level', 'debug'], { watch: true });
  const reloads = async () => {
    const text = await (await fetch(`${served.base}/metrics`)).text();
    const families = parsePrometheusTextFormat(text) as Family[];
    const family = families.find((f) => f.name === 'mcp_run_reloads_total');
    const of = (outcome: string) =>
      Number(family?.metrics.find((m) => m.labels?.outcome === outcome)?.value ?? 0);
    return { ok: of('ok'), failed: of('failed') };
  };
  try {
    // An edit before the watcher is ready would go unseen.
    await eventually(() => served.stderr().includes('"msg":"watching '), 'the watcher ready');
    assert.deepEqual(await reloads(), { ok: 0, failed: 0 });
    writeFileSync(file, manifestWith('second'));
    await eventually(async () => (await reloads()).ok === 1, 'a good reload counted');
    writeFileSync(file, 'tools: [not a map\n');
    await eventually(async () => (await reloads()).failed === 1, 'a failed reload counted');
    // One write may reach the watcher as two events, a second (unchanged, good) reload: ok >= 1.
    const counted = await reloads();
    assert.equal(counted.failed, 1);
    assert.ok(counted.ok >= 1);
  } finally {
    await served.stop();
  }
});

test('JSON log lines redact secrets, in the message and the fields, before encoding', () => {
  const lines: string[] = [];
  const log = new StderrLogger('info', (line) => lines.push(line), 'json');
  log.addSecrets(['s3"cr\\et']);
  withLogFields({ requestId: 'id-s3"cr\\et' }, () => log.warn('token s3"cr\\et refused'));
  assert.equal(lines.length, 1);
  const line = JSON.parse(lines[0]!) as Record<string, string>;
  assert.equal(line.msg, 'token *** refused');
  assert.equal(line.requestId, 'id-***');
  assert.equal(line.level, 'warn');
  assert.ok(!lines[0]!.includes('cr'));
});
