/**
 * Issue 13 on a real PostgreSQL (MCP_RUN_TEST_POSTGRES_URL, a superuser login): `sql-query` is not
 * served on a role that can escape read-only unless the source opts in; `role:` with
 * `allowSqlQueryWithRole` serves through a restricted role (role-query.test.ts: why it needs that);
 * the classifier refuses the side-effect functions even on an opted-in superuser,
 * and nothing happens on the server; a connection is reset before the pool hands it on. Every role,
 * schema and database here has a unique name and is dropped afterwards.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { ToolResult } from '../../../../src/catalog/types.js';
import type { OpenedSource, SqlCapability } from '../../../../src/kinds/contract/kinds.js';
import { type PostgresConfig, postgresSource } from '../../../../src/kinds/sql/postgres/source.js';
import { LEAST_PRIVILEGE_SQL } from '../../../../src/kinds/sql/privilege.js';
import { sqlQueryTool } from '../../../../src/kinds/sql/query-tool.js';
import { PG_SKIP, PG_URL, runSql } from '../../../helpers/databases.js';
import { callContext, testContext } from '../../context.js';

const skip = PG_SKIP;
const id = randomBytes(4).toString('hex');
const name = (what: string) => `mcp_run_${what}_${id}`;
const schema = name('priv');
const admin = new pg.Client({ connectionString: PG_URL });
const opened: OpenedSource[] = [];
const roles: string[] = [];

async function open(config: Partial<PostgresConfig>): Promise<SqlCapability> {
  const ctx = testContext({ baseDir: tmpdir(), name: 'db' });
  const source = await postgresSource.open({ url: PG_URL!, ...config } as PostgresConfig, ctx);
  assert.ok(source, JSON.stringify(ctx.errors));
  opened.push(source);
  return source.capabilities.sql!;
}

/** The URL of a login role (trust authentication: no password needed). */
const urlAs = (role: string) => {
  const url = new URL(PG_URL!);
  url.username = role;
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
};

function compileQuery(sql: SqlCapability) {
  const ctx = testContext({ baseDir: '.', name: 'query', sources: { db: { sql } } });
  const tool = sqlQueryTool.compile({ kind: 'sql-query', source: 'db' }, ctx);
  return { tool, errors: ctx.errors };
}

/** A login role with the given options, then each statement (`{R}` stands for its name). */
async function role(what: string, options: string, ...then: string[]): Promise<string> {
  const r = name(what);
  await admin.query(`CREATE ROLE ${r} ${options.includes('NOLOGIN') ? '' : 'LOGIN '}${options}`);
  roles.push(r);
  await admin.query(`GRANT USAGE ON SCHEMA ${schema} TO ${r}`);
  await admin.query(`GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${r}`);
  for (const statement of then) await admin.query(statement.replaceAll('{R}', r));
  return r;
}

before(async () => {
  if (skip) return;
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(`CREATE TABLE ${schema}.t (id int PRIMARY KEY)`);
  await admin.query(`INSERT INTO ${schema}.t SELECT generate_series(1, 5)`);
});
after(async () => {
  if (skip) return;
  for (const source of opened) await source.dispose();
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  for (const r of roles.reverse()) {
    await admin.query(`DROP OWNED BY ${r}`).catch(() => undefined);
    await admin.query(`DROP ROLE ${r}`);
  }
  await admin.end();
});

const text = (r: ToolResult) => (r.content[0] as { text: string }).text;

