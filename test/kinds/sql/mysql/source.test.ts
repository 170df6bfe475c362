/**
 * The `mysql` source against a real MariaDB (or MySQL) server (MCP_RUN_TEST_MYSQL_URL): opening and
 * its failures, binding and value types, the row cap and continuation offset, writes where allowed,
 * and a time limit or a cancellation that stops the query on the server (checked in PROCESSLIST).
 */
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { after, before, test } from 'node:test';
import type { SqlCapability } from '../../../../src/kinds/contract/kinds.js';
import { type MysqlConfig, mysqlSource } from '../../../../src/kinds/sql/mysql/source.js';
import {
  CUSTOMERS,
  cancelledWhileWaiting,
  createDatabase,
  ITEMS,
  MYSQL_SKIP,
  MYSQL_URL,
  runSql,
  type TestDatabase,
  until,
} from '../../../helpers/databases.js';
import { testContext } from '../../context.js';

const skip = MYSQL_SKIP;
let db: TestDatabase;
let ro: SqlCapability;
let rw: SqlCapability;
let database: string;
const closers: (() => Promise<void>)[] = [];

before(async () => {
  if (skip) return;
  db = await createDatabase('mysql', 'my');
  database = new URL(String(db.config.url)).pathname.slice(1);
  for (const readOnly of [true, false]) {
    const { sql, opened } = await db.open({ readOnly, maxRows: 3, timeoutMs: 4000 });
    if (readOnly) ro = sql;
    else rw = sql;
    closers.push(() => opened.dispose());
  }
});
after(async () => {
  for (const close of closers) await close();
  await db?.drop();
});

const run = runSql;

async function openFails(config: MysqlConfig) {
  const ctx = testContext({ baseDir: tmpdir(), name: 'shop' });
  assert.equal(await mysqlSource.open(config, ctx), undefined);
  assert.deepEqual(ctx.codes(), ['SOURCE_OPEN_FAILED']);
  assert.deepEqual(ctx.errors[0]!.at, ['url']);
  return ctx.errors[0]!.problem.message;
}

test('a server that cannot be reached is SOURCE_OPEN_FAILED with the driver reason', { skip }, async () => {
  const message = await openFails({ url: 'mysql://root@127.0.0.1:1/test', timeoutMs: 2000 });
  assert.match(message, /^cannot open source "shop": connect ECONNREFUSED 127\.0\.0\.1:1$/);
});

test('the password never appears in an open failure', { skip }, async () => {
  const url = new URL(MYSQL_URL!);
  url.password = 'hunter2-secret';
  const message = await openFails({ url: url.toString() });
  assert.match(message, /Access denied/);
  const unknown = new URL(MYSQL_URL!);
  unknown.pathname = '/no_such_db_hunter2';
  unknown.password = 'hunter2';
  assert.doesNotMatch(await openFails({ url: unknown.toString() }), /hunter2/);
});

test('a URL without a database is refused: the schema needs one', { skip }, async () => {
  const url = new URL(MYSQL_URL!);
  url.pathname = '/';
  assert.match(await openFails({ url: url.toString() }), /the URL names no database/);
});

test('values are bound by a prepared statement; rows come back as JSON-ready values', { skip }, async () => {
  const result = await run(
    ro,
    `SELECT CAST(:n AS SIGNED) AS big, 2 / 3 AS num, DATE '2024-02-29' AS d, X'01ff' AS bytes,
            JSON_EXTRACT('{"a": [1]}', '$.a') AS doc, :flag AS flag, NULL AS nothing, 1 AS x, 2 AS x, :s AS s`,
    ['9007199254740993', true, "it's ; DROP"],
  );
  assert.deepEqual(result.columns, ['big', 'num', 'd', 'bytes', 'doc', 'flag', 'nothing', 'x', 'x_2', 's']);
  const row = result.rows[0]!;
  assert.equal(row.big, '9007199254740993');
  assert.equal(row.num, '0.6667');
  assert.equal(row.d, '2024-02-29');
  assert.equal(row.bytes, 'Af8=');
  assert.equal(row.flag, 1);
  assert.equal(row.nothing, null);
  assert.equal(row.s, "it's ; DROP");
  assert.deepEqual((await run(ro, `SELECT COUNT(*) AS n FROM ${ro.quoteIdentifier(CUSTOMERS)}`)).rows, [
    { n: 3 },
  ]);
});

