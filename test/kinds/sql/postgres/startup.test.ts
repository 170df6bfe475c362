/**
 * The session defaults a `postgres` source sends as startup `options` (src/kinds/sql/postgres/startup.ts), on a real
 * PostgreSQL (MCP_RUN_TEST_POSTGRES_URL): a read-only call at the defaults runs without the
 * set_config step, yet the server still stops it at the timeout, nothing a call sets outlives it
 * (ROLLBACK, DISCARD ALL), the connection starts read-only (a read's plain BEGIN cannot write, even
 * after a read turned the session's default off; a write says READ WRITE), and a connection whose
 * options were dropped or refused (a pooler, through
 * a relay that does what PgBouncer does) keeps the step. The relay also counts the statements each
 * call sends.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { after, before, describe, test } from 'node:test';
import type { SqlCapability } from '../../../../src/kinds/contract/kinds.js';
import { type PostgresConfig, postgresSource } from '../../../../src/kinds/sql/postgres/source.js';
import { escapeOption, mergeOptions, startupOptions } from '../../../../src/kinds/sql/postgres/startup.js';
import { createDatabase, PG_SKIP, runSql, type TestDatabase, until } from '../../../helpers/databases.js';
import { type OptionsMode, type PgProxy, pgProxy } from '../../../helpers/pg-proxy.js';
import { testContext } from '../../context.js';

const skip = PG_SKIP;
let db: TestDatabase;
const closers: (() => Promise<void>)[] = [];

before(async () => {
  if (skip) return;
  db = await createDatabase('postgres', 'pgstart');
  // A function that changes the session's settings (not just the transaction's): the classifier
  // refuses set_config by name, a function in the database is the way round it.
  await db.admin(`CREATE FUNCTION leak_settings() RETURNS text LANGUAGE sql AS $$
    SELECT set_config('statement_timeout', '0', false) || set_config('search_path', 'pg_catalog', false)
      || set_config('standard_conforming_strings', 'off', false) $$`);
  // A write the statement check cannot see (no word that writes), and a function that would make
  // every later transaction of the session read-write.
  await db.admin('CREATE TABLE written (n int)');
  await db.admin(`CREATE FUNCTION write_row() RETURNS int LANGUAGE sql AS $$
    INSERT INTO written VALUES (1) RETURNING n $$`);
  await db.admin(`CREATE FUNCTION leak_read_write() RETURNS text LANGUAGE sql AS $$
    SELECT set_config('default_transaction_read_only', 'off', false) $$`);
});
after(async () => {
  for (const close of closers.reverse()) await close();
  await db?.drop();
});

/** The settings the defaults are about, and where each came from (pg_settings.source). */
const SETTINGS = `SELECT current_setting('statement_timeout') AS timeout,
  (SELECT source FROM pg_settings WHERE name = 'statement_timeout') AS from,
  current_setting('search_path') AS path, current_setting('standard_conforming_strings') AS scs`;

const TIMEOUT = 1500;

/** A source (one connection, timeoutMs TIMEOUT unless set), its log, and the relay it goes through. */
async function open(extra: Partial<PostgresConfig> = {}, mode?: OptionsMode) {
  let proxy: PgProxy | undefined;
  let url = (extra.url ?? db.config.url) as string;
  if (mode) {
    proxy = await pgProxy(url, mode);
    closers.push(() => proxy!.close());
    url = proxy.url;
  }
  const ctx = testContext({ baseDir: tmpdir(), name: 'db' });
  const config = { ...db.config, poolSize: 1, timeoutMs: TIMEOUT, ...extra, url } as PostgresConfig;
  const opened = await postgresSource.open(config, ctx);
  assert.ok(opened, JSON.stringify(ctx.errors));
  closers.push(() => opened.dispose());
  const sql = opened.capabilities.sql as SqlCapability;
  const path = sql.quoteIdentifier((db.config.schemas as string[])[0]!);
  return { sql, proxy, logs: ctx.logs, path };
}

