/**
 * The audit trail's OpenTelemetry sink end to end: the built CLI serving over HTTP with
 * `server.audit.sink: otel`, exporting to a real OTLP/HTTP receiver (node:http on 127.0.0.1, the
 * exporter's JSON encoding). The receiver ends up with exactly one log record per audited request,
 * its body the sealed line (written to a file in order, `mcp-run audit --verify` accepts them) and
 * its attributes, severity and trace id as documented. A receiver that answers 503 for a while
 * loses nothing; one that stays down leaves the records to the shutdown spill on stderr, counted.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { logsUrl } from '../../src/governance/audit/otel-sink.js';
import { CLI } from '../helpers/demo.js';
import { postModern, type ServedCli, send, spawnHttpCli } from '../transports/http-harness.js';

type Json = any;

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/** An OTLP/HTTP logs receiver: keeps each accepted request's log records, in order. */
interface Receiver {
  readonly url: string;
  /** Every log record accepted so far, in the order received. */
  readonly records: Json[];
  /** Requests answered, accepted or not. */
  requests: number;
  /** Requests still to be refused with 503 (Infinity: always). */
  failNext: number;
  close(): Promise<void>;
}

async function startReceiver(failNext = 0): Promise<Receiver> {
  const receiver = { records: [] as Json[], requests: 0, failNext } as Receiver & { url: string };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      receiver.requests++;
      if (req.url !== '/v1/logs' || req.headers['content-type'] !== 'application/json') {
        res.writeHead(400).end();
        return;
      }
      if (receiver.failNext > 0) {
        receiver.failNext--;
        res.writeHead(503).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const resource of body.resourceLogs ?? [])
        for (const scope of resource.scopeLogs ?? []) receiver.records.push(...(scope.logRecords ?? []));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

function project(endpoint: string, audit: readonly string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-audit-otel-'));
  writeFileSync(join(dir, 'seed.sql'), 'CREATE TABLE t (x INTEGER);\n');
  writeFileSync(
    join(dir, 'mcp.yaml'),
    [
      'server:',
      '  name: audited',
      '  audit:',
      '    sink: otel',
      `    endpoint: ${endpoint}`,
      '    writer: otel-test',
      ...audit.map((line) => `    ${line}`),
      'sources:',
      '  db: { kind: sqlite, path: ./t.db, seed: ./seed.sql }',
      'tools:',
      '  echo:',
      '    kind: sql',
      '    source: db',
      '    description: Echoes its text.',
      '    sql: SELECT :text AS text',
      '    input:',
      '      text: { type: string }',
      '  rare:',
      '    kind: sql',
      '    source: db',
      '    description: Once a minute.',
      '    sql: SELECT 1 AS one',
      '    limits: { calls: 1/minute }',
      'resources:',
      '  style: { kind: text, uri: "notes://style", text: Plain English. }',
      '',
    ].join('\n'),
  );
  return dir;
}

/** The attributes of an OTLP JSON log record, as plain values. */
function attributes(record: Json): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const { key, value } of record.attributes ?? [])
    out[key] = value.stringValue ?? Number(value.intValue ?? value.doubleValue);
  return out;
}

