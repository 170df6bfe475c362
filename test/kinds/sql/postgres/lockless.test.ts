/**
 * A read-only call on PostgreSQL ends with `pg_advisory_unlock_all()` and ROLLBACK, unless the
 * source's role can take no session-level lock (privilege.ts POSTGRES_LOCKLESS_QUERY): then it ends
 * with ROLLBACK alone, one statement fewer per call. On a database of the test's own (the advisory
 * lock functions revoked from PUBLIC there only), through a relay that counts the statements
 * executed (MCP_RUN_TEST_POSTGRES_URL, a superuser login):
 * - a role that cannot lock: 3 statements per call, and its attempt to lock is refused;
 * - a role granted one lock function, and a role that can run a SECURITY DEFINER function that
 *   locks: 4 statements per call, and the lock a call takes is gone when the call ends;
 * - a superuser keeps the unlock.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { OpenedSource, SqlCapability, SqlQueryOptions } from '../../../../src/kinds/contract/kinds.js';
import { parseSqlParams } from '../../../../src/kinds/sql/params.js';
import { type PostgresConfig, postgresSource } from '../../../../src/kinds/sql/postgres/source.js';
import { PG_SKIP, PG_URL } from '../../../helpers/databases.js';
import { type PgProxy, pgProxy } from '../../../helpers/pg-proxy.js';
import { testContext } from '../../context.js';

const skip = PG_SKIP;
const id = randomBytes(4).toString('hex');
const database = `mcp_run_lockless_${id}`;
const role = (what: string) => `mcp_run_${what}_${id}`;
const NOLOCK = role('nolock');
const LOCKER = role('locker');
const DEFINER = role('definer');
const SESSION_LOCKS = [
  'pg_advisory_lock(bigint)',
  'pg_advisory_lock(integer,integer)',
  'pg_advisory_lock_shared(bigint)',
  'pg_advisory_lock_shared(integer,integer)',
  'pg_try_advisory_lock(bigint)',
  'pg_try_advisory_lock(integer,integer)',
  'pg_try_advisory_lock_shared(bigint)',
  'pg_try_advisory_lock_shared(integer,integer)',
];

const admin = new pg.Client({ connectionString: PG_URL });
let inDb: pg.Client;
let proxy: PgProxy;
const opened: OpenedSource[] = [];

const urlOf = (base: string, user?: string) => {
  const url = new URL(base);
  url.pathname = `/${database}`;
  if (user !== undefined) url.username = user;
  return url.toString();
};

async function open(user?: string, readRole?: string): Promise<SqlCapability> {
  const ctx = testContext({ baseDir: tmpdir(), name: 'db' });
  const source = await postgresSource.open(
    {
      url: urlOf(proxy.url, user),
      poolSize: 1,
      ...(readRole !== undefined && { role: readRole }),
    } as PostgresConfig,
    ctx,
  );
  assert.ok(source, JSON.stringify(ctx.errors));
  opened.push(source);
  return source.capabilities.sql as SqlCapability;
}

const options = (): SqlQueryOptions => ({
  maxRows: 10,
  timeoutMs: 5000,
  signal: new AbortController().signal,
});

/** Statements one warm one-row read runs on the server. */
async function statementsPerCall(sql: SqlCapability): Promise<number> {
  const read = parseSqlParams('SELECT id FROM t WHERE id = :id');
  await sql.query(read, [1], options());
  const before = proxy.executes;
  const r = await sql.query(read, [2], options());
  assert.deepEqual(r.rows, [{ id: 2 }]);
  return proxy.executes - before;
}

/** Advisory locks on key 42 held by any session of the database. */
async function locksHeld(): Promise<number> {
  const { rows } = await inDb.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = 42",
  );
  return rows[0]?.n ?? 0;
}

before(async () => {
  if (skip) return;
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  inDb = new pg.Client({ connectionString: urlOf(PG_URL as string) });
  await inDb.connect();
  await inDb.query('CREATE TABLE t (id int PRIMARY KEY)');
  await inDb.query('INSERT INTO t SELECT generate_series(1, 5)');
  // In this database only: nobody may take a session advisory lock unless granted.
  for (const fn of SESSION_LOCKS) await inDb.query(`REVOKE EXECUTE ON FUNCTION ${fn} FROM PUBLIC`);
  for (const r of [NOLOCK, LOCKER, DEFINER]) {
    await admin.query(`CREATE ROLE ${r} LOGIN`);
    await inDb.query(`GRANT SELECT ON t TO ${r}`);
  }
  await inDb.query(`GRANT EXECUTE ON FUNCTION pg_advisory_lock(bigint) TO ${LOCKER}`);
  await inDb.query(
    'CREATE FUNCTION take_lock() RETURNS void LANGUAGE sql SECURITY DEFINER AS $$ SELECT pg_advisory_lock(42) $$',
  );
  await inDb.query('REVOKE EXECUTE ON FUNCTION take_lock() FROM PUBLIC');
  // The classifier refuses pg_advisory_lock by name; a function of the caller's rights hides it.
  await inDb.query(
    'CREATE FUNCTION lock_as_caller() RETURNS void LANGUAGE sql AS $$ SELECT pg_advisory_lock(42) $$',
  );
  await inDb.query(`GRANT EXECUTE ON FUNCTION take_lock() TO ${DEFINER}`);
  await admin.query(`GRANT ${NOLOCK} TO ${LOCKER}`);
  proxy = await pgProxy(PG_URL as string, 'pass');
});

after(async () => {
  if (skip) return;
  for (const source of opened) await source.dispose?.();
  await proxy?.close();
  await inDb?.end();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  for (const r of [NOLOCK, LOCKER, DEFINER]) await admin.query(`DROP ROLE IF EXISTS ${r}`);
  await admin.end();
});

describe('pg_advisory_unlock_all() only where a lock can outlive the call', { skip }, () => {
  test('a role that cannot lock: BEGIN, the statement, ROLLBACK; its lock attempt is refused', async () => {
    const sql = await open(NOLOCK);
    assert.equal(await statementsPerCall(sql), 3);
    await assert.rejects(
      sql.query(parseSqlParams('SELECT lock_as_caller()'), [], options()),
      /permission denied/,
    );
    assert.equal(await locksHeld(), 0);
  });

  test('a role granted a lock function keeps the unlock: the lock of a call ends with it', async () => {
    const sql = await open(LOCKER);
    assert.equal(await statementsPerCall(sql), 4);
    await sql.query(parseSqlParams('SELECT lock_as_caller()'), [], options());
    assert.equal(await locksHeld(), 0, 'released before the connection went back to the pool');
  });

  test('a role that can run a SECURITY DEFINER function keeps the unlock', async () => {
    const sql = await open(DEFINER);
    assert.equal(await statementsPerCall(sql), 4);
    await sql.query(parseSqlParams('SELECT take_lock()'), [], options());
    assert.equal(await locksHeld(), 0);
  });

  test('a login that can lock keeps the unlock under a `role:` that cannot', async () => {
    // A statement can step back from the read role to the login's own rights inside a string
    // that query_to_xml runs, where the classifier sees no function name.
    const sql = await open(LOCKER, NOLOCK);
    const back = "query_to_xml('select set_config(''role'', ''none'', true)', true, false, '')";
    const lock = "query_to_xml('select lock_as_caller()', true, false, '')";
    await sql.query(parseSqlParams(`SELECT ${back}, ${lock}`), [], options());
    assert.equal(await locksHeld(), 0, 'the lock outlived the call');
  });

  test('a superuser keeps the unlock', async () => {
    assert.equal(await statementsPerCall(await open()), 4);
  });
});