describe('the role check', () => {
  test('a superuser login gets no sql-query: the error names the power and gives the SQL', {
    skip,
  }, async () => {
    const { tool, errors } = compileQuery(await open({}));
    assert.equal(tool, undefined);
    assert.deepEqual(errors[0]!.at, ['source']);
    assert.equal(errors[0]!.problem.code, 'MANIFEST_INVALID_VALUE');
    assert.match(
      errors[0]!.problem.message,
      /runs as role "postgres", which can escape read-only: superuser/,
    );
    assert.ok(errors[0]!.problem.hint!.includes(LEAST_PRIVILEGE_SQL.postgres));
    assert.match(errors[0]!.problem.hint!, /allowPrivilegedRole: true/);
    assert.match(errors[0]!.problem.hint!, /role: mcp_reader/);
  });

  test('allowPrivilegedRole: true serves it, with a warning', { skip }, async () => {
    assert.ok(compileQuery(await open({ allowPrivilegedRole: true })).tool);
  });

  const dangerous: [string, string, string[], RegExp][] = [
    ['rsf', '', ['GRANT pg_read_server_files TO {R}'], /member of pg_read_server_files/],
    ['wsf', '', ['GRANT pg_write_server_files TO {R}'], /member of pg_write_server_files/],
    ['esp', '', ['GRANT pg_execute_server_program TO {R}'], /member of pg_execute_server_program/],
    ['sig', '', ['GRANT pg_signal_backend TO {R}'], /member of pg_signal_backend/],
    // Membership through another role counts, NOINHERIT or not: SET ROLE reaches it.
    [
      'via',
      'NOINHERIT',
      [`GRANT pg_signal_backend TO ${name('rsf')}`, `GRANT ${name('rsf')} TO {R}`],
      /pg_signal_backend/,
    ],
    ['cr', 'CREATEROLE', [], /CREATEROLE/],
    ['repl', 'REPLICATION', [], /REPLICATION/],
    ['fn', '', ['GRANT EXECUTE ON FUNCTION pg_read_file(text) TO {R}'], /EXECUTE on pg_read_file\(text\)/],
  ];
  for (const [what, options, grants, reason] of dangerous) {
    test(`a login with ${reason.source} gets no sql-query`, { skip }, async () => {
      const r = await role(what, options, ...grants);
      const { tool, errors } = compileQuery(await open({ url: urlAs(r) }));
      assert.equal(tool, undefined);
      assert.match(errors[0]!.problem.message, reason);
      assert.doesNotMatch(errors[0]!.problem.message, /superuser/);
    });
  }

  test('a role that can only read (and read stats, pg_monitor) is served', { skip }, async () => {
    const r = await role('reader', '', 'GRANT pg_monitor TO {R}');
    const sql = await open({ url: urlAs(r) });
    const { tool, errors } = compileQuery(sql);
    assert.ok(tool, JSON.stringify(errors));
    const result = await tool.run(
      { sql: 'SELECT count(*)::int AS n, current_user AS who FROM t' },
      callContext(),
    );
    assert.deepEqual((result.structuredContent as { rows: unknown[] }).rows, [{ n: 5, who: r }]);
  });

  test('role: serves a superuser login through a restricted role, and checks that role', {
    skip,
  }, async () => {
    // sql-query under role: needs its own opt-in, and the superuser login counts: both opt-ins.
    const reader = await role('through', 'NOLOGIN');
    const sql = await open({
      role: reader,
      schemas: [schema],
      allowSqlQueryWithRole: true,
      allowPrivilegedRole: true,
    });
    const { tool, errors } = compileQuery(sql);
    assert.ok(tool, JSON.stringify(errors));
    const who = await tool.run({ sql: 'SELECT current_user AS who, session_user AS login' }, callContext());
    assert.deepEqual((who.structuredContent as { rows: unknown[] }).rows, [
      { who: reader, login: 'postgres' },
    ]);
    // The effective role is checked, not the login: a role: with a dangerous membership is refused.
    const reads = await role('through_files', 'NOLOGIN', 'GRANT pg_read_server_files TO {R}');
    const refused = compileQuery(await open({ role: reads, schemas: [schema], allowSqlQueryWithRole: true }));
    assert.equal(refused.tool, undefined);
    assert.match(refused.errors[0]!.problem.message, new RegExp(`role "${reads}".*pg_read_server_files`));
  });

  test('role: is checked again on every call, as SET ROLE checks it', { skip }, async () => {
    // Each call sets the role with set_config('role', …, true): the server's own check of SET ROLE.
    const reader = await role('granted', 'NOLOGIN');
    const login = await role('member', '', `GRANT ${reader} TO {R}`);
    const sql = await open({ url: urlAs(login), role: reader, poolSize: 1 });
    const who = 'SELECT current_user AS who, session_user AS login';
    assert.deepEqual((await runSql(sql, who)).rows, [{ who: reader, login }]);
    await admin.query(`REVOKE ${reader} FROM ${login}`);
    await assert.rejects(runSql(sql, who), /permission denied to set role/);
  });

  test('a role: the login cannot SET is an open failure', { skip }, async () => {
    const r = await role('plain', '');
    const ctx = testContext({ baseDir: tmpdir(), name: 'db' });
    assert.equal(await postgresSource.open({ url: urlAs(r), role: 'pg_read_server_files' }, ctx), undefined);
    assert.match(ctx.errors[0]!.problem.message, /permission denied to set role "pg_read_server_files"/);
  });

  test('the least-privilege SQL of the docs creates a role that is served', { skip }, async () => {
    const r = name('docs');
    const sql = LEAST_PRIVILEGE_SQL.postgres
      .replaceAll('mcp_reader', r)
      .replaceAll(' app ', ` ${(await admin.query('SELECT current_database() AS d')).rows[0].d} `)
      .replaceAll('public', schema);
    await admin.query(sql);
    roles.push(r);
    assert.ok(compileQuery(await open({ url: urlAs(r) })).tool);
  });
});

