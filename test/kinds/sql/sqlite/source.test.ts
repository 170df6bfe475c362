import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import type { OpenedSource, SqlCapability } from '../../../../src/kinds/contract/kinds.js';
import { parseSqlParams } from '../../../../src/kinds/sql/params.js';
import { type SqliteConfig, sqliteSource } from '../../../../src/kinds/sql/sqlite/source.js';
import { tempDir, testContext } from '../../context.js';

const SEED = `
CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, flag INTEGER, data TEXT);
INSERT INTO items (name, flag) VALUES ('a', 1), ('b', 0), ('c', 1), ('d', 0), ('e', 1);
`;

const signal = () => new AbortController().signal;

async function open(config: SqliteConfig, baseDir: string) {
  const ctx = testContext({ baseDir, name: 'db' });
  const opened = await sqliteSource.open(config, ctx);
  return { ctx, opened, sql: opened?.capabilities.sql as SqlCapability };
}

function query(
  sql: SqlCapability,
  text: string,
  values: unknown[] = [],
  maxRows = 100,
  timeoutMs = 5000,
  s = signal(),
) {
  return sql.query(parseSqlParams(text), values, { maxRows, timeoutMs, signal: s });
}

test('seed creates the database on first run, then it is opened read-only', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'seed.sql'), SEED);
  const first = await open({ path: 'shop.db', seed: 'seed.sql' }, dir);
  assert.deepEqual(first.ctx.errors, []);
  assert.ok(existsSync(join(dir, 'shop.db')));
  assert.equal(first.sql.readOnly, true);
  assert.equal(first.sql.dialect, 'sqlite');
  const rows = await query(first.sql, 'SELECT count(*) AS n FROM items');
  assert.deepEqual(rows.rows, [{ n: 5 }]);
  await assert.rejects(
    query(first.sql, "INSERT INTO items (name) VALUES ('x')"),
    /the source is read-only; set readOnly: false on the source to allow writes/,
  );
  await first.opened!.dispose();

  // Second run: the file exists, so the seed (now broken) is not run again.
  writeFileSync(join(dir, 'seed.sql'), 'THIS IS NOT SQL');
  const second = await open({ path: 'shop.db', seed: 'seed.sql' }, dir);
  assert.deepEqual(second.ctx.errors, []);
  assert.deepEqual((await query(second.sql, 'SELECT count(*) AS n FROM items')).rows, [{ n: 5 }]);
  await second.opened!.dispose();
});

test('a failing seed reports SOURCE_OPEN_FAILED at seed and leaves no half-made database', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'seed.sql'), 'CREATE TABLE a (x); INSERT INTO nope VALUES (1);');
  const { ctx, opened } = await open({ path: 'shop.db', seed: 'seed.sql' }, dir);
  assert.equal(opened, undefined);
  assert.deepEqual(ctx.codes(), ['SOURCE_OPEN_FAILED']);
  assert.deepEqual(ctx.errors[0]!.at, ['seed']);
  assert.match(ctx.errors[0]!.problem.message, /no such table: nope/);
  assert.equal(existsSync(join(dir, 'shop.db')), false);
});

test('a missing seed file is reported with its path', async () => {
  const dir = tempDir();
  const { ctx, opened } = await open({ path: 'shop.db', seed: 'missing.sql' }, dir);
  assert.equal(opened, undefined);
  assert.deepEqual(ctx.codes(), ['SOURCE_OPEN_FAILED']);
  assert.match(ctx.errors[0]!.problem.message, /cannot read the seed file .*missing\.sql/);
});

test('a missing database file fails to open read-only, with the reason', async () => {
  const dir = tempDir();
  const { ctx, opened } = await open({ path: 'nope.db' }, dir);
  assert.equal(opened, undefined);
  assert.deepEqual(ctx.codes(), ['SOURCE_OPEN_FAILED']);
  assert.deepEqual(ctx.errors[0]!.at, ['path']);
  assert.match(ctx.errors[0]!.problem.message, /cannot open source "db": no database file at .*nope\.db/);
  assert.equal(existsSync(join(dir, 'nope.db')), false);
});

test('a file that is not a database fails at open, not on the first call', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'junk.db'), 'hello, I am not SQLite'.repeat(100));
  const { ctx, opened } = await open({ path: 'junk.db' }, dir);
  assert.equal(opened, undefined);
  assert.match(ctx.errors[0]!.problem.message, /not a database/);
});

test('readOnly: false creates the file and allows writes, reporting changes', async () => {
  const dir = tempDir();
  const { ctx, opened, sql } = await open({ path: 'rw.db', readOnly: false }, dir);
  assert.deepEqual(ctx.errors, []);
  assert.equal(sql.readOnly, false);
  assert.deepEqual(await query(sql, 'CREATE TABLE t (x)'), {
    columns: [],
    rows: [],
    truncated: false,
    changes: 0,
  });
  const insert = await query(sql, 'INSERT INTO t (x) VALUES (:a), (:b)', [1, 2]);
  assert.equal(insert.changes, 2);
  await opened!.dispose();
  const check = new Database(join(dir, 'rw.db'), { readonly: true });
  assert.deepEqual(check.prepare('SELECT x FROM t ORDER BY x').all(), [{ x: 1 }, { x: 2 }]);
  check.close();
});

