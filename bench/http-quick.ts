/**
 * A first throughput figure for the HTTP transport: `tools/call` requests per second on a cheap tool
 * (a `sql` tool running `SELECT 1` on `:memory:`), autocannon, 32 connections, 10 s, one run each,
 * against:
 *   (a) mcp-run --http, 2026-07-28 (stateless: envelope + routing headers on every POST);
 *   (b) mcp-run --http, 2025-11-25 (one session minted by initialize, shared by all connections);
 *   (c) a bare node:http JSON-RPC echo server (parse the body, answer a canned result): the ceiling.
 * Each server runs in its own process; autocannon runs in this one, so on a 2-core machine the load
 * generator competes with the server. Not a test: numbers vary by machine and load. Run: `npm run build && npx tsx bench/http-quick.ts` (add `--duration 5` to
 * shorten).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  method: string;
  headers: Record<string, string>;
  body: string;
  /** Replaces `[<id>]` in the body with a unique id per request. */
  idReplacement: boolean;
}) => Promise<CannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const REPO = resolve(import.meta.dirname, '..');
const CLI = join(REPO, 'dist/cli/main.js');
const CONNECTIONS = 32;
const durationArg = process.argv.indexOf('--duration');
const DURATION = durationArg > 0 ? Number(process.argv[durationArg + 1]) : 10;
const WARMUP = 2;

const MANIFEST = `server: { name: bench, version: 1.0.0 }
sources:
  mem: { kind: sqlite, path: ":memory:" }
tools:
  one:
    kind: sql
    source: mem
    description: Returns 1.
    sql: SELECT 1 AS one
`;

const BARE_SERVER = `
import { createServer } from 'node:http';
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const body = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: '1' }] } });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => process.stderr.write('mcp-run: listening on http://127.0.0.1:' + server.address().port + '/mcp\\n'));
`;

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const call = (meta?: object) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: '[<id>]', // unique per request (autocannon idReplacement): one session sees many in flight
    method: 'tools/call',
    params: { name: 'one', arguments: {}, ...(meta ? { _meta: meta } : {}) },
  });
const BASE_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function start(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((ok, fail) => {
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) ok({ url: m[1]!, child });
    });
    child.once('exit', (code) => fail(new Error(`server exited (${code}): ${stderr}`)));
  });
}

async function check(url: string, headers: Record<string, string>, body: string): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers, body });
  const text = await res.text();
  if (res.status !== 200 || !text.includes('"text":"'))
    throw new Error(`bad sample answer ${res.status}: ${text}`);
}

async function measure(name: string, url: string, headers: Record<string, string>, body: string) {
  await check(url, headers, body);
  const options = { url, connections: CONNECTIONS, method: 'POST', headers, body, idReplacement: true };
  await autocannon({ ...options, duration: WARMUP }); // JIT and connection warm-up, not counted
  const r = await autocannon({ ...options, duration: DURATION });
  return {
    target: name,
    'req/s (avg)': Math.round(r.requests.average),
    'p50 ms': r.latency.p50,
    'p99 ms': r.latency.p99,
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-bench-'));
  writeFileSync(join(dir, 'mcp.yaml'), MANIFEST);
  const rows = [];
  const mcp = await start([CLI, join(dir, 'mcp.yaml'), '--http', '--port', '0', '--no-watch']);
  const bare = await start(['--input-type=module', '-e', BARE_SERVER]);
  try {
    const modernHeaders = {
      ...BASE_HEADERS,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'one',
    };
    rows.push(await measure('mcp-run, 2026-07-28', mcp.url, modernHeaders, call(ENVELOPE)));

    const init = await fetch(mcp.url, {
      method: 'POST',
      headers: BASE_HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'bench', version: '0' },
        },
      }),
    });
    const session = init.headers.get('mcp-session-id') ?? '';
    await init.text();
    const legacyHeaders = {
      ...BASE_HEADERS,
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
    };
    await fetch(mcp.url, {
      method: 'POST',
      headers: legacyHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    rows.push(await measure('mcp-run, 2025-11-25 session', mcp.url, legacyHeaders, call()));

    rows.push(await measure('bare node:http echo', bare.url, BASE_HEADERS, call()));
  } finally {
    mcp.child.kill('SIGTERM');
    bare.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  console.log(
    `tools/call, ${CONNECTIONS} connections, ${DURATION} s each (after ${WARMUP} s warm-up), Node ${process.version}`,
  );
  console.log(
    `${cpus().length} CPUs, load average at the end ${load} (other work on the machine skews the figures)`,
  );
  console.table(rows);
}

await main();