describe('the side-effect functions are refused, even on an opted-in superuser', () => {
  let tool: NonNullable<ReturnType<typeof compileQuery>['tool']>;
  const file = join(tmpdir(), `${name('export')}.txt`);
  const other = new pg.Client({ connectionString: PG_URL });
  const query = async (sql: string) => tool.run({ sql }, callContext());
  const refused = async (sql: string, fn: string) => {
    const result = await query(sql);
    assert.equal(result.isError, true, text(result));
    assert.match(text(result), new RegExp(`calls ${fn}, which acts outside the read-only transaction`));
  };
  before(async () => {
    if (skip) return;
    tool = compileQuery(await open({ allowPrivilegedRole: true, schemas: [schema] })).tool!;
    await other.connect();
  });
  after(async () => {
    if (!skip) await other.end();
  });

  test('server files: pg_read_file, pg_read_binary_file, pg_ls_dir, pg_stat_file, lo_export', {
    skip,
  }, async () => {
    await refused("SELECT pg_read_file('/etc/passwd')", 'pg_read_file');
    await refused("SELECT pg_catalog.pg_read_binary_file('/etc/passwd')", 'pg_read_binary_file');
    await refused("SELECT * FROM pg_ls_dir('/')", 'pg_ls_dir');
    await refused("SELECT pg_stat_file('/etc/passwd')", 'pg_stat_file');
    await refused(`SELECT lo_export(lo_from_bytea(0, 'x'), '${file}')`, 'lo_export');
    // Quoted, schema-qualified, or with a comment before the parenthesis: the same function.
    await refused(`SELECT pg_catalog."pg_read_file"('/etc/passwd')`, 'pg_read_file');
    await refused(`SELECT pg_read_file /* x */ ('/etc/passwd')`, 'pg_read_file');
    const escaped = await query(`SELECT U&"\\0070g_read_file"('/etc/passwd')`);
    assert.match(text(escaped), /calls a function whose name is written with escapes/);
    assert.equal(existsSync(file), false);
  });

  test('other sessions and the server: pg_terminate_backend, pg_cancel_backend, pg_reload_conf', {
    skip,
  }, async () => {
    const pid = (await other.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    await refused(`SELECT pg_terminate_backend(${pid})`, 'pg_terminate_backend');
    await refused(`SELECT pg_cancel_backend(${pid})`, 'pg_cancel_backend');
    await refused('SELECT pg_reload_conf()', 'pg_reload_conf');
    await refused('SELECT pg_rotate_logfile()', 'pg_rotate_logfile');
    assert.deepEqual((await other.query('SELECT 1 AS alive')).rows, [{ alive: 1 }]);
  });

  test('locks and settings: pg_advisory_*, set_config; COPY … PROGRAM', { skip }, async () => {
    await refused('SELECT pg_advisory_lock(42)', 'pg_advisory_lock');
    await refused('SELECT pg_try_advisory_xact_lock(42)', 'pg_try_advisory_xact_lock');
    await refused("SELECT set_config('transaction_read_only', 'off', true)", 'set_config');
    const copy = await query(`COPY (SELECT 1) TO PROGRAM 'touch ${file}'`);
    assert.equal(copy.isError, true);
    assert.equal(existsSync(file), false);
  });

  test("a standard string: name'\\' ends at the second quote, as the server reads it", { skip }, async () => {
    // The checker used to read this as an E'…' string (the e of "name"), and so missed the call.
    await refused(`SELECT name'\\' AS a, pg_ls_dir('/') AS b --'`, 'pg_ls_dir');
    const plain = await query(`SELECT name'\\' AS a`);
    assert.deepEqual((plain.structuredContent as { rows: unknown[] }).rows, [{ a: '\\' }]);
    // E'…' still escapes: the DELETE is inside the string there.
    const escaped = await query(`SELECT E'\\'; DELETE FROM t; --' AS s`);
    assert.deepEqual((escaped.structuredContent as { rows: unknown[] }).rows, [
      { s: "'; DELETE FROM t; --" },
    ]);
  });
});

describe('dblink', () => {
  // An extension is per database: a database of its own keeps other workers' databases untouched.
  const database = name('dblink');
  let available = false;
  before(async () => {
    if (skip) return;
    const found = await admin.query("SELECT 1 FROM pg_available_extensions WHERE name = 'dblink'");
    available = found.rows.length > 0;
    if (!available) return;
    await admin.query(`CREATE DATABASE ${database}`);
  });
  after(async () => {
    if (!skip && available) await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
  });

  test('dblink_exec cannot run a DELETE on another connection', { skip }, async (t) => {
    if (!available) {
      t.diagnostic('dblink is not installed here: only the classifier was checked');
    }
    const url = new URL(PG_URL!);
    url.pathname = `/${database}`;
    let sql: SqlCapability;
    if (available) {
      const setup = new pg.Client({ connectionString: url.toString() });
      await setup.connect();
      await setup.query('CREATE EXTENSION dblink');
      await setup.query('CREATE TABLE t (id int)');
      await setup.query('INSERT INTO t VALUES (1), (2)');
      await setup.end();
      sql = await open({ url: url.toString(), allowPrivilegedRole: true });
    } else {
      sql = await open({ allowPrivilegedRole: true });
    }
    const tool = compileQuery(sql).tool!;
    const connstr = `dbname=${database} user=postgres host=127.0.0.1`;
    for (const attack of [
      `SELECT dblink_exec('${connstr}', 'DELETE FROM t')`,
      `SELECT * FROM dblink('${connstr}', 'DELETE FROM t RETURNING id') AS x(id int)`,
      `SELECT public.dblink_connect('c', '${connstr}')`,
    ]) {
      const result = await tool.run({ sql: attack }, callContext());
      assert.equal(result.isError, true, text(result));
      assert.match(text(result), /calls dblink(_exec|_connect)?, which acts outside/);
    }
    if (available) {
      // Through a writable source the same call would have deleted the rows: the test can fail.
      const rows = await runSql(sql, 'SELECT count(*)::int AS n FROM t');
      assert.deepEqual(rows.rows, [{ n: 2 }]);
    }
  });
});

describe('the pool resets each connection', () => {
  test('no advisory lock or session setting outlives its call', { skip }, async () => {
    // A writable source and a write call: the classifier is not asked, only the reset stands.
    const sql = await open({ readOnly: false, poolSize: 1 });
    const key = Number.parseInt(id, 16) % 1_000_000_000;
    const write = { readOnly: false };
    await runSql(sql, `SELECT pg_advisory_lock(${key})`, [], write);
    await runSql(sql, "SELECT set_config('application_name', 'leaked', false)", [], write);
    const locks = await admin.query(
      "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1",
      [key],
    );
    assert.deepEqual(locks.rows, [{ n: 0 }]);
    const name = await runSql(sql, 'SHOW application_name', [], write);
    assert.notEqual(name.rows[0]!.application_name, 'leaked');
  });
});
