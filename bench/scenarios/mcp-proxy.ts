/**
 * Scenario `mcp-proxy`: the latency an MCP server behind mcp-run (`kind: mcp`) adds to a call, over
 * calling that server directly (issue 44: no more than what the http tool adds in front of a REST
 * API). The official v1 client calls server-everything's `echo`, one call at a time:
 *   1. directly, over stdio;
 *   2. through mcp-run over stdio (an `mcp` source exposing `echo`);
 *   3. through `mcp-run --http` (the same manifest);
 *   4. through supergateway (`--stdio … --outputTransport streamableHttp --stateful`), the peer proxy;
 * and, in the same run, the http tool's own overhead: 5. `fetch` → a node:http echo directly, and
 * 6. the client → `mcp-run --http` → an `http` tool → the same echo. Added latency = a row minus its
 * direct row, per percentile. Bounded: a fixed number of calls per row (after a warm-up), rounds
 * interleaved, each row's round also cut off after a time limit.
 */

import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { writeManifest } from '../lib/fixtures.js';
import { goal, reported } from '../lib/goals.js';
import { benchServer, mcpRun, REPO, ServerProcess } from '../lib/proc.js';
import { fmt, type Latency, latency } from '../lib/stats.js';
import type { BenchOptions, Scenario } from '../lib/types.js';

const EVERYTHING = join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const SUPERGATEWAY = join(REPO, 'node_modules/supergateway/dist/index.js');
const MESSAGE = 'bench-echo';

/** One row: a call that resolves to whether its answer was right. */
interface Contender {
  readonly label: string;
  call(): Promise<boolean>;
}

function manifest(work: string, echoUrl: string): string {
  return writeManifest(
    work,
    'mcp-proxy.yaml',
    `server: { name: bench, version: 1.0.0 }
sources:
  everything:
    kind: mcp
    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(EVERYTHING)}, stdio]
    expose: { tools: { include: [echo] } }
  api: { kind: http, baseUrl: "${echoUrl}" }
tools:
  http_echo:
    kind: http
    source: api
    description: Says the message back.
    method: GET
    path: /echo
    input: { message: { type: string } }
`,
  );
}

const client = () => new Client({ name: 'bench-mcp-proxy', version: '1.0.0' });

/** The v1 client on a stdio server; its stderr kept (the tail) for the error a failed start shows. */
async function stdioClient(args: string[]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe', cwd: REPO });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4096);
  });
  const c = client();
  await c.connect(transport).catch(async (err: Error) => {
    await transport.close();
    throw new Error(`${err.message}; stderr: ${stderr}`);
  });
  return { client: c, stderr: () => stderr };
}

async function httpClient(url: string): Promise<Client> {
  const c = client();
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  return c;
}

async function echo(c: Client, name: string): Promise<boolean> {
  const result = await c.callTool({ name, arguments: { message: MESSAGE } });
  return result.isError !== true && JSON.stringify(result.content).includes(MESSAGE);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * supergateway in front of server-everything, stateful (one child per session: stateless mode
 * starts a child per request). Ready when its health endpoint answers.
 */
async function startSupergateway(): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      SUPERGATEWAY,
      '--stdio',
      `${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)} stdio`,
      '--outputTransport',
      'streamableHttp',
      '--stateful',
      '--port',
      String(port),
      '--healthEndpoint',
      '/healthz',
      '--logLevel',
      'none',
    ],
    { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const proc = ServerProcess.adopt('supergateway', child, `http://127.0.0.1:${port}/mcp`);
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`supergateway exited (${child.exitCode}): ${proc.stderr}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`)
      .then(async (res) => {
        await res.body?.cancel();
        return res.ok;
      })
      .catch(() => false);
    if (ok) return proc;
    await sleep(50);
  }
  await proc.stop();
  throw new Error(`supergateway did not answer on port ${port} within 60 s: ${proc.stderr}`);
}

/** `count` sequential calls, or fewer when `seconds` run out. */
async function run(c: Contender, count: number, seconds: number, samples: number[]): Promise<number> {
  let failed = 0;
  const end = performance.now() + seconds * 1000;
  for (let i = 0; i < count && performance.now() < end; i++) {
    const t0 = performance.now();
    const ok = await c.call().catch(() => false);
    samples.push(performance.now() - t0);
    if (!ok) failed++;
  }
  return failed;
}

