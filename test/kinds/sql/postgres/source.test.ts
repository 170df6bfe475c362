/**
 * The `postgres` source against a real PostgreSQL (MCP_RUN_TEST_POSTGRES_URL): opening and its
 * failures, binding and value types, the row cap and continuation offset, writes where allowed, and a
 * time limit or a cancellation that stops the query on the server (checked in pg_stat_activity).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { after, before, test } from 'node:test';
import type { SqlCapability } from '../../../../src/kinds/contract/kinds.js';
import { type PostgresConfig, postgresSource } from '../../../../src/kinds/sql/postgres/source.js';
import {
  activeStatements,
  CUSTOMERS,
  cancelledWhileWaiting,
  createDatabase,
  ITEMS,
  PG_SKIP,
  PG_URL,
  runSql,
  type TestDatabase,
  until,
} from '../../../helpers/databases.js';
import { testContext } from '../../context.js';

const skip = PG_SKIP;
let db: TestDatabase;
let ro: SqlCapability;
let rw: SqlCapability;
const closers: (() => Promise<void>)[] = [];

before(async () => {
  if (skip) return;
  db = await createDatabase('postgres', 'pg');
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

async function openFails(config: PostgresConfig) {
  const ctx = testContext({ baseDir: tmpdir(), name: 'crm' });
  assert.equal(await postgresSource.open(config, ctx), undefined);
  assert.deepEqual(ctx.codes(), ['SOURCE_OPEN_FAILED']);
  assert.deepEqual(ctx.errors[0]!.at, ['url']);
  return ctx.errors[0]!.problem.message;
}

test('a server that cannot be reached is SOURCE_OPEN_FAILED with the driver reason', { skip }, async () => {
  const message = await openFails({ url: 'postgres://postgres@127.0.0.1:1/test', timeoutMs: 2000 });
  assert.match(message, /^cannot open source "crm": connect ECONNREFUSED 127\.0\.0\.1:1$/);
});

test('the password never appears in an open failure', { skip }, async () => {
  const url = new URL(PG_URL!);
  url.password = 'hunter2-secret';
  url.pathname = '/no_such_db_hunter2-secret';
  const message = await openFails({ url: url.toString() });
  assert.match(message, /database "no_such_db_\*\*\*" does not exist/);
  assert.doesNotMatch(message, /hunter2/);
});

test('declared schemas must exist', { skip }, async () => {
  const message = await openFails({ url: PG_URL!, schemas: ['public', 'no such schema'] });
  assert.match(message, /no schema "no such schema" in the database/);
});

test('values are bound as $n parameters; rows come back as JSON-ready values', { skip }, async () => {
  const result = await run(
    ro,
    `SELECT :n::int8 AS big, 2::numeric / 3 AS num, DATE '2024-02-29' AS d,
            TIMESTAMPTZ '2024-01-02 03:04:05+00' AS ts, '\\x01ff'::bytea AS bytes,
            '{"a": [1]}'::jsonb AS doc, :flag::boolean AS flag, NULL AS nothing, 1 AS x, 2 AS x, :s AS s`,
    [9007199254740993n.toString(), true, "it's ; DROP"],
  );
  assert.deepEqual(result.columns, [
    'big',
    'num',
    'd',
    'ts',
    'bytes',
    'doc',
    'flag',
    'nothing',
    'x',
    'x_2',
    's',
  ]);
  const row = result.rows[0]!;
  assert.equal(row.big, '9007199254740993');
  assert.equal(row.num, '0.66666666666666666667');
  assert.equal(row.d, '2024-02-29');
  assert.match(String(row.ts), /^2024-01-02 0\d:04:05/);
  assert.equal(row.bytes, 'Af8=');
  assert.deepEqual(row.doc, { a: [1] });
  assert.equal(row.flag, true);
  assert.equal(row.nothing, null);
  assert.equal(row.s, "it's ; DROP");
  assert.deepEqual((await run(ro, 'SELECT count(*) AS n FROM "Customers ✓"')).rows, [{ n: 3 }]);
});

test('a null, a Buffer (bytea, sent as binary) and multi-byte text are bound as they are', {
  skip,
}, async () => {
  const text = 'é ü ✓ 😀';
  const result = await run(
    ro,
    'SELECT :a::text IS NULL AS isnull, :b::bytea AS b, :c::text AS c, length(:c::text) AS n',
    // A repeated name is a placeholder (and a value) per occurrence.
    [null, Buffer.from([1, 0, 255]), text, text],
  );
  assert.deepEqual(result.rows, [{ isnull: true, b: 'AQD/', c: text, n: [...text].length }]);
});

test('the row cap is read through a cursor; an offset skips rows on the server', { skip }, async () => {
  const text = `SELECT id FROM ${ro.quoteIdentifier(ITEMS)} ORDER BY id`;
  const first = await run(ro, text);
  assert.deepEqual(first.rows, [{ id: 1 }, { id: 2 }, { id: 3 }]);
  assert.equal(first.truncated, true);
  const second = await run(ro, text, [], { offset: 3 });
  assert.deepEqual(second.rows, [{ id: 4 }, { id: 5 }]);
  assert.equal(second.truncated, false);
  // A statement that is not a row set (SHOW) is capped too.
  assert.deepEqual((await run(ro, 'SHOW statement_timeout')).rows, [{ statement_timeout: '4s' }]);
});

test('a writable source writes in a committed transaction; a read-only call on it does not', {
  skip,
}, async () => {
  const insert = `INSERT INTO ${rw.quoteIdentifier(CUSTOMERS)} (id, "E-mail", name) VALUES (:id, :email, 'New')`;
  assert.deepEqual(await run(rw, insert, [10, 'new@example.com']), {
    columns: [],
    rows: [],
    truncated: false,
    changes: 1,
  });
  const returning = await run(
    rw,
    `DELETE FROM ${rw.quoteIdentifier(CUSTOMERS)} WHERE id = 10 RETURNING name`,
  );
  assert.deepEqual(returning.rows, [{ name: 'New' }]);
  await assert.rejects(run(rw, insert, [11, 'x@example.com'], { readOnly: true }), /refused: INSERT/);
  assert.deepEqual(await db.admin(`SELECT count(*)::int AS n FROM ${rw.quoteIdentifier(CUSTOMERS)}`), [
    { n: 3 },
  ]);
});

test('a database error is a sentence, and the connection stays usable', { skip }, async () => {
  await assert.rejects(run(ro, 'SELECT * FROM no_such_table'), /relation "no_such_table" does not exist/);
  assert.deepEqual((await run(ro, 'SELECT 1 AS one')).rows, [{ one: 1 }]);
});

/**
 * A source whose connections carry a unique application_name, and a count of its active queries:
 * the server shows a cursor's FETCH, not the statement text, so the name is what finds them.
 */
