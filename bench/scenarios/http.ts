/**
 * Scenario `http`: `tools/call` of a cheap tool over HTTP, both eras, at 1, 32 and 256 connections,
 * against the official SDK servers (v2 `createMcpHandler`, v1 stateless Streamable HTTP) and a bare
 * node:http JSON-RPC echo (the ceiling). RSS of every server after the load.
 */
import { cheapManifest } from '../lib/fixtures.js';
import { goal } from '../lib/goals.js';
import { cannon, interleave, medians, probe, type Target, type Throughput } from '../lib/load.js';
import { BASE_HEADERS, type Era, ID_SLOT, legacyHttpSession, modernHeaders, toolCall } from '../lib/mcp.js';
import { benchServer, mcpRun, startAll, stopAll } from '../lib/proc.js';
import { fmt, ratio, times } from '../lib/stats.js';
import type { BenchOptions, Scenario, Table } from '../lib/types.js';

interface Row {
  readonly server: 'mcp-run' | 'SDK v2' | 'SDK v1' | 'bare';
  readonly era: Era | 'none';
  readonly target: Target;
}

const HTTP_FLAGS = ['--http', '--port', '0', '--no-watch'];

export const httpScenario: Scenario = {
  name: 'http',
  title: 'HTTP `tools/call` throughput and latency',

  async run(options: BenchOptions, work: string) {
    const connections = options.smoke ? [32] : [1, 32, 256];
    const servers = await startAll({
      mcpRun: mcpRun(cheapManifest(work), HTTP_FLAGS, options.profileDir),
      sdkV2: benchServer('sdk-v2-http.mjs', ['--cheap']),
      sdkV1: benchServer('sdk-v1-http.mjs', ['--cheap']),
      bare: benchServer('bare-http.mjs', []),
    });
    try {
      const modern = (url: string): Target => ({
        url,
        headers: modernHeaders('tools/call', 'ping'),
        body: JSON.stringify(toolCall('modern', ID_SLOT, 'ping')),
      });
      const legacy = async (url: string): Promise<Target> => ({
        url,
        headers: await legacyHttpSession(url),
        body: JSON.stringify(toolCall('legacy', ID_SLOT, 'ping')),
      });
      const rows: Row[] = [
        { server: 'mcp-run', era: 'modern', target: modern(servers.mcpRun.url) },
        { server: 'mcp-run', era: 'legacy', target: await legacy(servers.mcpRun.url) },
        { server: 'SDK v2', era: 'modern', target: modern(servers.sdkV2.url) },
        { server: 'SDK v2', era: 'legacy', target: await legacy(servers.sdkV2.url) },
        { server: 'SDK v1', era: 'legacy', target: await legacy(servers.sdkV1.url) },
        {
          server: 'bare',
          era: 'none',
          target: {
            url: servers.bare.url,
            headers: BASE_HEADERS,
            body: JSON.stringify(toolCall('legacy', ID_SLOT, 'ping')),
          },
        },
      ];
      for (const row of rows) await probe(row.target);

      const levels: { connections: number; rounds: Throughput[][] }[] = [];
      for (const c of connections) {
        const rounds = await interleave(
          rows.map((row) => ({
            label: `${row.server} ${row.era}, ${c} connections`,
            measure: (seconds: number) => cannon(row.target, c, seconds, options.smoke ? c * 2 : undefined),
          })),
          { rounds: options.rounds, seconds: options.duration, warmup: options.warmup },
          (line) => console.error(`  http: ${line}`),
        );
        levels.push({ connections: c, rounds });
      }
      const memory = Object.fromEntries(Object.entries(servers).map(([k, s]) => [k, s.memory()]));

      const tables: Table[] = [];
      const vsSdk: [string, number][] = [];
      const vsBare: [string, number][] = [];
      for (const level of levels) {
        const m = level.rounds.map((r) => medians(r));
        const find = (server: Row['server'], era: Row['era']) =>
          m[rows.findIndex((r) => r.server === server && r.era === era)]!;
        const bare = find('bare', 'none');
        tables.push({
          caption: `${level.connections} connection${level.connections === 1 ? '' : 's'} (median of ${options.rounds} rounds of ${options.duration} s)`,
          columns: [
            'server',
            'era',
            'req/s',
            'p50 ms',
            'p99 ms',
            '× SDK v2 (same era; bare: modern)',
            '× bare',
            'failed',
          ],
          rows: rows.map((row, i) => {
            const x = m[i]!;
            // The bare echo has no era: its ratio to SDK v2 (modern) shows what node:http itself allows.
            const sdk = find('SDK v2', row.era === 'none' ? 'modern' : row.era);
            return [
              row.server,
              row.era === 'none' ? '—' : row.era,
              fmt(x.rps),
              fmt(x.p50),
              fmt(x.p99),
              times(ratio(x.rps, sdk.rps)),
              times(ratio(x.rps, bare.rps)),
              x.failed,
            ];
          }),
        });
        for (const era of ['modern', 'legacy'] as const) {
          const ours = find('mcp-run', era).rps;
          vsSdk.push([`${era} ${level.connections}c`, ratio(ours, find('SDK v2', era).rps)]);
          vsBare.push([`${era} ${level.connections}c`, ratio(ours, bare.rps)]);
        }
      }
      tables.push({
        caption: 'Memory of each server process after all the load above',
        columns: ['server', 'RSS MB', 'peak RSS MB'],
        rows: Object.entries(memory).map(([k, mem]) => [
          k,
          mem ? fmt(mem.rssMb) : 'n/a',
          mem ? fmt(mem.peakMb) : 'n/a',
        ]),
      });
      const peak = memory.mcpRun?.peakMb ?? Number.NaN;
      return {
        name: this.name,
        title: this.title,
        setup: [
          'Tool: `ping`, no arguments, answers the text "pong" (mcp-run: a `content` tool; SDKs: `registerTool` with a canned result).',
          'Modern era: every POST carries the `_meta` envelope and the `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` headers. Legacy era: `initialize` once, then every POST on that session (mcp-run mints one session that all connections share; the stateless SDK servers mint none).',
          'SDK v2: `createMcpHandler(factory)` (a new `McpServer` per request) behind a node:http ↔ fetch adapter that passes `parsedBody`; its 2025 traffic goes through the default stateless legacy fallback, which answers with an SSE stream. SDK v1: a new `McpServer` + `StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })` per POST, on node:http.',
          'Load: autocannon (library) in the bench process, unique JSON-RPC id per request; every answer is checked (`failed` counts errors, non-2xx and wrong bodies). Latency from autocannon per-response timings (µs resolution).',
        ],
        tables,
        goals: [
          goal('HTTP throughput vs the v2 SDK server', '≥ 8×', vsSdk, (v) => v >= 8, times),
          goal('HTTP throughput vs the bare node:http ceiling', '≥ 0.5×', vsBare, (v) => v >= 0.5, times),
          goal(
            'RSS under HTTP load (mcp-run, peak)',
            '≤ 150 MB',
            [['', peak]],
            (v) => v <= 150,
            (v) => `${fmt(v)} MB`,
          ),
        ],
        raw: { rows: rows.map((r) => ({ server: r.server, era: r.era })), levels, memory },
      };
    } finally {
      await stopAll(servers);
    }
  },
};
