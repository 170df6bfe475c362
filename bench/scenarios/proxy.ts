/**
 * Scenario `proxy`: what an `http` tool adds in front of a REST API. One keep-alive undici
 * connection, one request at a time, three paths interleaved:
 *   A. undici → upstream directly (what a client would pay without mcp-run);
 *   B. undici → mcp-run `tools/call` of an `http` tool (2026-07-28) → upstream;
 *   C. undici → mcp-run `tools/call` of `ping` (the MCP hop alone, no upstream).
 * Added latency = B − A (per percentile); B − C is the work inside mcp-run's tool call.
 * Then throughput at 32 connections of the same http tool against Toolbox's own `http` tool
 * (MCP Toolbox for Databases, its `http` source on the same upstream), interleaved.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from 'undici';
import { proxyManifest } from '../lib/fixtures.js';
import { goal } from '../lib/goals.js';
import { cannon, interleave, medians, probe, type Sequential, sequential, type Target } from '../lib/load.js';
import {
  answered,
  BASE_HEADERS,
  ID_SLOT,
  LEGACY,
  legacyHttpSession,
  modernHeaders,
  toolCall,
} from '../lib/mcp.js';
import { benchServer, mcpRun, ServerProcess } from '../lib/proc.js';
import { fmt, median, ratio, times } from '../lib/stats.js';
import { startToolbox, toolboxBinary } from '../lib/toolbox.js';
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
    let toolbox: ServerProcess | undefined;
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

      // Throughput at 32 connections against Toolbox's own http tool on the same upstream.
      const connections = 32;
      const binary = toolboxBinary();
      const loadRows: { label: string; target: Target }[] = [];
      const widget = (text: string) => answered(text) && text.includes('widget');
      const call = (era: 'modern' | 'legacy') => JSON.stringify(toolCall(era, ID_SLOT, 'get_item'));
      loadRows.push(
        {
          label: 'mcp-run 2026',
          target: {
            url: mcp.url,
            headers: modernHeaders('tools/call', 'get_item'),
            body: call('modern'),
            verify: widget,
          },
        },
        {
          label: 'mcp-run 2025',
          target: {
            url: mcp.url,
            headers: await legacyHttpSession(mcp.url),
            body: call('legacy'),
            verify: widget,
          },
        },
      );
      if ('path' in binary) {
        const config = join(work, 'toolbox-http.yaml');
        writeFileSync(
          config,
          [
            'sources:',
            '  api:',
            '    kind: http',
            `    baseUrl: ${JSON.stringify(upstream.url)}`,
            // Toolbox refuses loopback and private addresses unless told (its SSRF guard).
            '    allowPrivateNetworks: true',
            'tools:',
            '  get_item:',
            '    kind: http',
            '    source: api',
            '    description: One item of the upstream API.',
            '    method: GET',
            '    path: /items/42',
            '',
          ].join('\n'),
        );
        toolbox = await startToolbox(binary.path, config);
        loadRows.push({
          label: 'Toolbox 2025',
          target: {
            url: toolbox.url,
            headers: { ...BASE_HEADERS, 'mcp-protocol-version': LEGACY },
            body: call('legacy'),
            verify: widget,
          },
        });
      }
      for (const row of loadRows) await probe(row.target);
      const loadRounds = await interleave(
        loadRows.map((row) => ({
          label: `${row.label}, ${connections} conn`,
          measure: (s: number) =>
            cannon(row.target, connections, s, options.smoke ? connections * 4 : undefined),
        })),
        { rounds: options.rounds, seconds: options.duration, warmup: options.warmup },
        (line) => console.error(`  proxy: ${line}`),
      );
      const lm = loadRounds.map((r) => medians(r));
      const tb = loadRows.findIndex((row) => row.label === 'Toolbox 2025');
      // Per interleaved round (each pair ran under the same load), then the median.
      const vsToolbox: [string, number][] =
        tb < 0
          ? []
          : loadRows
              .slice(0, tb)
              .map((row, i) => [
                row.label,
                median(loadRounds[i]!.map((r, k) => ratio(r.rps, loadRounds[tb]![k]!.rps))),
              ]);
      return {
        name: this.name,
        title: this.title,
        setup: [
          'Upstream: node:http answering a 70-byte JSON object, its own process. mcp-run: `--http`, an `http` source `{ baseUrl: <upstream> }` and a tool `{ kind: http, source, method: GET, path: /items/42 }` (keep-alive undici pool inside).',
          'Client: one keep-alive undici connection, one request at a time (no queueing), modern-era `tools/call` POSTs; each answer checked. Percentile differences are differences of the medians over rounds.',
          `Against Toolbox: MCP Toolbox for Databases (\`@toolbox-sdk/server-linux-x64\`) serving the same tool with its own \`http\` source on the same upstream (\`allowPrivateNetworks: true\`: it refuses loopback otherwise), speaking 2025 statelessly; mcp-run on a 2025 session and on the 2026 path. autocannon, ${connections} connections, every answer checked; ratios per interleaved round, then the median.${'path' in binary ? '' : ` Toolbox skipped: ${binary.missing}.`}`,
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
          {
            caption: `http tool, ${connections} connections, against Toolbox's http tool (median of ${options.rounds} interleaved rounds of ${options.duration} s)`,
            columns: ['server', 'req/s', 'p50 ms', 'p99 ms', '× Toolbox', 'failed'],
            rows: loadRows.map((row, i) => [
              row.label,
              fmt(lm[i]!.rps),
              fmt(lm[i]!.p50),
              fmt(lm[i]!.p99),
              i < tb ? times(vsToolbox[i]?.[1] ?? Number.NaN) : '—',
              lm[i]!.failed,
            ]),
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
          goal(
            `HTTP tool at ${connections} connections vs Toolbox's own http tool (same upstream)`,
            '≥ 1.0×',
            vsToolbox,
            (v) => v >= 1,
            times,
          ),
        ],
        raw: { paths: paths.map((p) => p.label), rounds, load: loadRows.map((r) => r.label), loadRounds },
      };
    } finally {
      await toolbox?.stop();
      await mcp?.stop();
      await upstream.stop();
    }
  },
};
