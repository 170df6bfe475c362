/**
 * The in-process fast path of a SQLite read (inline.ts) is taken only for a statement whose program
 * SQLite can bound (no loop, no function call), only while the plan that runs is the one checked
 * (the schema's cookie, no sqlite_stat4), and never waits for a lock; everything else goes to a
 * worker, with the same rows either way.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import type { OpenedSource, SqlCapability } from '../../../../src/kinds/contract/kinds.js';
import { parseSqlParams } from '../../../../src/kinds/sql/params.js';
import { BIG_ROW_BYTES, bounded, type InlineReader } from '../../../../src/kinds/sql/sqlite/inline.js';
import { sqliteSource } from '../../../../src/kinds/sql/sqlite/source.js';
import { tempDir, testContext } from '../../context.js';
import { openSeeded } from './harness.js';

const SEED = `
  CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL, data BLOB);
  CREATE TABLE tags (item INTEGER, tag TEXT);
  CREATE INDEX tags_item ON tags (item);
  CREATE UNIQUE INDEX tags_tag ON tags (tag);
  CREATE TABLE kv (k TEXT PRIMARY KEY, v) WITHOUT ROWID;
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
  INSERT INTO items SELECT i, 'item ' || i, i * 1.5, zeroblob(i) FROM n;
  INSERT INTO tags SELECT id, 'tag ' || id FROM items;
  INSERT INTO tags SELECT id, NULL FROM items;
  INSERT INTO kv VALUES ('a', 1), ('b', 2);
`;

const open = (config: Parameters<typeof openSeeded>[1] = {}) => openSeeded(SEED, config);

/** A read (`readOnly: true` on a writable source too); `readOnly: false` lets the statement write. */
const query = (sql: SqlCapability, text: string, values: unknown[] = [], readOnly = true) =>
  sql.query(parseSqlParams(text), values, {
    maxRows: 100,
    timeoutMs: 30_000,
    signal: new AbortController().signal,
    readOnly,
  });

/** Runs a read and says where it ran: in this process, or in a worker. */
async function where(s: Awaited<ReturnType<typeof open>>['sql'], text: string, values: unknown[] = []) {
  const served = s.inline!.served;
  const sent = s.pool.sent;
  const result = await query(s, text, values);
  const inline = s.inline!.served - served;
  const worker = s.pool.sent - sent;
  assert.equal(inline + worker, 1, `${text} ran ${inline} times here and ${worker} in a worker`);
  return { at: inline === 1 ? 'inline' : 'worker', rows: result.rows };
}

test('lookups by key run in this process; scans, functions, sorts and subqueries go to a worker', async () => {
  const { opened, sql } = await open();
  const fast: [string, unknown[], unknown[]][] = [
    ['SELECT id, name, price FROM items WHERE id = :id', [7], [{ id: 7, name: 'item 7', price: 10.5 }]],
    ['SELECT item FROM tags WHERE tag = :t', ['tag 9'], [{ item: 9 }]],
    ['SELECT v FROM kv WHERE k = :k', ['b'], [{ v: 2 }]],
    ['SELECT name FROM items WHERE id = :id LIMIT 1', [200], [{ name: 'item 200' }]],
    ['SELECT :a AS a', ['x'], [{ a: 'x' }]],
    ['SELECT name FROM items WHERE id = :id', [999], []],
  ];
  for (const [text, values, rows] of fast) {
    assert.deepEqual(await where(sql, text, values), { at: 'inline', rows }, text);
  }
  const slow: [string, unknown[]][] = [
    ['SELECT tag FROM tags WHERE item = :id', [3]], // a non-unique index: a loop over its entries
    ['SELECT count(*) AS n FROM items', []],
    ['SELECT name FROM items', []],
    ['SELECT length(randomblob(:n)) AS n', [10]],
    ['SELECT upper(name) AS n FROM items WHERE id = :id', [1]],
    ['SELECT name FROM items WHERE id IN (:a, :b)', [1, 2]],
    ['SELECT name FROM items ORDER BY price DESC LIMIT 1', []],
    ['SELECT (SELECT max(id) FROM items) AS m', []],
    ['SELECT value FROM json_each(:j)', ['[1,2]']],
    ['WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5) SELECT x FROM c', []],
  ];
  for (const [text, values] of slow) {
    const ran = await where(sql, text, values);
    assert.equal(ran.at, 'worker', text);
    assert.ok(ran.rows.length > 0, text);
  }
  await opened.dispose();
});

