/**
 * `npx tsx bench/pg-cost.ts`: what one one-row `sql` call costs the PostgreSQL backend serving it,
 * in CPU (its time on a CPU from /proc/<backend pid>/schedstat, in nanoseconds, over many calls) and in statements, beside
 * the bare driver running the same query as one named prepared statement (what Toolbox's pgx does
 * by default: Bind, Execute, Sync in an implicit transaction). One pool connection each, warm;
 * MCP_RUN_TEST_POSTGRES_URL (a superuser login). Contenders run in interleaved rounds, and the
 * median per contender is printed: the backend's CPU is its own process's, which the machine's
 * other load moves far less than wall time. A database and a role of its own (dropped after) give
 * the source a role that can take no session lock, whose reads skip `pg_advisory_unlock_all()`.
 * Not a test: a measurement.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { OpenedSource, SqlCapability, SqlQueryOptions } from '../src/kinds/contract/kinds.js';
import { parseSqlParams } from '../src/kinds/sql/params.js';
import { postgresSource } from '../src/kinds/sql/postgres/source.js';
import { pgProxy } from '../test/helpers/pg-proxy.js';
import { testContext } from '../test/kinds/context.js';
import { median } from './lib/stats.js';

const CALLS = Number(process.env.CALLS ?? 5000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);

/** CPU time of one (single-threaded) process in ms, from /proc/<pid>/schedstat (nanoseconds). */
function cpuMs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

interface Contender {
  readonly label: string;
  readonly pid: number;
  readonly statements: number;
  call(i: number): Promise<void>;
}

const url = process.env.MCP_RUN_TEST_POSTGRES_URL;
if (!url) {
  console.log('skipped: MCP_RUN_TEST_POSTGRES_URL is not set');
  process.exit(0);
}
const id = randomBytes(4).toString('hex');
const database = `mcp_run_pg_cost_${id}`;
const nolock = `mcp_run_nolock_${id}`;
const inDatabase = (user?: string) => {
  const u = new URL(url);
  u.pathname = `/${database}`;
  if (user) u.username = user;
  return u.toString();
};
const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
await admin.query(`CREATE ROLE ${nolock} LOGIN`);
const setup = new pg.Client({ connectionString: inDatabase() });
await setup.connect();
await setup.query('CREATE TABLE items (id int PRIMARY KEY, name text, price numeric)');
await setup.query("INSERT INTO items SELECT i, 'item ' || i, i * 1.5 FROM generate_series(1, 1000) i");
await setup.query(`GRANT SELECT ON items TO ${nolock}`);
await setup.query(
  `REVOKE EXECUTE ON FUNCTION pg_advisory_lock(bigint), pg_advisory_lock(integer, integer),
     pg_advisory_lock_shared(bigint), pg_advisory_lock_shared(integer, integer),
     pg_try_advisory_lock(bigint), pg_try_advisory_lock(integer, integer),
     pg_try_advisory_lock_shared(bigint), pg_try_advisory_lock_shared(integer, integer) FROM PUBLIC`,
);
await setup.end();
const QUERY = 'SELECT id, name, price FROM items WHERE id = :id';
const proxy = await pgProxy(url, 'pass');
const viaProxy = (target: string) => {
  const u = new URL(target);
  const p = new URL(proxy.url);
  u.host = p.host;
  return u.toString();
};

const cleanups: (() => Promise<unknown>)[] = [];
/** The source's own default timeout: its connections start with it, so no settings step runs. */
const options = (sql: SqlCapability): SqlQueryOptions => ({
  maxRows: 100,
  timeoutMs: sql.defaults.timeoutMs,
  signal: new AbortController().signal,
});

async function source(label: string, target: string): Promise<Contender> {
  const ctx = testContext({ baseDir: process.cwd(), name: 'db' });
  const open = postgresSource.open as (c: unknown, x: typeof ctx) => Promise<OpenedSource | undefined>;
  const opened = await open({ url: viaProxy(target), poolSize: 1 }, ctx);
  if (!opened) throw new Error(`cannot open: ${JSON.stringify(ctx.errors)}`);
  cleanups.push(async () => opened.dispose?.());
  const sql = opened.capabilities.sql as SqlCapability;
  const pidRows = await sql.query(parseSqlParams('SELECT pg_backend_pid() AS pid'), [], options(sql));
  const statement = parseSqlParams(QUERY);
  const call = async (i: number) => {
    const r = await sql.query(statement, [1 + (i % 1000)], options(sql));
    if (r.rows.length !== 1) throw new Error('no row');
  };
  await call(0);
  const before = proxy.executes;
  await call(1);
  return {
    label,
    pid: Number((pidRows.rows[0] as { pid: number }).pid),
    statements: proxy.executes - before,
    call,
  };
}

async function bare(): Promise<Contender> {
  const client = new pg.Client({ connectionString: viaProxy(inDatabase()) });
  await client.connect();
  cleanups.push(() => client.end());
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const text = QUERY.replace(':id', '$1');
  const call = async (i: number) => {
    const r = await client.query({ name: 'one', text, values: [1 + (i % 1000)] });
    if (r.rows.length !== 1) throw new Error('no row');
  };
  await call(0);
  const before = proxy.executes;
  await call(1);
  return { label: 'bare pg, one named prepared statement', pid, statements: proxy.executes - before, call };
}

try {
  const contenders = [
    await source('mcp-run, superuser (keeps the unlock)', inDatabase()),
    await source('mcp-run, a role that cannot lock', inDatabase(nolock)),
    await bare(),
  ];
  const backend = contenders.map(() => [] as number[]);
  const load0 = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [c, contender] of contenders.entries()) {
      for (let i = 0; i < 200; i++) await contender.call(i);
      const b0 = cpuMs(contender.pid);
      for (let i = 0; i < CALLS; i++) await contender.call(i);
      backend[c]!.push(((cpuMs(contender.pid) - b0) * 1000) / CALLS);
    }
  }
  const load1 = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  console.log(`${ROUNDS} rounds of ${CALLS} calls; 1-min load ${load0} at the start, ${load1} at the end`);
  for (const [c, contender] of contenders.entries()) {
    console.log(
      `${contender.label}: ${contender.statements} statements per call; backend ${median(backend[c]!).toFixed(1)} µs/call [${Math.min(...backend[c]!).toFixed(1)}–${Math.max(...backend[c]!).toFixed(1)}]`,
    );
  }
} finally {
  for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  await proxy.close();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.query(`DROP ROLE IF EXISTS ${nolock}`);
  await admin.end();
}