async function marked() {
  const name = `mcp_run_test_${randomBytes(4).toString('hex')}`;
  const url = new URL(PG_URL!);
  url.searchParams.set('application_name', name);
  const { sql, opened } = await db.open({ url: url.toString() });
  closers.push(() => opened.dispose());
  return { sql, running: () => activeStatements(db, name) };
}

test('a query past its time limit is stopped on the server', { skip }, async () => {
  const { sql, running } = await marked();
  const call = run(sql, 'SELECT pg_sleep(30)', [], { timeoutMs: 1500 });
  await until(async () => (await running()) === 1);
  await assert.rejects(call, /took longer than 1500 ms and was stopped/);
  // The server's own error ended the call; pg_stat_activity may show the backend active a moment
  // longer (it reports the state when it reads its next message).
  await until(async () => (await running()) === 0);
});

test('a cancelled call cancels its query on the server', { skip }, async () => {
  const { sql, running } = await marked();
  const controller = new AbortController();
  const call = run(sql, 'SELECT pg_sleep(30)', [], { timeoutMs: 60_000, signal: controller.signal });
  await until(async () => (await running()) === 1);
  controller.abort();
  await assert.rejects(call, /the query was cancelled/);
  await until(async () => (await running()) === 0);
  assert.deepEqual((await run(sql, 'SELECT 2 AS two')).rows, [{ two: 2 }]);
});

test('calls cancelled while they wait for the connection leave it to the pool', { skip }, async () => {
  // A client that drops its calls at once (a 2026 client's connection closing) must not cost the
  // pool its connections: a call cancelled before it ran sends no cancel and closes nothing.
  const { sql, opened } = await db.open({ poolSize: 1 });
  closers.push(() => opened.dispose());
  const cancelled = await cancelledWhileWaiting(sql, 'SELECT pg_backend_pid() AS id');
  assert.deepEqual(cancelled.outcomes, new Set(['the query was cancelled']));
  assert.equal(cancelled.after, cancelled.before);
});