test('a read answers the same rows in this process as in a worker: values, budgets, offsets', async () => {
  const { opened, sql } = await open({ maxBytes: 150, readOnly: false });
  const text = 'SELECT id, data FROM items WHERE id = :id';
  // The same statement in a worker: a statement that may write never runs here.
  const inWorker = async (id: number) => {
    const sent = sql.pool.sent;
    const result = await query(sql, text, [id], false);
    assert.equal(sql.pool.sent, sent + 1);
    return result;
  };
  const small = await where(sql, text, [100]);
  assert.equal(small.at, 'inline');
  assert.deepEqual(small.rows, [{ id: 100, data: Buffer.alloc(100).toString('base64') }]);
  // 8 for the id and 200 bytes of blob: past the 150-byte budget, cut with the same note.
  const before = sql.inline!.served;
  const big = await query(sql, text, [200]);
  assert.equal(sql.inline!.served, before + 1);
  assert.deepEqual(big.rows, []);
  assert.equal(big.truncated, true);
  assert.match(big.note ?? '', /byte budget \(maxBytes: 150\)/);
  const scanned = await inWorker(200);
  assert.deepEqual(scanned, big);
  assert.deepEqual((await inWorker(100)).rows, small.rows);
  await opened.dispose();
});

test('after ANALYZE writes sqlite_stat4, no read runs in this process; a dropped index is seen at once', async () => {
  const { opened, sql, file } = await open();
  const byTag = 'SELECT item FROM tags WHERE tag = :t';
  assert.equal((await where(sql, byTag, ['tag 4'])).at, 'inline');
  const other = new Database(file);
  try {
    // The unique index goes and a plain one takes its name: the same text is now a loop.
    other.exec('DROP INDEX tags_tag; CREATE INDEX tags_tag ON tags (tag)');
    assert.deepEqual(await where(sql, byTag, ['tag 4']), { at: 'worker', rows: [{ item: 4 }] });
    assert.equal((await where(sql, 'SELECT name FROM items WHERE id = :id', [4])).at, 'inline');
    // With STAT4 samples a bound value may change the plan when it runs: none is fast any more.
    other.exec('ANALYZE');
    assert.deepEqual(await where(sql, 'SELECT name FROM items WHERE id = :id', [4]), {
      at: 'worker',
      rows: [{ name: 'item 4' }],
    });
    other.exec('DROP TABLE sqlite_stat4');
    assert.equal((await where(sql, 'SELECT name FROM items WHERE id = :id', [4])).at, 'inline');
  } finally {
    other.close();
  }
  await opened.dispose();
});

test('a read that meets a lock never waits in this process: a worker waits for it, the event loop turns', async () => {
  const { opened, sql, file } = await open({ timeoutMs: 10_000 });
  const text = 'SELECT name FROM items WHERE id = :id';
  assert.equal((await where(sql, text, [5])).at, 'inline');
  const writer = new Database(file);
  // An exclusive lock (rollback journal): every reader gets SQLITE_BUSY until it is released.
  writer.exec('BEGIN EXCLUSIVE');
  let turns = 0;
  const ticking = setInterval(() => turns++, 10);
  const release = setTimeout(() => writer.exec('COMMIT'), 400);
  try {
    const ran = await where(sql, text, [5]);
    assert.deepEqual(ran, { at: 'worker', rows: [{ name: 'item 5' }] });
    assert.ok(turns >= 5, `the event loop turned ${turns} times while the lock was held`);
  } finally {
    clearInterval(ticking);
    clearTimeout(release);
    if (writer.inTransaction) writer.exec('COMMIT');
    writer.close();
  }
  // Once the lock is gone, the read runs here again.
  assert.equal((await where(sql, text, [5])).at, 'inline');
  await opened.dispose();
});

