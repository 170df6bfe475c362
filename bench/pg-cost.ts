/**
 * `npx tsx bench/pg-cost.ts`: what one one-row `sql` call costs the PostgreSQL backend serving it,
 * in CPU (user + system from /proc/<backend pid>/stat, over many calls) and in statements, beside
 * the bare driver running the same query as one named prepared statement (what Toolbox's pgx does
 * by default: Bind, Execute, Sync). One pool connection, warm; MCP_RUN_TEST_POSTGRES_URL. The
 * backend's CPU is its own process's, so other load on the machine moves it little. Not a test: a
 * measurement (prints one line per contender).
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { OpenedSource, SqlCapability, SqlQueryOptions } from '../src/kinds/contract/kinds.js';
import { parseSqlParams } from '../src/kinds/sql/params.js';
import { postgresSource } from '../src/kinds/sql/postgres-source.js';
import { testContext } from '../test/kinds/context.js';

const CALLS = Number(process.env.CALLS ?? 4000);

/** user + system CPU of one process in ms, from /proc (USER_HZ 100). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

async function measure(label: string, pid: number, call: (i: number) => Promise<void>) {
  for (let i = 0; i < 200; i++) await call(i);
  const b0 = cpuMs(pid);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) await call(i);
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const backend = ((cpuMs(pid) - b0) * 1000) / CALLS;
  const client = (c.user + c.system) / CALLS;
  console.log(
    `${label}: backend ${backend.toFixed(1)} µs/call, client ${client.toFixed(1)} µs/call, ${((ms * 1000) / CALLS).toFixed(0)} µs/call wall (load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]})`,
  );
}

const url = process.env.MCP_RUN_TEST_POSTGRES_URL;
if (!url) {
  console.log('skipped: MCP_RUN_TEST_POSTGRES_URL is not set');
  process.exit(0);
}
const setup = new pg.Client({ connectionString: url });
await setup.connect();
await setup.query(
  'CREATE TABLE IF NOT EXISTS mcp_run_pg_cost (id int PRIMARY KEY, name text, price numeric)',
);
await setup.query(
  "INSERT INTO mcp_run_pg_cost SELECT i, 'item ' || i, i * 1.5 FROM generate_series(1, 1000) i ON CONFLICT DO NOTHING",
);
await setup.end();
const QUERY = 'SELECT id, name, price FROM mcp_run_pg_cost WHERE id = :id';

const ctx = testContext({ baseDir: process.cwd(), name: 'db' });
const opened = (await (
  postgresSource.open as (c: unknown, x: typeof ctx) => Promise<OpenedSource | undefined>
)({ url, poolSize: 1 }, ctx)) as OpenedSource;
if (!opened) throw new Error(`cannot open: ${JSON.stringify(ctx.errors)}`);
const sql = opened.capabilities.sql as SqlCapability;
const options = (): SqlQueryOptions => ({
  maxRows: 100,
  timeoutMs: 30_000,
  signal: new AbortController().signal,
});
const pidRows = await sql.query(parseSqlParams('SELECT pg_backend_pid() AS pid'), [], options());
const sourcePid = Number((pidRows.rows[0] as { pid: number }).pid);
const statement = parseSqlParams(QUERY);
await measure('mcp-run postgres source', sourcePid, async (i) => {
  const r = await sql.query(statement, [1 + (i % 1000)], options());
  if (r.rows.length !== 1) throw new Error('no row');
});
await opened.dispose?.();

const bare = new pg.Client({ connectionString: url });
await bare.connect();
const barePid = (await bare.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
await measure('bare pg, named prepared statement', barePid, async (i) => {
  const r = await bare.query({ name: 'one', text: QUERY.replace(':id', '$1'), values: [1 + (i % 1000)] });
  if (r.rows.length !== 1) throw new Error('no row');
});
await bare.end();