test('identifiers are quoted with pg escapeIdentifier', { skip }, () => {
  assert.equal(ro.quoteIdentifier('a "b" c'), '"a ""b"" c"');
  assert.equal(ro.dialect, 'postgres');
  assert.deepEqual(ro.defaults, { maxRows: 3, timeoutMs: 4000 });
});

test('a read prepared on a connection still runs after a schema change alters what it returns', {
  skip,
}, async () => {
  // One connection, so the second read meets the statement the first one prepared.
  const { sql, opened } = await db.open({ poolSize: 1 });
  closers.push(() => opened.dispose());
  await db.admin('CREATE TABLE plan_change (a integer)');
  await db.admin('INSERT INTO plan_change VALUES (1)');
  for (let i = 0; i < 3; i++)
    assert.deepEqual((await run(sql, 'SELECT * FROM plan_change')).rows, [{ a: 1 }]);
  await db.admin("ALTER TABLE plan_change ADD COLUMN b text DEFAULT 'x'");
  assert.deepEqual((await run(sql, 'SELECT * FROM plan_change')).rows, [{ a: 1, b: 'x' }]);
  assert.deepEqual((await run(sql, 'SELECT * FROM plan_change')).rows, [{ a: 1, b: 'x' }]);
  // Its columns are kept from the first call (no Describe after it): a rename or a new type must
  // still show, not the kept names and parsers.
  await db.admin('ALTER TABLE plan_change RENAME COLUMN a TO c');
  assert.deepEqual((await run(sql, 'SELECT * FROM plan_change')).rows, [{ c: 1, b: 'x' }]);
  await db.admin("ALTER TABLE plan_change ALTER COLUMN c TYPE date USING ('2024-01-0' || c)::date");
  assert.deepEqual((await run(sql, 'SELECT * FROM plan_change')).rows, [{ c: '2024-01-01', b: 'x' }]);
  assert.deepEqual((await run(sql, 'SELECT c FROM plan_change')).rows, [{ c: '2024-01-01' }]);
});

test('each call on a connection runs under its own statement_timeout and the source settings', {
  skip,
}, async () => {
  // One connection and one prepared text for the settings: the timeout is a bound value.
  const { sql, opened } = await db.open({ poolSize: 1 });
  closers.push(() => opened.dispose());
  const settings = `SELECT current_setting('statement_timeout') AS timeout,
      current_setting('standard_conforming_strings') AS scs, current_setting('search_path') AS path,
      current_setting('transaction_read_only') AS ro`;
  const path = sql.quoteIdentifier((db.config.schemas as string[])[0]!);
  for (const timeoutMs of [1234, 4321, 1234]) {
    const { rows } = await run(sql, settings, [], { timeoutMs });
    assert.deepEqual(rows, [{ timeout: `${timeoutMs}ms`, scs: 'on', path, ro: 'on' }]);
  }
  // Nothing of them outlives the call: the session's own values are back (a non-row-set call).
  const session = await run(sql, 'SHOW statement_timeout', [], { timeoutMs: 999 });
  assert.deepEqual(session.rows, [{ statement_timeout: '999ms' }]);
});

test('a connection holds at most 100 prepared statements; reads past that run unnamed', {
  skip,
}, async () => {
  const { sql, opened } = await db.open({ poolSize: 1 });
  closers.push(() => opened.dispose());
  for (let i = 0; i < 110; i++) assert.deepEqual((await run(sql, `SELECT ${i} AS n`)).rows, [{ n: i }]);
  const held = "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'mcp\\_run\\_%'";
  const { rows } = await run(sql, held);
  assert.equal(rows[0]!.n, 100);
  // A text prepared before the cap is still served from its statement.
  assert.deepEqual((await run(sql, 'SELECT 5 AS n')).rows, [{ n: 5 }]);
});

test('a call that resets its session (DISCARD ALL) leaves the next read on that connection working', {
  skip,
}, async () => {
  const { sql, opened } = await db.open({ poolSize: 1 });
  closers.push(() => opened.dispose());
  assert.deepEqual((await run(sql, 'SELECT 7 AS seven')).rows, [{ seven: 7 }]);
  // SHOW is no row set: it takes the other path, which ends in DISCARD ALL (prepared statements too).
  assert.equal((await run(sql, 'SHOW statement_timeout')).rows.length, 1);
  assert.deepEqual((await run(sql, 'SELECT 7 AS seven')).rows, [{ seven: 7 }]);
  // A continuation page takes that path too.
  assert.deepEqual((await run(sql, 'SELECT 7 AS seven', [], { offset: 0 })).rows, [{ seven: 7 }]);
});
