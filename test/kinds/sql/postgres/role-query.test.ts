/**
 * Issue 42, item 3, on a real PostgreSQL (MCP_RUN_TEST_POSTGRES_URL, a superuser login): `role:`
 * does not bound SQL the model writes. A function that runs SQL from a string (`query_to_xml`,
 * `ts_stat`, …) can call `set_config('role', 'none', true)`, and what runs after it runs with the
 * login's rights. So `sql-query` is refused on a source with `role:` unless the source says
 * `allowSqlQueryWithRole: true`, and then the role check inspects the login too. Fixed `sql` tools
 * keep `role:`: their values are bound, so a caller cannot make them run SQL text.
 *
 * Two logins with more rights than their role: the superuser, and a login that is a member of
 * `pg_read_server_files` and may read a table the role may not. Every role and schema here has a
 * unique name and is dropped afterwards.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { ToolResult } from '../../../../src/catalog/types.js';
import type { OpenedSource, SqlCapability } from '../../../../src/kinds/contract/kinds.js';
import { type PostgresConfig, postgresSource } from '../../../../src/kinds/sql/postgres/source.js';
import { sqlQueryTool } from '../../../../src/kinds/sql/query-tool.js';
import { sqlTool } from '../../../../src/kinds/sql/sql-tool.js';
import { PG_SKIP, PG_URL } from '../../../helpers/databases.js';
import { tempFiles } from '../../../helpers/demo.js';
import { runCli } from '../../../helpers/run-cli.js';
import { callContext, testContext } from '../../context.js';

const skip = PG_SKIP;
const id = randomBytes(4).toString('hex');
const name = (what: string) => `mcp_run_${what}_${id}`;
const schema = name('rq');
/** The role every call runs as: it may read `open_t` only. */
const READER = name('rq_reader');
/** A login with more rights than READER: `secret`, and server files. */
const FILES = name('rq_files');
/** A login with more rights than READER (`secret`), and no power past read-only. */
const PLAIN = name('rq_plain');
const SECRET = 'only the login may read this';
const admin = new pg.Client({ connectionString: PG_URL });
const opened: OpenedSource[] = [];

/** The URL of a login role (trust authentication: no password needed). */
const urlAs = (login: string) => {
  const url = new URL(PG_URL!);
  url.username = login;
  return url.toString();
};

async function open(config: Partial<PostgresConfig>): Promise<SqlCapability> {
  const ctx = testContext({ baseDir: tmpdir(), name: 'db' });
  const source = await postgresSource.open(
    { url: PG_URL!, schemas: [schema], ...config } as PostgresConfig,
    ctx,
  );
  assert.ok(source, JSON.stringify(ctx.errors));
  opened.push(source);
  return source.capabilities.sql!;
}

function compileQuery(sql: SqlCapability) {
  const ctx = testContext({ baseDir: '.', name: 'query', sources: { db: { sql } } });
  const tool = sqlQueryTool.compile({ kind: 'sql-query', source: 'db' }, ctx);
  return { tool, errors: ctx.errors };
}

const text = (r: ToolResult) => (r.content[0] as { text: string }).text;
const rows = (r: ToolResult) => (r.structuredContent as { rows: Record<string, unknown>[] }).rows;

/** Steps back to the login inside a string, then reads what only the login may read. */
const BACK = "query_to_xml('select set_config(''role'', ''none'', true)', true, false, '')";
const nested = (sql: string) => `query_to_xml('${sql.replaceAll("'", "''")}', true, false, '')`;