test(':memory: with a seed is read-only unless asked', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'seed.sql'), SEED);
  const { ctx, opened, sql } = await open({ path: ':memory:', seed: 'seed.sql' }, dir);
  assert.deepEqual(ctx.errors, []);
  assert.deepEqual((await query(sql, 'SELECT count(*) AS n FROM items')).rows, [{ n: 5 }]);
  await assert.rejects(query(sql, 'DELETE FROM items'), /read-only/);
  assert.deepEqual((await query(sql, 'SELECT count(*) AS n FROM items')).rows, [{ n: 5 }]);
  await opened!.dispose();
});

test('values bind by type: booleans as 1/0, null, undefined, objects as JSON, integers as INTEGER', async () => {
  const dir = tempDir();
  const { opened, sql } = await open({ path: ':memory:' }, dir);
  const result = await query(
    sql,
    "SELECT :t AS t, :f AS f, :n AS n, :u AS u, :o AS o, typeof(:i) AS ti, :i || '' AS i, typeof(:r) AS tr, :s AS s, :s AS s2",
    [true, false, null, undefined, { a: [1, 'x'] }, 20, 20, 2.5, "it's", "it's"],
  );
  assert.deepEqual(result.columns, ['t', 'f', 'n', 'u', 'o', 'ti', 'i', 'tr', 's', 's2']);
  assert.deepEqual(result.rows, [
    {
      t: 1,
      f: 0,
      n: null,
      u: null,
      o: '{"a":[1,"x"]}',
      ti: 'integer',
      i: '20',
      tr: 'real',
      s: "it's",
      s2: "it's",
    },
  ]);
  await opened!.dispose();
});

test('maxRows stops reading and marks truncation', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'seed.sql'), SEED);
  const { opened, sql } = await open({ path: ':memory:', seed: 'seed.sql' }, dir);
  const two = await query(sql, 'SELECT name FROM items ORDER BY id', [], 2);
  assert.deepEqual(two.rows, [{ name: 'a' }, { name: 'b' }]);
  assert.equal(two.truncated, true);
  const all = await query(sql, 'SELECT name FROM items ORDER BY id', [], 5);
  assert.equal(all.rows.length, 5);
  assert.equal(all.truncated, false);
  // The statement was reset after the early stop: the same SQL runs again from the start.
  assert.deepEqual((await query(sql, 'SELECT name FROM items ORDER BY id', [], 1)).rows, [{ name: 'a' }]);
  await opened!.dispose();
});

test('the timeout and cancellation are checked between rows', async () => {
  const dir = tempDir();
  const { opened, sql } = await open({ path: ':memory:' }, dir);
  const endless = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n';
  await assert.rejects(query(sql, endless, [], 1e12, 20), /took longer than 20 ms/);
  const aborted = new AbortController();
  aborted.abort();
  await assert.rejects(query(sql, 'SELECT 1', [], 10, 5000, aborted.signal), /cancelled/);
  await opened!.dispose();
});

test('BLOBs come back as base64 text', async () => {
  const dir = tempDir();
  const { opened, sql } = await open({ path: ':memory:' }, dir);
  assert.deepEqual((await query(sql, "SELECT x'01ff' AS b")).rows, [{ b: 'Af8=' }]);
  await opened!.dispose();
});

test('bound integers, bytes and objects reach the worker as SQLite sees them, and come back', async () => {
  const dir = tempDir();
  const { opened, sql } = await open({ path: ':memory:' }, dir);
  const res = await query(
    sql,
    'SELECT typeof(:i) AS ti, :i + 0 AS i, typeof(:b) AS tb, hex(:b) AS hb, :b AS b, :o AS o, :x AS x',
    // One value per occurrence of a name.
    [42, 42, new Uint8Array([1, 255]), new Uint8Array([1, 255]), new Uint8Array([1, 255]), { a: [1] }, 2.5],
  );
  assert.deepEqual(res.rows, [
    { ti: 'integer', i: 42, tb: 'blob', hb: '01FF', b: 'Af8=', o: '{"a":[1]}', x: 2.5 },
  ]);
  await opened!.dispose();
});

test('source defaults reach tools; dispose closes and may be called again', async () => {
  const dir = tempDir();
  const { opened, sql } = await open({ path: ':memory:', maxRows: 7, timeoutMs: 1234 }, dir);
  assert.deepEqual(sql.defaults, { maxRows: 7, timeoutMs: 1234 });
  await (opened as OpenedSource).dispose();
  await opened!.dispose();
  await assert.rejects(query(sql, 'SELECT 1'), /not open/);
});

test('a seed into a folder that does not exist says so', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'seed.sql'), SEED);
  const { ctx, opened } = await open({ path: 'no/such/folder/shop.db', seed: 'seed.sql' }, dir);
  assert.equal(opened, undefined);
  assert.deepEqual(ctx.errors[0]!.at, ['seed']);
  assert.match(ctx.errors[0]!.problem.message, /cannot create ".*no\/such\/folder\/shop\.db"/);
});