test('the row cap stops the read; an offset skips rows', { skip }, async () => {
  const text = `SELECT id FROM ${ro.quoteIdentifier(ITEMS)} ORDER BY id`;
  const first = await run(ro, text);
  assert.deepEqual(first.rows, [{ id: 1 }, { id: 2 }, { id: 3 }]);
  assert.equal(first.truncated, true);
  const second = await run(ro, text, [], { offset: 3 });
  assert.deepEqual(second.rows, [{ id: 4 }, { id: 5 }]);
  assert.equal(second.truncated, false);
  // A long row set is killed at the cap rather than read to its end; the pool goes on.
  const many = await run(ro, 'SELECT seq FROM seq_1_to_1000000', [], { maxRows: 2 });
  assert.deepEqual(many, { columns: ['seq'], rows: [{ seq: 1 }, { seq: 2 }], truncated: true });
  assert.deepEqual((await run(ro, 'SELECT 1 AS one')).rows, [{ one: 1 }]);
});

test('a writable source writes in a committed transaction; a read-only call on it does not', {
  skip,
}, async () => {
  const table = rw.quoteIdentifier(CUSTOMERS);
  const insert = `INSERT INTO ${table} (id, \`E-mail\`, name) VALUES (:id, :email, 'New')`;
  assert.deepEqual(await run(rw, insert, [10, 'new@example.com']), {
    columns: [],
    rows: [],
    truncated: false,
    changes: 1,
  });
  assert.equal((await run(rw, `DELETE FROM ${table} WHERE id = 10`)).changes, 1);
  await assert.rejects(run(rw, insert, [11, 'x@example.com'], { readOnly: true }), /refused: INSERT/);
  assert.deepEqual(await db.admin(`SELECT COUNT(*) AS n FROM ${table}`), [{ n: 3 }]);
});

test('a database error is a sentence, and the pool stays usable', { skip }, async () => {
  await assert.rejects(run(ro, 'SELECT * FROM no_such_table'), /no_such_table' doesn't exist/);
  assert.deepEqual((await run(ro, 'SELECT 1 AS one')).rows, [{ one: 1 }]);
});

/** Statements of this file's database that are running a SLEEP. */
async function sleeping(): Promise<number> {
  const rows = await db.admin(
    `SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST
     WHERE DB = '${database}' AND ID <> CONNECTION_ID() AND INFO LIKE 'SELECT SLEEP%'`,
  );
  return Number(rows[0]!.n);
}

test('a query past its time limit is stopped on the server', { skip }, async () => {
  const call = run(ro, 'SELECT SLEEP(30) AS s', [], { timeoutMs: 1500 });
  await until(async () => (await sleeping()) === 1);
  await assert.rejects(call, /took longer than 1500 ms and was stopped/);
  // The server's interrupted-query error ended the call; PROCESSLIST may show the thread's
  // statement a moment longer (it is cleared after the error is sent). SLEEP(30) would stay 30 s.
  await until(async () => (await sleeping()) === 0);
});

test('a cancelled call kills its query on the server', { skip }, async () => {
  const controller = new AbortController();
  const call = run(ro, 'SELECT SLEEP(30) AS s', [], { timeoutMs: 60_000, signal: controller.signal });
  await until(async () => (await sleeping()) === 1);
  controller.abort();
  await assert.rejects(call, /the query was cancelled/);
  await until(async () => (await sleeping()) === 0);
  assert.deepEqual((await run(ro, 'SELECT 2 AS two')).rows, [{ two: 2 }]);
});

test('calls cancelled while they wait for the connection leave it to the pool', { skip }, async () => {
  // As on PostgreSQL: a call cancelled before it ran sends no KILL and closes nothing.
  const { sql, opened } = await db.open({ poolSize: 1 });
  closers.push(() => opened.dispose());
  const cancelled = await cancelledWhileWaiting(sql, 'SELECT CONNECTION_ID() AS id');
  assert.deepEqual(cancelled.outcomes, new Set(['the query was cancelled']));
  assert.equal(cancelled.after, cancelled.before);
});

test('identifiers are quoted with backticks', { skip }, () => {
  assert.equal(ro.quoteIdentifier('a `b` c'), '`a ``b`` c`');
  assert.equal(ro.dialect, 'mysql');
});
