/**
 * Issue 13: the byte budget (`maxBytes`) of the network SQL sources, against a real PostgreSQL and
 * a real MariaDB: rows past it are cut with a note, a first row that alone passes it has its big
 * value cut to fit, a continuation page goes on from the cut, and the connection stays usable.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SqlCapability } from '../../../src/kinds/contract/kinds.js';
import { createDatabase, type Engine, runSql, skipFor, type TestDatabase } from '../../helpers/databases.js';

const series = (engine: Engine, n: number) =>
  engine === 'postgres'
    ? `SELECT i, repeat('x', 300) AS v FROM generate_series(1, ${n}) AS s(i) ORDER BY i`
    : `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n}) SELECT i, repeat('x', 300) AS v FROM s ORDER BY i`;

for (const engine of ['postgres', 'mysql'] as const) {
  describe(`${engine}: the byte budget`, { skip: skipFor(engine) }, () => {
    let db: TestDatabase;
    let sql: SqlCapability;
    const closers: (() => Promise<void>)[] = [];
    before(async () => {
      db = await createDatabase(engine, 'budget');
      const opened = await db.open({ maxBytes: 1000 });
      sql = opened.sql;
      closers.push(() => opened.opened.dispose());
    });
    after(async () => {
      for (const close of closers) await close();
      await db?.drop();
    });

    test('rows past the budget are cut, with a note; the next page goes on from the cut', async () => {
      // 308 bytes a row (300 of text, 8 for the number): three fit in 1000.
      const first = await runSql(sql, series(engine, 50), [], { maxRows: 20 });
      assert.equal(first.rows.length, 3);
      assert.equal(first.truncated, true);
      assert.match(
        first.note ?? '',
        /cut at 3 because the next row would pass the source's byte budget \(maxBytes: 1000\)/,
      );
      const next = await runSql(sql, series(engine, 50), [], { maxRows: 20, offset: 3 });
      assert.deepEqual(
        next.rows.map((r) => Number(r.i)),
        [4, 5, 6],
      );
    });

    test('the row cap still applies under the budget, without a note', async () => {
      const res = await runSql(sql, series(engine, 50), [], { maxRows: 2 });
      assert.equal(res.rows.length, 2);
      assert.equal(res.truncated, true);
      assert.equal(res.note, undefined);
    });

    test('a first row that alone passes the budget has its big value cut to fit', async () => {
      const res = await runSql(sql, "SELECT 7 AS n, repeat('y', 5000) AS big, 'tail' AS t", [], {
        maxRows: 5,
      });
      assert.equal(res.rows.length, 1);
      const row = res.rows[0]!;
      assert.equal(Number(row.n), 7);
      assert.equal((row.big as string).length, 1000 - 8);
      assert.equal(row.t, '');
      assert.equal(res.truncated, true);
      assert.match(res.note ?? '', /big values were cut by the byte budget/);
      // The connection (or its replacement) serves the next call.
      assert.deepEqual((await runSql(sql, 'SELECT 1 AS one')).rows, [{ one: 1 }]);
    });

    test('a result within the budget is whole and says nothing', async () => {
      const res = await runSql(sql, series(engine, 2), [], { maxRows: 5 });
      assert.equal(res.rows.length, 2);
      assert.equal(res.truncated, false);
      assert.equal(res.note, undefined);
    });

    if (engine === 'postgres') {
      test('a row far past the budget is not read: the result ends before it, and the source goes on', async () => {
        const res = await runSql(
          sql,
          "SELECT i, CASE WHEN i = 2 THEN repeat('z', 200000) ELSE 'a' END AS v FROM generate_series(1, 3) s(i) ORDER BY i",
          [],
          { maxRows: 5 },
        );
        assert.deepEqual(res.rows, [{ i: 1, v: 'a' }]);
        assert.equal(res.truncated, true);
        assert.match(res.note ?? '', /cut at 1 because the next row is far larger than/);
        assert.deepEqual((await runSql(sql, 'SELECT 1 AS one')).rows, [{ one: 1 }]);
      });
    }
  });
}
