/**
 * Issue 13 on a real MariaDB/MySQL (MCP_RUN_TEST_MYSQL_URL, a root login): `sql-query` is not
 * served on an account with FILE, SUPER, PROCESS, … unless the source opts in; LOAD_FILE, GET_LOCK,
 * BENCHMARK and INTO OUTFILE are refused even on opted-in root; a connection's user locks are
 * released before the pool hands it on. Accounts and the database have unique names and are dropped.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { after, before, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import type { ToolResult } from '../../../../src/catalog/types.js';
import type { OpenedSource, SqlCapability } from '../../../../src/kinds/contract/kinds.js';
import { type MysqlConfig, mysqlSource } from '../../../../src/kinds/sql/mysql/source.js';
import { LEAST_PRIVILEGE_SQL } from '../../../../src/kinds/sql/privilege.js';
import { sqlQueryTool } from '../../../../src/kinds/sql/query-tool.js';
import { MYSQL_SKIP, MYSQL_URL, runSql } from '../../../helpers/databases.js';
import { callContext, testContext } from '../../context.js';

const skip = MYSQL_SKIP;
const id = randomBytes(4).toString('hex');
const database = `mcp_run_mypriv_${id}`;
const password = `pw_${id}`;
const users: string[] = [];
const opened: OpenedSource[] = [];
let admin: mysql.Connection;

const urlAs = (user?: string) => {
  const url = new URL(MYSQL_URL!);
  if (user) {
    url.username = user;
    url.password = password;
  }
  url.pathname = `/${database}`;
  return url.toString();
};

async function open(config: Partial<MysqlConfig>): Promise<SqlCapability> {
  const ctx = testContext({ baseDir: tmpdir(), name: 'db' });
  const source = await mysqlSource.open({ url: urlAs(), ...config } as MysqlConfig, ctx);
  assert.ok(source, JSON.stringify(ctx.errors));
  opened.push(source);
  return source.capabilities.sql!;
}

function compileQuery(sql: SqlCapability) {
  const ctx = testContext({ baseDir: '.', name: 'query', sources: { db: { sql } } });
  const tool = sqlQueryTool.compile({ kind: 'sql-query', source: 'db' }, ctx);
  return { tool, errors: ctx.errors };
}

/** An account that can read the test database, plus the given global privileges. */
async function account(what: string, global?: string): Promise<string> {
  const user = `mcp_${what}_${id}`;
  await admin.query(`CREATE USER '${user}'@'%' IDENTIFIED BY '${password}'`);
  users.push(user);
  await admin.query(`GRANT SELECT ON ${database}.* TO '${user}'@'%'`);
  if (global) await admin.query(`GRANT ${global} ON *.* TO '${user}'@'%'`);
  return user;
}

const text = (r: ToolResult) => (r.content[0] as { text: string }).text;

before(async () => {
  if (skip) return;
  admin = await mysql.createConnection({ uri: MYSQL_URL!, charset: 'utf8mb4' });
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.query(`CREATE TABLE ${database}.t (id INT PRIMARY KEY)`);
  await admin.query(`INSERT INTO ${database}.t VALUES (1), (2), (3)`);
});
after(async () => {
  if (skip) return;
  for (const source of opened) await source.dispose();
  for (const user of users) await admin.query(`DROP USER '${user}'@'%'`);
  await admin.query(`DROP DATABASE ${database}`);
  await admin.end();
});

describe('the account check', () => {
  test('root gets no sql-query: the error names the privileges and gives the SQL', { skip }, async () => {
    const { tool, errors } = compileQuery(await open({}));
    assert.equal(tool, undefined);
    assert.deepEqual(errors[0]!.at, ['source']);
    assert.match(
      errors[0]!.problem.message,
      /runs as account "root@[^"]+", which can escape read-only: .*ALL PRIVILEGES: every privilege/,
    );
    assert.ok(errors[0]!.problem.hint!.includes(LEAST_PRIVILEGE_SQL.mysql));
    assert.ok(compileQuery(await open({ allowPrivilegedRole: true })).tool);
  });

  for (const privilege of ['FILE', 'SUPER', 'PROCESS', 'SHUTDOWN', 'RELOAD', 'CREATE USER']) {
    test(`an account with ${privilege} gets no sql-query`, { skip }, async () => {
      const user = await account(privilege.replace(' ', '').toLowerCase(), privilege);
      const { tool, errors } = compileQuery(await open({ url: urlAs(user) }));
      assert.equal(tool, undefined);
      assert.match(errors[0]!.problem.message, new RegExp(`can escape read-only: ${privilege}: `));
    });
  }

  test('an account that can only read is served, and reads', { skip }, async () => {
    const user = await account('reader');
    const { tool, errors } = compileQuery(await open({ url: urlAs(user) }));
    assert.ok(tool, JSON.stringify(errors));
    const result = await tool.run({ sql: 'SELECT COUNT(*) AS n FROM t' }, callContext());
    assert.deepEqual((result.structuredContent as { rows: unknown[] }).rows, [{ n: 3 }]);
  });
});

describe('the side-effect functions are refused, even on opted-in root', () => {
  let tool: NonNullable<ReturnType<typeof compileQuery>['tool']>;
  const refused = async (sql: string, why: RegExp) => {
    const result = await tool.run({ sql }, callContext());
    assert.equal(result.isError, true, text(result));
    assert.match(text(result), why);
  };
  before(async () => {
    if (!skip) tool = compileQuery(await open({ allowPrivilegedRole: true })).tool!;
  });

  test('LOAD_FILE, GET_LOCK, RELEASE_LOCK, BENCHMARK, INTO OUTFILE / DUMPFILE', { skip }, async () => {
    await refused("SELECT LOAD_FILE('/etc/passwd')", /calls load_file, which acts outside/);
    await refused("SELECT `LOAD_FILE`('/etc/passwd')", /calls load_file/);
    await refused("SELECT load_file /* x */ ('/etc/passwd')", /calls load_file/);
    await refused("SELECT GET_LOCK('mcp', 0)", /calls get_lock/);
    await refused("SELECT RELEASE_LOCK('mcp')", /calls release_lock/);
    await refused("SELECT BENCHMARK(1000000000, MD5('x'))", /calls benchmark/);
    await refused(`SELECT * FROM t INTO OUTFILE '/tmp/${database}.txt'`, /contains INTO/);
    await refused(`SELECT id FROM t LIMIT 1 INTO DUMPFILE '/tmp/${database}.bin'`, /contains INTO/);
    // A backslash escapes in a MySQL string: the call after it is code, and is seen.
    await refused("SELECT 'a\\'', LOAD_FILE('/etc/passwd') -- '", /calls load_file/);
  });
});

describe('the pool resets each connection', () => {
  test('no user lock outlives its call', { skip }, async () => {
    // A writable source and a write call: the classifier is not asked, only the reset stands.
    const sql = await open({ readOnly: false, poolSize: 1 });
    const lock = `mcp_run_lock_${id}`;
    const got = await runSql(sql, `SELECT GET_LOCK('${lock}', 0) AS got`, [], { readOnly: false });
    assert.deepEqual(got.rows, [{ got: 1 }]);
    const [rows] = await admin.query<mysql.RowDataPacket[]>(`SELECT IS_FREE_LOCK('${lock}') AS free`);
    assert.equal(rows[0]!.free, 1);
  });
});
