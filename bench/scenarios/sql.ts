/**
 * Scenario `sql`: a parameterised SQLite query returning 1 and 1,000 rows, over HTTP with 32
 * connections: mcp-run's `sql` tool against SDK servers running the same prepared statement with
 * better-sqlite3 (v2 in the modern era, v1 in the legacy era; mcp-run in both).
 */
import { sqlFixture } from '../lib/fixtures.js';
import { cannon, interleave, medians, probe, type Target, type Throughput } from '../lib/load.js';
import { answered, type Era, ID_SLOT, legacyHttpSession, modernHeaders, toolCall } from '../lib/mcp.js';
import { benchServer, mcpRun, startAll, stopAll } from '../lib/proc.js';
import { fmt, ratio, times } from '../lib/stats.js';
import type { BenchOptions, Scenario, Table } from '../lib/types.js';

const CONNECTIONS = 32;

export const sqlScenario: Scenario = {
  name: 'sql',
  title: 'SQL tool on SQLite',

  async run(options: BenchOptions, work: string) {
    const { db, manifest } = sqlFixture(work);
    const servers = await startAll({
      mcpRun: mcpRun(manifest, ['--http', '--port', '0', '--no-watch'], options.profileDir),
      sdkV2: benchServer('sdk-v2-http.mjs', ['--sql', db]),
      sdkV1: benchServer('sdk-v1-http.mjs', ['--sql', db]),
    });
    try {
      const sessions = {
        mcpRun: await legacyHttpSession(servers.mcpRun.url),
        sdkV1: await legacyHttpSession(servers.sdkV1.url),
      };
      const target = (
        url: string,
        era: Era,
        limit: number,
        legacyHeaders?: Record<string, string>,
      ): Target => ({
        url,
        headers: era === 'modern' ? modernHeaders('tools/call', 'items') : legacyHeaders!,
        body: JSON.stringify(toolCall(era, ID_SLOT, 'items', { limit })),
        verify: (body) => answered(body) && body.includes(`"rowCount":${limit}`),
      });
      const sizes = [1, 1000];
      const tables: Table[] = [];
      const raw: Record<number, Throughput[][]> = {};
      for (const limit of sizes) {
        const rows = [
          { server: 'mcp-run', era: 'modern', target: target(servers.mcpRun.url, 'modern', limit) },
          { server: 'SDK v2', era: 'modern', target: target(servers.sdkV2.url, 'modern', limit) },
          {
            server: 'mcp-run',
            era: 'legacy',
            target: target(servers.mcpRun.url, 'legacy', limit, sessions.mcpRun),
          },
          {
            server: 'SDK v1',
            era: 'legacy',
            target: target(servers.sdkV1.url, 'legacy', limit, sessions.sdkV1),
          },
        ];
        for (const row of rows) await probe(row.target);
        const rounds = await interleave(
          rows.map((row) => ({
            label: `${row.server} ${row.era}, ${limit} rows`,
            measure: (s: number) =>
              cannon(row.target, CONNECTIONS, s, options.smoke ? CONNECTIONS * 2 : undefined),
          })),
          { rounds: options.rounds, seconds: options.duration, warmup: options.warmup },
          (line) => console.error(`  sql: ${line}`),
        );
        raw[limit] = rounds;
        const m = rounds.map((r) => medians(r));
        // Each mcp-run row is compared with the SDK row of its era.
        const sdkOf = (i: number) => m[rows[i]!.era === 'modern' ? 1 : 3]!;
        tables.push({
          caption: `${limit === 1 ? '1 row' : `${limit.toLocaleString('en-US')} rows`}, ${CONNECTIONS} connections (median of ${options.rounds} rounds of ${options.duration} s)`,
          columns: ['server', 'era', 'req/s', 'p50 ms', 'p99 ms', '× SDK (same era)', 'failed'],
          rows: rows.map((row, i) => [
            row.server,
            row.era,
            fmt(m[i]!.rps),
            fmt(m[i]!.p50),
            fmt(m[i]!.p99),
            row.server === 'mcp-run' ? times(ratio(m[i]!.rps, sdkOf(i).rps)) : '—',
            m[i]!.failed,
          ]),
        });
      }
      return {
        name: this.name,
        title: this.title,
        setup: [
          'Data: one SQLite file, table `items (id, name, price)` with 1,000 rows, opened read-only by every server.',
          'Query: `SELECT id, name, price FROM items ORDER BY id LIMIT :limit`, `limit` = 1 or 1000. mcp-run: a `sql` tool (`maxRows: 1000`) answering a markdown table plus `structuredContent` `{rows, rowCount, truncated}` with an outputSchema. SDKs: `registerTool` with zod input and output schemas, the statement prepared once with better-sqlite3, answering the rows as JSON text plus the same `structuredContent`.',
          'Every answer is checked for the right `rowCount`.',
        ],
        tables,
        goals: [],
        raw,
      };
    } finally {
      await stopAll(servers);
    }
  },
};