before(async () => {
  if (skip) return;
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(`CREATE TABLE ${schema}.open_t (id int PRIMARY KEY)`);
  await admin.query(`INSERT INTO ${schema}.open_t VALUES (1), (2)`);
  await admin.query(`CREATE TABLE ${schema}.secret (s text)`);
  await admin.query(`INSERT INTO ${schema}.secret VALUES ($1)`, [SECRET]);
  await admin.query(`CREATE ROLE ${READER} NOLOGIN`);
  await admin.query(`CREATE ROLE ${FILES} LOGIN`);
  await admin.query(`CREATE ROLE ${PLAIN} LOGIN`);
  for (const r of [READER, FILES, PLAIN]) await admin.query(`GRANT USAGE ON SCHEMA ${schema} TO ${r}`);
  await admin.query(`GRANT SELECT ON ${schema}.open_t TO ${READER}`);
  for (const login of [FILES, PLAIN]) {
    await admin.query(`GRANT SELECT ON ${schema}.secret TO ${login}`);
    await admin.query(`GRANT ${READER} TO ${login}`);
  }
  // A login that reads server files: the membership (any path), and the function.
  await admin.query(`GRANT pg_read_server_files TO ${FILES}`);
  await admin.query(`GRANT EXECUTE ON FUNCTION pg_read_file(text) TO ${FILES}`);
});
after(async () => {
  if (skip) return;
  for (const source of opened) await source.dispose();
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  for (const r of [FILES, PLAIN, READER]) {
    await admin.query(`DROP OWNED BY ${r}`);
    await admin.query(`DROP ROLE ${r}`);
  }
  await admin.end();
});

describe('sql-query on a source with role:', () => {
  for (const [who, url] of [
    ['the superuser login', () => PG_URL!],
    ['a login in pg_read_server_files', () => urlAs(FILES)],
  ] as const) {
    test(`is refused through ${who}: the error says why and what to do instead`, { skip }, async () => {
      const { tool, errors } = compileQuery(await open({ url: url(), role: READER }));
      assert.equal(tool, undefined, 'sql-query was served under role:');
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.deepEqual(errors[0]!.at, ['source']);
      const { code, message, hint } = errors[0]!.problem;
      assert.equal(code, 'SQL_QUERY_WITH_ROLE');
      assert.match(message, new RegExp(`source "db" runs each call as role "${READER}"`));
      assert.match(message, /query_to_xml/);
      assert.match(message, /set_config\('role', 'none', true\)/);
      assert.match(message, /login "[^"]+"/);
      assert.match(hint!, /without `role:`/);
      assert.match(hint!, /allowSqlQueryWithRole: true/);
    });
  }
});