/** A read that writes through a function is refused by the transaction, and wrote nothing. */
async function refusesWrites(sql: SqlCapability): Promise<void> {
  await assert.rejects(
    runSql(sql, 'SELECT write_row() AS n', [], { timeoutMs: TIMEOUT, readOnly: true }),
    /read-only transaction/,
  );
  assert.deepEqual(await db.admin('SELECT count(*)::int AS n FROM written'), [{ n: 0 }]);
}

/** The statements one call sends (Execute messages on the wire). */
async function executes(proxy: PgProxy, call: () => Promise<unknown>): Promise<number> {
  proxy.executes = 0;
  await call();
  return proxy.executes;
}

describe('the options text', () => {
  test('spaces, tabs, newlines and backslashes are escaped with a backslash; nothing else is', () => {
    assert.equal(escapeOption('"a b"\t\\c\n, public'), '"a\\ b"\\\t\\\\c\\\n,\\ public');
    assert.equal(escapeOption(`"Schéma_""x"""`), `"Schéma_""x"""`);
    assert.equal(
      startupOptions([
        ['statement_timeout', '1500'],
        ['search_path', '"a b", c'],
      ]),
      '-c statement_timeout=1500 -c search_path="a\\ b",\\ c',
    );
    // Past the cap, no options at all (the step then stays).
    assert.equal(startupOptions([['search_path', 'x'.repeat(5000)]]), undefined);
  });

  test("the user's options come first, ours after (the last -c wins); a dangling backslash keeps theirs", () => {
    assert.equal(mergeOptions(undefined, '-c a=1'), '-c a=1');
    assert.equal(mergeOptions('  ', '-c a=1'), '-c a=1');
    assert.equal(mergeOptions('-c a=0', '-c a=1'), '-c a=0 -c a=1');
    assert.equal(mergeOptions('-c a=x\\\\', '-c a=1'), '-c a=x\\\\ -c a=1');
    // "x\" would escape the space before ours and swallow our first word.
    assert.equal(mergeOptions('-c a=x\\', '-c a=1'), '-c a=x\\');
  });
});

