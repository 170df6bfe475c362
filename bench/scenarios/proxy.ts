/**
 * Scenario `proxy`: what an `http` tool adds in front of a REST API. One keep-alive undici
 * connection, one request at a time, three paths interleaved:
 *   A. undici → upstream directly (what a client would pay without mcp-run);
 *   B. undici → mcp-run `tools/call` of an `http` tool (2026-07-28) → upstream;
 *   C. undici → mcp-run `tools/call` of `ping` (the MCP hop alone, no upstream).
 * Added latency = B − A (per percentile); B − C is the work inside mcp-run's tool call.
 */
import type { Client } from 'undici';
import { proxyManifest } from '../lib/fixtures.js';
import { goal } from '../lib/goals.js';
import { interleave, type Sequential, sequential } from '../lib/load.js';
import { answered, modernHeaders, toolCall } from '../lib/mcp.js';
import { benchServer, mcpRun, ServerProcess } from '../lib/proc.js';
import { fmt, median } from '../lib/stats.js';
import type { BenchOptions, Scenario } from '../lib/types.js';

async function callTool(client: Client, path: string, tool: string, expect: string): Promise<boolean> {
  const res = await client.request({
    path,
    method: 'POST',
    headers: modernHeaders('tools/call', tool),
    body: JSON.stringify(toolCall('modern', 1, tool)),
  });
  const text = await res.body.text();
  return res.statusCode === 200 && answered(text) && text.includes(expect);
}

export const proxyScenario: Scenario = {
  name: 'proxy',
  title: 'HTTP tool proxy overhead',

  async run(options: BenchOptions, work: string) {
    const upstream = await ServerProcess.http('upstream', benchServer('upstream.mjs', []));
    let mcp: ServerProcess | undefined;
    try {
      mcp = await ServerProcess.http(
        'mcp-run',
        mcpRun(
          proxyManifest(work, upstream.url),
          ['--http', '--port', '0', '--no-watch'],
          options.profileDir,
        ),
      );
      const endpoint = new URL(mcp.url);
      const paths = [
        {
          label: 'A. direct: undici → upstream',
          origin: upstream.url,
          send: async (client: Client) => {
            const res = await client.request({ path: '/items/42', method: 'GET' });
            return res.statusCode === 200 && (await res.body.text()).includes('widget');
          },
        },
        {
          label: 'B. mcp-run http tool → upstream',
          origin: endpoint.origin,
          send: (client: Client) => callTool(client, endpoint.pathname, 'get_item', 'widget'),
        },
        {
          label: 'C. mcp-run ping (MCP hop only)',
          origin: endpoint.origin,
          send: (client: Client) => callTool(client, endpoint.pathname, 'ping', 'pong'),
        },
      ];
      for (const p of paths) {
        const check = await sequential(p.origin, 0, p.send);
        if (check.failed > 0) throw new Error(`${p.label}: the first answer was wrong`);
      }
      const rounds: Sequential[][] = await interleave(
        paths.map((p) => ({ label: p.label, measure: (s: number) => sequential(p.origin, s, p.send) })),
        { rounds: options.rounds, seconds: options.duration, warmup: options.warmup },
        (line) => console.error(`  proxy: ${line}`),
      );
      const m = rounds.map((r) => ({
        p50: median(r.map((x) => x.p50)),
        p99: median(r.map((x) => x.p99)),
        rps: median(r.map((x) => x.rps)),
        failed: r.reduce((n, x) => n + x.failed, 0),
      }));
      const [a, b, c] = m as [(typeof m)[0], (typeof m)[0], (typeof m)[0]];
      const added = { p50: b.p50 - a.p50, p99: b.p99 - a.p99 };
      return {
        name: this.name,
        title: this.title,
        setup: [
          'Upstream: node:http answering a 70-byte JSON object, its own process. mcp-run: `--http`, an `http` source `{ baseUrl: <upstream> }` and a tool `{ kind: http, source, method: GET, path: /items/42 }` (keep-alive undici pool inside).',
          'Client: one keep-alive undici connection, one request at a time (no queueing), modern-era `tools/call` POSTs; each answer checked. Percentile differences are differences of the medians over rounds.',
        ],
        tables: [
          {
            caption: `Sequential latency (median of ${options.rounds} rounds of ${options.duration} s)`,
            columns: ['path', 'p50 ms', 'p99 ms', 'req/s', 'failed'],
            rows: m.map((x, i) => [paths[i]!.label, fmt(x.p50), fmt(x.p99), fmt(x.rps), x.failed]),
          },
          {
            caption: 'What the proxy adds',
            columns: ['difference', 'p50 ms', 'p99 ms'],
            rows: [
              ['B − A: added by going through mcp-run', fmt(added.p50), fmt(added.p99)],
              [
                'B − C: the http tool inside mcp-run (upstream round trip included)',
                fmt(b.p50 - c.p50),
                fmt(b.p99 - c.p99),
              ],
              [
                'C − A: the MCP hop (HTTP + JSON-RPC + dispatch) vs the upstream alone',
                fmt(c.p50 - a.p50),
                fmt(c.p99 - a.p99),
              ],
            ],
          },
        ],
        goals: [
          goal(
            'Proxy overhead (B − A), p50',
            '≤ 0.3 ms',
            [['', added.p50]],
            (v) => v <= 0.3,
            (v) => `${fmt(v)} ms`,
          ),
        ],
        raw: { paths: paths.map((p) => p.label), rounds },
      };
    } finally {
      await mcp?.stop();
      await upstream.stop();
    }
  },
};