describe('allowSqlQueryWithRole: true serves it, and the limit it accepts is real', () => {
  test('nested SQL reads the table and the server files only the login may read', { skip }, async () => {
    // The login is a member of pg_read_server_files: it needs allowPrivilegedRole as well (below).
    const sql = await open({
      url: urlAs(FILES),
      role: READER,
      allowSqlQueryWithRole: true,
      allowPrivilegedRole: true,
    });
    const { tool, errors } = compileQuery(sql);
    assert.ok(tool, JSON.stringify(errors));
    const run = (text: string) => tool.run({ sql: text }, callContext());
    // Read directly, the role bounds the statement.
    const who = await run('SELECT current_user AS who, session_user AS login');
    assert.deepEqual(rows(who), [{ who: READER, login: FILES }]);
    const direct = await run('SELECT s FROM secret');
    assert.equal(direct.isError, true);
    assert.match(text(direct), /permission denied for table secret/);
    // Through a string, the login's rights come back: the table, and a server file.
    const leak = await run(`SELECT ${BACK} AS back, ${nested('SELECT s FROM secret')} AS leak`);
    assert.equal(leak.isError, undefined, text(leak));
    assert.match(String(rows(leak)[0]!.leak), new RegExp(SECRET));
    const path = `${(await admin.query("SELECT current_setting('data_directory') AS d")).rows[0].d}/PG_VERSION`;
    const version = (await admin.query('SELECT pg_read_file($1) AS v', [path])).rows[0].v.trim();
    const read = `SELECT pg_read_file('${path}') AS f`;
    assert.match(
      text(await run(`SELECT ${nested(read)} AS f`)),
      /permission denied for function pg_read_file/,
    );
    const file = await run(`SELECT ${BACK} AS back, ${nested(read)} AS f`);
    assert.match(String(rows(file)[0]!.f), new RegExp(`<f>${version}\\s*</f>`));
  });

  test('the role check then inspects the login too', { skip }, async () => {
    // The superuser login: the role can only read, but ad-hoc SQL reaches the login.
    const su = compileQuery(await open({ role: READER, allowSqlQueryWithRole: true }));
    assert.equal(su.tool, undefined);
    assert.equal(su.errors[0]!.problem.code, 'MANIFEST_INVALID_VALUE');
    assert.match(
      su.errors[0]!.problem.message,
      new RegExp(`role "${READER}" over the login "postgres" .*, which can escape read-only: .*superuser`),
    );
    // The hint does not suggest role: again: the source has one.
    assert.doesNotMatch(su.errors[0]!.problem.hint!, /add `role:/);
    assert.match(su.errors[0]!.problem.hint!, /allowPrivilegedRole: true/);
    const files = compileQuery(await open({ url: urlAs(FILES), role: READER, allowSqlQueryWithRole: true }));
    assert.equal(files.tool, undefined);
    assert.match(files.errors[0]!.problem.message, /member of pg_read_server_files/);
    // A login with no power past read-only is served with the opt-in alone.
    const plain = compileQuery(await open({ url: urlAs(PLAIN), role: READER, allowSqlQueryWithRole: true }));
    assert.ok(plain.tool, JSON.stringify(plain.errors));
  });
});

describe('fixed sql tools keep role:', () => {
  function compileSql(sql: SqlCapability, statement: string, input: Record<string, unknown> = {}) {
    const ctx = testContext({ baseDir: '.', name: 'fixed', sources: { db: { sql } } });
    const tool = sqlTool.compile({ kind: 'sql', source: 'db', sql: statement, input } as never, ctx);
    assert.ok(tool, JSON.stringify(ctx.errors));
    return tool;
  }

  for (const [who, url] of [
    ['the superuser login', () => PG_URL!],
    ['a login in pg_read_server_files', () => urlAs(FILES)],
  ] as const) {
    test(`through ${who}: they are served, run as the role, and are bounded by it`, { skip }, async () => {
      const sql = await open({ url: url(), role: READER });
      const reads = compileSql(sql, 'SELECT id, current_user AS who FROM open_t ORDER BY id');
      assert.deepEqual(rows(await reads.run({}, callContext())), [
        { id: 1, who: READER },
        { id: 2, who: READER },
      ]);
      const secret = await compileSql(sql, 'SELECT s FROM secret').run({}, callContext());
      assert.equal(secret.isError, true);
      assert.match(text(secret), /permission denied for table secret/);
      // A value is bound: the SQL in it is text, never run.
      const attack = `${BACK}, ${nested('SELECT s FROM secret')}`;
      const echo = compileSql(sql, 'SELECT :q::text AS q, current_user AS who', { q: { type: 'string' } });
      const result = await echo.run({ q: attack }, callContext());
      assert.deepEqual(rows(result), [{ q: attack, who: READER }]);
    });
  }
});

describe('mcp-run validate', () => {
  const manifest = tempFiles({
    'mcp.yaml': [
      'sources:',
      '  db:',
      '    kind: postgres',
      `    url: ${JSON.stringify(skip ? '' : urlAs(FILES))}`,
      `    role: ${READER}`,
      'tools:',
      '  fixed: { kind: sql, source: db, sql: SELECT 1 AS one }',
      '  query: { kind: sql-query, source: db }',
      '',
    ].join('\n'),
  });
  after(manifest.cleanup);

  test('reports the refusal at the tool, with file:line:col', { skip }, () => {
    const run = runCli(['validate', 'mcp.yaml'], {
      cwd: manifest.dir,
      env: { PATH: process.env.PATH },
    });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /error\[SQL_QUERY_WITH_ROLE\] mcp\.yaml:8:\d+ tools\.query\.source/);
    assert.match(run.stderr, /allowSqlQueryWithRole: true/);
    assert.doesNotMatch(run.stderr, /tools\.fixed/);
  });
});