function verify(lines: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const file = join(mkdtempSync(join(tmpdir(), 'mcp-run-audit-otel-')), 'audit.jsonl');
  writeFileSync(file, lines.map((line) => `${line}\n`).join(''));
  const run = spawnSync(process.execPath, [CLI, 'audit', file, '--verify'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

async function serve(receiver: Receiver, extra: string[] = [], audit: string[] = []): Promise<ServedCli> {
  return spawnHttpCli([join(project(receiver.url, audit), 'mcp.yaml'), '--no-watch', ...extra]);
}

describe('audit trail: sink otel, the endpoint', () => {
  it('the manifest, then the logs endpoint as it is, then the general one + /v1/logs, then localhost', () => {
    const env = {
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://127.0.0.1:1/custom',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:2/',
    };
    assert.equal(logsUrl('http://127.0.0.1:3', env), 'http://127.0.0.1:3/v1/logs');
    assert.equal(logsUrl('http://127.0.0.1:3/v1/logs/', env), 'http://127.0.0.1:3/v1/logs');
    assert.equal(logsUrl(undefined, env), 'http://127.0.0.1:1/custom');
    assert.equal(
      logsUrl(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: env.OTEL_EXPORTER_OTLP_ENDPOINT }),
      'http://127.0.0.1:2/v1/logs',
    );
    assert.equal(logsUrl(undefined, {}), 'http://localhost:4318/v1/logs');
  });
});

describe('audit trail: sink otel, to a real OTLP/HTTP receiver', () => {
  it('one log record per audited request, bodies that verify, attributes and severity as documented', async () => {
    const receiver = await startReceiver();
    const cli = await serve(receiver);
    try {
      const calls = [
        await postModern(
          cli.url,
          1,
          'tools/call',
          { name: 'echo', arguments: { text: 'one' } },
          {
            traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01`,
          },
        ),
        await postModern(cli.url, 2, 'tools/call', { name: 'echo', arguments: { text: 'two' } }),
        await postModern(cli.url, 3, 'resources/read', { uri: 'notes://style' }),
        await postModern(cli.url, 4, 'tools/call', { name: 'rare', arguments: {} }),
        await postModern(cli.url, 5, 'tools/call', { name: 'rare', arguments: {} }),
        await postModern(cli.url, 6, 'tools/call', { name: 'nope', arguments: {} }),
        // Not audited by default.
        await postModern(cli.url, 7, 'tools/list'),
      ];
      for (const call of calls) assert.equal(call.status, 200, call.body);
      assert.equal(await cli.stop(), 0, cli.stderr());
    } finally {
      await cli.stop();
      await receiver.close();
    }

    const bodies = receiver.records.map((r) => r.body.stringValue as string);
    const lines = bodies.map((b) => JSON.parse(b));
    assert.deepEqual(
      lines.map((l) => l.type),
      ['start', 'request', 'request', 'request', 'request', 'request', 'request', 'close'],
    );
    const requests = receiver.records.filter((r) => attributes(r)['mcp_run.audit.type'] === 'request');
    assert.deepEqual(
      requests.map((r) => attributes(r)['mcp_run.audit.entry']),
      ['echo', 'echo', 'notes://style', 'rare', 'rare', 'nope'],
    );
    const checked = verify(bodies);
    assert.equal(checked.status, 0, checked.stderr);
    // Requests are counted; the start and close records are links of the chain all the same.
    assert.match(
      checked.stderr + checked.stdout,
      /6 record\(s\) from 1 writer\(s\) in 1 file\(s\); chain intact/,
    );

    const [traced, plain, read, allowed, limited, unknown] = requests;
    const first = attributes(traced);
    assert.equal(first['mcp.method.name'], 'tools/call');
    assert.equal(first['mcp_run.audit.writer'], 'otel-test');
    assert.equal(first['mcp_run.audit.decision'], 'allow');
    assert.equal(first['mcp_run.audit.outcome'], 'ok');
    assert.equal(typeof first['mcp_run.audit.duration_ms'], 'number');
    assert.ok(Number(first['mcp_run.audit.bytes']) > 0);
    assert.equal(first['mcp_run.audit.seq'], 1);
    assert.equal(typeof first['mcp_run.audit.request_id'], 'string');
    assert.equal(traced.eventName, 'mcp_run.audit');
    assert.equal(traced.traceId, TRACE_ID);
    assert.ok(!plain.traceId, 'a request without a trace carries none');
    assert.equal(attributes(read)['mcp.method.name'], 'resources/read');
    // The body is the sealed line itself, the attributes are taken from it.
    assert.equal(attributes(traced)['mcp_run.audit.seq'], JSON.parse(traced.body.stringValue).seq);
    assert.equal(traced.timeUnixNano, String(Date.parse(lines[1].time) * 1e6));

    assert.deepEqual(
      [traced, read, allowed, limited, unknown].map((r) => [r.severityText, r.severityNumber]),
      [
        ['INFO', 9],
        ['INFO', 9],
        ['INFO', 9],
        ['WARN', 13],
        ['ERROR', 17],
      ],
    );
    assert.equal(attributes(limited)['mcp_run.audit.decision'], 'limit');
    assert.equal(attributes(limited)['mcp_run.audit.rule'], JSON.parse(limited.body.stringValue).rule);
    assert.equal(attributes(unknown)['mcp_run.audit.outcome'], 'error');
  });

  for (const workers of [[], ['--workers', '2']])
    it(`a receiver answering 503 for a while loses nothing; the failures are counted and logged${workers.length ? ' (--workers 2: by the primary, which writes the trail)' : ''}`, async () => {
      // The exporter retries a 503 itself; past its attempts the writer tries the chunk again.
      const receiver = await startReceiver(6);
      const cli = await serve(receiver, ['--metrics', ...workers]);
      try {
        for (let id = 1; id <= 3; id++) {
          const call = await postModern(cli.url, id, 'tools/call', {
            name: 'echo',
            arguments: { text: `t${id}` },
          });
          assert.equal(call.status, 200, call.body);
        }
        // start and three requests; the close record comes at shutdown.
        for (let waited = 0; receiver.records.length < 4; waited++) {
          assert.ok(waited < 600, `the records never reached the receiver; stderr:\n${cli.stderr()}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        const metrics = await send(new URL('/metrics', cli.url).href, { method: 'GET' });
        const failures = /^mcp_run_audit_sink_errors_total\{sink="otel"\} (\d+)$/m.exec(metrics.body);
        assert.ok(failures !== null && Number(failures[1]) >= 1, metrics.body);
        assert.equal(await cli.stop(), 0, cli.stderr());
      } finally {
        await cli.stop();
        await receiver.close();
      }
      assert.match(cli.stderr(), /audit: cannot write to http:\/\/127\.0\.0\.1:\d+\/v1\/logs/);
      assert.match(cli.stderr(), /audit: writing to http:\/\/127\.0\.0\.1:\d+\/v1\/logs works again/);
      const bodies = receiver.records.map((r) => r.body.stringValue as string);
      assert.deepEqual(
        bodies.map((b) => JSON.parse(b).type),
        ['start', 'request', 'request', 'request', 'close'],
      );
      const checked = verify(bodies);
      assert.equal(checked.status, 0, checked.stderr);
    });

  it('a receiver that stays down: the server still starts, and shutdown spills the records to stderr, counted', async () => {
    const receiver = await startReceiver(Number.POSITIVE_INFINITY);
    const cli = await serve(receiver);
    try {
      for (let id = 1; id <= 2; id++) {
        const call = await postModern(cli.url, id, 'tools/call', {
          name: 'echo',
          arguments: { text: `t${id}` },
        });
        assert.equal(call.status, 200, call.body);
      }
      assert.equal(await cli.stop(), 0, cli.stderr());
    } finally {
      await cli.stop();
      await receiver.close();
    }
    assert.equal(receiver.records.length, 0);
    assert.ok(receiver.requests > 0);
    const stderr = cli.stderr();
    const counted =
      /audit: (\d+) record\(s\) could not be written to http:\/\/127\.0\.0\.1:\d+\/v1\/logs within \d+ ms of shutdown; they follow on stderr, unsealed/.exec(
        stderr,
      );
    assert.ok(counted !== null, stderr);
    // start, two requests, close.
    assert.equal(counted[1], '4');
    const spilled = stderr
      .slice(counted.index)
      .split('\n')
      .filter((line) => line.startsWith('{"v":1,'))
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      spilled.map((r) => [r.type, r.hash]),
      [
        ['start', undefined],
        ['request', undefined],
        ['request', undefined],
        ['close', undefined],
      ],
    );
  });

  it('the queue waiting for the collector is held to `buffer`: onBackpressure refuse refuses, counted', async () => {
    const receiver = await startReceiver(Number.POSITIVE_INFINITY);
    const cli = await serve(receiver, [], ['buffer: 1KB', 'onBackpressure: refuse']);
    const answers: Json[] = [];
    try {
      // Each record is some 400 bytes: the queue passes its 1 KiB within a few calls.
      for (let id = 1; id <= 8; id++) {
        const call = await postModern(cli.url, id, 'tools/call', {
          name: 'echo',
          arguments: { text: `t${id}` },
        });
        answers.push(call.json());
      }
      assert.equal(await cli.stop(), 0, cli.stderr());
    } finally {
      await cli.stop();
      await receiver.close();
    }
    const refused = answers.filter((a) => a.error?.code === -32041);
    assert.ok(refused.length > 0, JSON.stringify(answers));
    assert.ok(refused.every((a) => a.error.data.rule === 'audit'));
    assert.ok(answers.some((a) => a.result !== undefined));
    const stderr = cli.stderr();
    assert.match(stderr, /audit: http:\/\/127\.0\.0\.1:\d+\/v1\/logs is not keeping up/);
    // Every call is a record or counted: the refused ones are records too (decision limit), spilled.
    const spilled = stderr
      .split('\n')
      .filter((line) => line.startsWith('{"v":1,'))
      .map((line) => JSON.parse(line));
    const requests = spilled.filter((r) => r.type === 'request');
    const episode = spilled.find((r) => r.type === 'backpressure');
    assert.equal(requests.length + (episode?.unrecorded ?? 0), 8);
    assert.equal(
      requests.filter((r) => r.decision === 'limit').length + (episode?.unrecorded ?? 0),
      refused.length,
    );
  });
});