export const mcpProxyScenario: Scenario = {
  name: 'mcp-proxy',
  title: 'Other MCP servers through mcp-run: added latency',

  async run(options: BenchOptions, work: string) {
    const calls = options.smoke ? 10 : 300;
    const warmup = options.smoke ? 3 : 50;
    const perRound = Math.ceil(calls / options.rounds);
    const limit = options.smoke ? 5 : 30;

    const closers: (() => Promise<unknown>)[] = [];
    try {
      const echoServer = await ServerProcess.http('echo', benchServer('echo-http.mjs', []));
      closers.push(() => echoServer.stop());
      const file = manifest(work, echoServer.url);
      // Started together (the measuring starts once all are up), each closed when the run ends.
      const started = async <T>(value: Promise<T>, close: (v: T) => Promise<unknown>): Promise<T> => {
        const v = await value;
        closers.push(() => close(v));
        return v;
      };
      const starts = [
        started(stdioClient([EVERYTHING, 'stdio']), (c) => c.client.close()),
        started(stdioClient(mcpRun(file, ['--no-watch'], options.profileDir)), (c) => c.client.close()),
        started(
          ServerProcess.http(
            'mcp-run',
            mcpRun(file, ['--http', '--port', '0', '--no-watch'], options.profileDir),
          ),
          (p) => p.stop(),
        ).then((p) => started(httpClient(p.url), (c) => c.close())),
        started(startSupergateway(), (p) => p.stop()).then((p) =>
          started(httpClient(p.url), (c) => c.close()),
        ),
      ] as const;
      // Every start settled (so each one up is closed) before the first failure is thrown.
      await Promise.allSettled(starts);
      const [direct, viaStdio, viaHttp, viaGateway] = await Promise.all(starts);
      const restEcho = `${echoServer.url}/echo?message=${MESSAGE}`;

      const rows: Contender[] = [
        { label: '1. direct: client → server-everything (stdio)', call: () => echo(direct.client, 'echo') },
        {
          label: '2. client → mcp-run (stdio) → server-everything',
          call: () => echo(viaStdio.client, 'echo'),
        },
        { label: '3. client → mcp-run --http → server-everything', call: () => echo(viaHttp, 'echo') },
        {
          label: '4. client → supergateway (HTTP) → server-everything',
          call: () => echo(viaGateway, 'echo'),
        },
        {
          label: '5. direct: fetch → node:http echo',
          call: async () => {
            const res = await fetch(restEcho);
            return res.ok && (await res.text()).includes(MESSAGE);
          },
        },
        { label: '6. client → mcp-run --http → http tool → echo', call: () => echo(viaHttp, 'http_echo') },
      ];
      for (const row of rows) {
        if (!(await row.call())) throw new Error(`${row.label}: the first answer was wrong`);
        await run(row, warmup, limit, []);
      }
      const samples = rows.map((): number[] => []);
      const failed = rows.map(() => 0);
      for (let round = 0; round < options.rounds; round++) {
        for (const [i, row] of rows.entries()) {
          failed[i]! += await run(row, perRound, limit, samples[i]!);
        }
        console.error(`  mcp-proxy: round ${round + 1}/${options.rounds} done`);
      }
      const m: Latency[] = samples.map((s) => latency(s));
      const added = (row: number, base: number) => ({
        p50: m[row]!.p50 - m[base]!.p50,
        p99: m[row]!.p99 - m[base]!.p99,
      });
      const stdio = added(1, 0);
      const http = added(2, 0);
      const gatewayAdded = added(3, 0);
      const httpTool = added(5, 4);
      const ms = (v: number) => `${fmt(v)} ms`;
      return {
        name: this.name,
        title: this.title,
        setup: [
          'Upstream: `@modelcontextprotocol/server-everything` over stdio, its `echo` tool (`{ message }` → `Echo: <message>`). mcp-run: an `mcp` source running it (`expose: { tools: { include: [echo] } }`), over stdio and, in another process, `--http`. supergateway (the npm proxy, stdio → Streamable HTTP, `--stateful`: one upstream per session; stateless mode starts one per request).',
          'The http tool for comparison, in the same run and the same `--http` process: an `http` tool `GET /echo` with `message` as a query parameter, against a node:http server answering `{"echo": <message>}`; its direct row is `fetch` to that server.',
          `Client: the official v1 SDK client (2025 era: a session over HTTP), one call at a time, each answer checked. ${warmup} warm-up calls a row, then ${options.rounds} interleaved round${options.rounds > 1 ? 's' : ''} of ${perRound} calls a row (at most ${limit} s each); percentiles over every call of a row. Added latency: a row's percentile minus its direct row's.`,
        ],
        tables: [
          {
            caption: `Sequential echo calls (${calls} a row)`,
            columns: ['path', 'calls', 'p50 ms', 'p99 ms', 'failed'],
            rows: rows.map((row, i) => [row.label, m[i]!.count, fmt(m[i]!.p50), fmt(m[i]!.p99), failed[i]!]),
          },
          {
            caption: 'What each proxy adds over calling its upstream directly',
            columns: ['difference', 'p50 ms', 'p99 ms'],
            rows: [
              ['2 − 1: mcp-run over stdio', fmt(stdio.p50), fmt(stdio.p99)],
              ['3 − 1: mcp-run over HTTP', fmt(http.p50), fmt(http.p99)],
              ['4 − 1: supergateway over HTTP', fmt(gatewayAdded.p50), fmt(gatewayAdded.p99)],
              ['6 − 5: the http tool (mcp-run over HTTP)', fmt(httpTool.p50), fmt(httpTool.p99)],
            ],
          },
        ],
        goals: [
          goal(
            "kind: mcp added latency vs the http tool's, p50",
            `≤ the http tool's (${ms(httpTool.p50)})`,
            [
              ['stdio', stdio.p50],
              ['HTTP', http.p50],
            ],
            (v) => v <= httpTool.p50,
            ms,
          ),
          goal(
            "kind: mcp added latency vs the http tool's, p99",
            `≤ the http tool's (${ms(httpTool.p99)})`,
            [
              ['stdio', stdio.p99],
              ['HTTP', http.p99],
            ],
            (v) => v <= httpTool.p99,
            ms,
          ),
          reported(
            "supergateway's added latency over HTTP, for comparison",
            [
              ['p50', gatewayAdded.p50],
              ['p99', gatewayAdded.p99],
            ],
            ms,
          ),
        ],
        raw: { rows: rows.map((r) => r.label), calls, warmup, perRound, latency: m, failed },
      };
    } finally {
      await Promise.all(closers.map((close) => close().catch(() => undefined)));
    }
  },
};
