/**
 * Scenario `duckdb`: mcp-run's `sql` tool on a `duckdb` source against a bare node script using the
 * same client (bench/servers/bare-duckdb.mjs), over HTTP: a one-row lookup and a group-by over a
 * 1,000,000-row Parquet file written at bench time (never committed). The ratio is mcp-run's
 * throughput over the bare script's: what the MCP layer, the isolation, the classifier and DuckDB's
 * parser check, the byte budget and the row shaping cost on top of DuckDB itself.
 */

import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { writeManifest } from '../lib/fixtures.js';
import { cannon, interleave, medians, probe, type Target, type Throughput } from '../lib/load.js';
import { answered, ID_SLOT, modernHeaders, toolCall } from '../lib/mcp.js';
import { benchServer, mcpRun, startAll, stopAll } from '../lib/proc.js';
import { fmt, ratio, times } from '../lib/stats.js';
import type { BenchOptions, Scenario, Table } from '../lib/types.js';

const CONNECTIONS = 8;
const ROWS = 1_000_000;
const CATEGORIES = 10;

/** The Parquet file (id, category, amount), in row-id order, and mcp-run's manifest over it. */
async function duckdbFixture(dir: string): Promise<{ parquet: string; manifest: string }> {
  const parquet = join(dir, 'events.parquet');
  const maker = await DuckDBInstance.create(':memory:', { threads: '2' });
  const conn = await maker.connect();
  await conn.run(
    `COPY (SELECT range + 1 AS id, 'category ' || (range % ${CATEGORIES}) AS category, (range * 7 % 1000) / 10.0 AS amount FROM range(${ROWS})) TO '${parquet}' (FORMAT parquet)`,
  );
  conn.closeSync();
  maker.closeSync();
  const manifest = writeManifest(
    dir,
    'duckdb.yaml',
    `server: { name: bench, version: 1.0.0 }
sources:
  files: { kind: duckdb, tables: { events: ./events.parquet } }
tools:
  one_row:
    kind: sql
    source: files
    description: One event by id.
    input:
      id: { type: integer, minimum: 1, description: The id }
    sql: SELECT id, category, amount FROM events WHERE id = :id
  group_by:
    kind: sql
    source: files
    description: Events and their total per category.
    sql: SELECT category, count(*) AS n, sum(amount) AS total FROM events GROUP BY category ORDER BY category
`,
  );
  return { parquet, manifest };
}

export const duckdbScenario: Scenario = {
  name: 'duckdb',
  title: 'SQL tool on DuckDB over Parquet',

  async run(options: BenchOptions, work: string) {
    const { parquet, manifest } = await duckdbFixture(work);
    const servers = await startAll({
      mcpRun: mcpRun(manifest, ['--http', '--port', '0', '--no-watch'], options.profileDir),
      bare: benchServer('bare-duckdb.mjs', ['--parquet', parquet]),
    });
    try {
      const queries = [
        { name: 'one_row', args: { id: 4242 }, rows: 1, label: 'one row by id' },
        {
          name: 'group_by',
          args: {},
          rows: CATEGORIES,
          label: `group-by over ${ROWS.toLocaleString('en-US')} rows`,
        },
      ];
      const tables: Table[] = [];
      const raw: Record<string, Throughput[][]> = {};
      for (const query of queries) {
        const target = (url: string): Target => ({
          url,
          headers: modernHeaders('tools/call', query.name),
          body: JSON.stringify(toolCall('modern', ID_SLOT, query.name, query.args)),
          verify: (body) => answered(body) && body.includes(`"rowCount":${query.rows}`),
        });
        const rows = [
          { server: 'mcp-run', target: target(servers.mcpRun.url) },
          { server: 'bare node:http + @duckdb/node-api', target: target(servers.bare.url) },
        ];
        for (const row of rows) await probe(row.target);
        const rounds = await interleave(
          rows.map((row) => ({
            label: `${row.server}, ${query.label}`,
            measure: (s: number) =>
              cannon(row.target, CONNECTIONS, s, options.smoke ? CONNECTIONS * 2 : undefined),
          })),
          { rounds: options.rounds, seconds: options.duration, warmup: options.warmup },
          (line) => console.error(`  duckdb: ${line}`),
        );
        raw[query.name] = rounds;
        const m = rounds.map((r) => medians(r));
        tables.push({
          caption: `${query.label}, ${CONNECTIONS} connections (median of ${options.rounds} rounds of ${options.duration} s)`,
          columns: ['server', 'req/s', 'p50 ms', 'p99 ms', '× bare', 'failed'],
          rows: rows.map((row, i) => [
            row.server,
            fmt(m[i]!.rps),
            fmt(m[i]!.p50),
            fmt(m[i]!.p99),
            i === 0 ? times(ratio(m[0]!.rps, m[1]!.rps)) : '—',
            m[i]!.failed,
          ]),
        });
      }
      return {
        name: this.name,
        title: this.title,
        setup: [
          `Data: one Parquet file written at bench time, \`events (id, category, amount)\`, ${ROWS.toLocaleString('en-US')} rows in id order, ${CATEGORIES} categories.`,
          'mcp-run: a `duckdb` source (defaults: 2 connections, 2 threads, 512MB; `tables: { events: ./events.parquet }`) and two `sql` tools, `SELECT id, category, amount FROM events WHERE id = :id` and `SELECT category, count(*) AS n, sum(amount) AS total FROM events GROUP BY category ORDER BY category`, modern era (2026-07-28).',
          'Bare: bench/servers/bare-duckdb.mjs, node:http and the same two statements prepared once on 2 connections of the same client (@duckdb/node-api), no MCP, no isolation settings, no checks, no byte budget.',
          'Every answer is checked for the right `rowCount`; `× bare` is mcp-run’s req/s over the bare script’s.',
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