test('a writable source reads in this process too, and never writes from it', async () => {
  const { opened, sql } = await open({ readOnly: false });
  assert.equal((await where(sql, 'SELECT name FROM items WHERE id = :id', [3])).at, 'inline');
  const sent = sql.pool.sent;
  const written = await query(sql, "UPDATE items SET name = 'renamed' WHERE id = :id", [3], false);
  assert.equal(written.changes, 1);
  assert.equal(sql.pool.sent, sent + 1);
  assert.deepEqual(await where(sql, 'SELECT name FROM items WHERE id = :id', [3]), {
    at: 'inline',
    rows: [{ name: 'renamed' }],
  });
  await opened.dispose();
});

test('a read that meets a row over 1 MiB turns the path off for the source: big values are read in workers', async () => {
  const { opened, sql, file } = await open();
  const other = new Database(file);
  other.exec(
    `CREATE TABLE big (id INTEGER PRIMARY KEY, v BLOB); INSERT INTO big VALUES (1, zeroblob(${BIG_ROW_BYTES + 1}))`,
  );
  other.close();
  assert.equal((await where(sql, 'SELECT name FROM items WHERE id = :id', [1])).at, 'inline');
  // Read here once (it was read before its size was known), within the 4 MiB budget.
  const big = await where(sql, 'SELECT v FROM big WHERE id = :id', [1]);
  assert.equal(big.at, 'inline');
  assert.equal(Buffer.from(String(big.rows[0]?.v), 'base64').length, BIG_ROW_BYTES + 1);
  assert.equal(sql.inline!.off, true);
  assert.deepEqual(await where(sql, 'SELECT name FROM items WHERE id = :id', [1]), {
    at: 'worker',
    rows: [{ name: 'item 1' }],
  });
  await opened.dispose();
});

test('a :memory: database has no fast path: its data lives in its worker', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'seed.sql'), SEED);
  const opened = (await sqliteSource.open(
    { path: ':memory:', seed: 'seed.sql' },
    testContext({ baseDir: dir, name: 'db' }),
  )) as OpenedSource;
  const sql = opened.capabilities.sql as SqlCapability & { inline?: InlineReader };
  assert.equal(sql.inline, undefined);
  assert.deepEqual((await query(sql, 'SELECT name FROM items WHERE id = :id', [2])).rows, [
    { name: 'item 2' },
  ]);
  await opened.dispose();
});

test('bounded: no cycle in the control flow, no opcode outside the lists', () => {
  const op = (opcode: string, p2 = 0) => ({ opcode, p1: 0, p2, p3: 0 });
  // The shape of a lookup by rowid: Init jumps to the Transaction at the end, which goes back to 1.
  const lookup = [
    op('Init', 6),
    op('OpenRead'),
    op('Variable'),
    op('SeekRowid', 5),
    op('ResultRow'),
    op('Halt'),
    op('Transaction'),
    op('Goto', 1),
  ];
  assert.equal(bounded(lookup), true);
  // A Next back to the seek is a loop.
  assert.equal(bounded([...lookup.slice(0, 4), op('Next', 3), ...lookup.slice(5)]), false);
  // A jump into the prologue makes its Goto run twice: a cycle too.
  assert.equal(bounded([...lookup.slice(0, 3), op('SeekRowid', 7), ...lookup.slice(4)]), false);
  assert.equal(bounded([op('Init', 1), op('Function'), op('Halt')]), false);
  assert.equal(bounded([op('Init', 9)]), false);
  assert.equal(bounded([]), false);
});