describe('a source whose connections start with its defaults', () => {
  test('a read at the defaults sends no settings step, and runs under the defaults', { skip }, async () => {
    const { sql, proxy, path } = await open({}, 'pass');
    const first = await runSql(sql, SETTINGS, [], { timeoutMs: TIMEOUT });
    // "client": the value came with the connection, not from a set_config of the call.
    assert.deepEqual(first.rows, [{ timeout: `${TIMEOUT}ms`, from: 'client', path, scs: 'on' }]);
    // BEGIN, the statement, pg_advisory_unlock_all(), ROLLBACK.
    assert.equal(await executes(proxy!, () => runSql(sql, 'SELECT 1 AS one', [], { timeoutMs: TIMEOUT })), 4);
  });

  test('the connection starts read-only: a plain BEGIN reads, and cannot write', { skip }, async () => {
    const { sql } = await open();
    const { rows } = await runSql(
      sql,
      `SELECT current_setting('transaction_read_only') AS ro,
         (SELECT source FROM pg_settings WHERE name = 'default_transaction_read_only') AS from`,
      [],
      { timeoutMs: TIMEOUT },
    );
    assert.deepEqual(rows, [{ ro: 'on', from: 'client' }]);
    await refusesWrites(sql);
    // With another timeout too (BEGIN, then the settings step).
    await assert.rejects(runSql(sql, 'SELECT write_row() AS n', [], { timeoutMs: 2500 }), /read-only/);
  });

  test('a read that turns the session default read-write does not reach the next call', {
    skip,
  }, async () => {
    const { sql } = await open();
    const leaked = await runSql(sql, 'SELECT leak_read_write() AS x', [], { timeoutMs: TIMEOUT });
    assert.deepEqual(leaked.rows, [{ x: 'off' }]);
    // The same connection (poolSize 1): its ROLLBACK undid the session-level set_config.
    await refusesWrites(sql);
  });

  test('a write begins READ WRITE on a connection that started read-only', { skip }, async () => {
    const { sql } = await open({ readOnly: false });
    const { rows } = await runSql(sql, 'INSERT INTO written VALUES (2) RETURNING n', [], {
      timeoutMs: TIMEOUT,
    });
    assert.deepEqual(rows, [{ n: 2 }]);
    await db.admin('DELETE FROM written');
    // A read on the same connection after it (DISCARD ALL) is read-only again.
    await refusesWrites(sql);
  });

  test('a tool with its own timeoutMs still gets it, through the settings step', { skip }, async () => {
    const { sql, proxy, path } = await open({}, 'pass');
    await runSql(sql, 'SELECT 1 AS one', [], { timeoutMs: TIMEOUT });
    for (const timeoutMs of [2500, 999]) {
      const { rows } = await runSql(sql, SETTINGS, [], { timeoutMs });
      assert.deepEqual(rows, [{ timeout: `${timeoutMs}ms`, from: 'session', path, scs: 'on' }]);
      assert.equal(await executes(proxy!, () => runSql(sql, 'SELECT 1 AS one', [], { timeoutMs })), 5);
    }
    // And the next call at the default is back on the connection's own value.
    const { rows } = await runSql(sql, SETTINGS, [], { timeoutMs: TIMEOUT });
    assert.deepEqual(rows, [{ timeout: `${TIMEOUT}ms`, from: 'client', path, scs: 'on' }]);
  });

  test('a call at the default timeout is stopped by the server itself', { skip }, async () => {
    const name = `mcp_run_sleep_${randomBytes(4).toString('hex')}`;
    const url = new URL(db.config.url as string);
    url.searchParams.set('application_name', name);
    const { sql, proxy } = await open({ url: url.toString() }, 'pass');
    await runSql(sql, 'SELECT 1 AS one', [], { timeoutMs: TIMEOUT });
    // The client's own cancel needs a connection of its own: none is let through, so only the
    // server's statement_timeout can stop the sleep before it ends (in 30 s, past `until`'s 10 s).
    proxy!.onlyOne = true;
    await assert.rejects(
      runSql(sql, 'SELECT pg_sleep(30)', [], { timeoutMs: TIMEOUT }),
      new RegExp(`took longer than ${TIMEOUT} ms and was stopped`),
    );
    await until(async () => {
      const rows = await db.admin(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = '${name}' AND query LIKE '%pg_sleep%' AND state = 'active'`,
      );
      return rows[0]!.n === 0;
    });
    assert.equal(proxy!.connections, 1);
  });

  test('settings a read-only call makes for the session do not reach the next call', { skip }, async () => {
    const { sql, path } = await open();
    const leaked = await runSql(sql, 'SELECT leak_settings() AS x', [], { timeoutMs: TIMEOUT });
    assert.deepEqual(leaked.rows, [{ x: '0pg_catalogoff' }]);
    // The same connection (poolSize 1), no settings step: only the ROLLBACK undid them.
    const { rows } = await runSql(sql, SETTINGS, [], { timeoutMs: TIMEOUT });
    assert.deepEqual(rows, [{ timeout: `${TIMEOUT}ms`, from: 'client', path, scs: 'on' }]);
  });

  test('after a write call (DISCARD ALL) the next read has the defaults again', { skip }, async () => {
    const { sql, path } = await open({ readOnly: false });
    // A write commits: its session settings stand until DISCARD ALL, whose RESET ALL goes back to
    // the values the connection started with.
    await runSql(sql, 'SELECT leak_settings() AS x', [], { timeoutMs: TIMEOUT });
    const { rows } = await runSql(sql, SETTINGS, [], { timeoutMs: TIMEOUT, readOnly: true });
    assert.deepEqual(rows, [{ timeout: `${TIMEOUT}ms`, from: 'client', path, scs: 'on' }]);
  });

  test("the URL's own options stay; the source's defaults win over them", { skip }, async () => {
    const url = new URL(db.config.url as string);
    url.searchParams.set('options', '-c statement_timeout=0 -c work_mem=7MB -c search_path=public');
    const { sql, path } = await open({ url: url.toString() });
    const { rows } = await runSql(sql, `${SETTINGS}, current_setting('work_mem') AS mem`, [], {
      timeoutMs: TIMEOUT,
    });
    assert.deepEqual(rows, [{ timeout: `${TIMEOUT}ms`, from: 'client', path, scs: 'on', mem: '7MB' }]);
  });

  test('a schema name with spaces, a tab and a backslash reaches the server whole', { skip }, async () => {
    const schema = `mcp_run_${randomBytes(4).toString('hex')} a\\b\tc`;
    const q = (s: string) => `"${s.replaceAll('"', '""')}"`;
    await db.admin(`CREATE SCHEMA ${q(schema)}`);
    closers.push(async () => void (await db.admin(`DROP SCHEMA ${q(schema)} CASCADE`)));
    await db.admin(`CREATE TABLE ${q(schema)}.t AS SELECT 42 AS n`);
    const { sql } = await open({ schemas: [schema] });
    const { rows } = await runSql(
      sql,
      `SELECT current_setting('search_path') AS path,
         (SELECT source FROM pg_settings WHERE name = 'search_path') AS from, (SELECT n FROM t) AS n`,
      [],
      { timeoutMs: TIMEOUT },
    );
    assert.deepEqual(rows, [{ path: q(schema), from: 'client', n: 42 }]);
  });

  test('with role: the settings step stays on every call', { skip }, async () => {
    const { sql, proxy } = await open({ role: 'pg_read_all_data' }, 'pass');
    const who = await runSql(sql, 'SELECT current_user AS who', [], { timeoutMs: TIMEOUT });
    assert.deepEqual(who.rows, [{ who: 'pg_read_all_data' }]);
    assert.equal(await executes(proxy!, () => runSql(sql, 'SELECT 1 AS one', [], { timeoutMs: TIMEOUT })), 5);
  });
});

describe('a pooler in between', () => {
  test('options dropped on the way: the connection keeps the settings step', { skip }, async () => {
    const { sql, proxy, path, logs } = await open({}, 'drop');
    const { rows } = await runSql(sql, SETTINGS, [], { timeoutMs: TIMEOUT });
    assert.deepEqual(rows, [{ timeout: `${TIMEOUT}ms`, from: 'session', path, scs: 'on' }]);
    assert.equal(await executes(proxy!, () => runSql(sql, 'SELECT 1 AS one', [], { timeoutMs: TIMEOUT })), 5);
    // The session is not read-only by default here: the read begins READ ONLY.
    await refusesWrites(sql);
    assert.ok(
      logs.some((l) => /connection options did not take effect/.test(l)),
      logs.join('\n'),
    );
  });

  test('options refused: the source connects without them and keeps the step', { skip }, async () => {
    const url = new URL(db.config.url as string);
    url.password = 'hunter2-secret'; // trust authentication: never asked for, but in the URL
    const { sql, proxy, path, logs } = await open({ url: url.toString() }, 'refuse');
    const { rows } = await runSql(sql, SETTINGS, [], { timeoutMs: TIMEOUT });
    assert.deepEqual(rows, [{ timeout: `${TIMEOUT}ms`, from: 'session', path, scs: 'on' }]);
    assert.equal(await executes(proxy!, () => runSql(sql, 'SELECT 1 AS one', [], { timeoutMs: TIMEOUT })), 5);
    assert.ok(
      logs.some((l) => /refused the connection options/.test(l)),
      logs.join('\n'),
    );
    assert.doesNotMatch(logs.join('\n'), /hunter2/);
  });
});
