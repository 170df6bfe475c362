/**
 * Read-only enforcement: the statement classifier on its own (a table of reads and refusals per
 * dialect), then on real SQLite, PostgreSQL and MariaDB databases, where every way of writing must
 * be refused or inert and the tables must hold the same rows afterwards.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ToolResult } from '../../../src/catalog/types.js';
import type { SqlCapability } from '../../../src/kinds/contract/kinds.js';
import { classifySql } from '../../../src/kinds/sql/classify.js';
import { parseSqlParams } from '../../../src/kinds/sql/params.js';
import { sqlQueryTool } from '../../../src/kinds/sql/query-tool.js';
import { sqlTool } from '../../../src/kinds/sql/sql-tool.js';
import {
  CUSTOMERS,
  createDatabase,
  ENGINES,
  ITEMS,
  skipFor,
  type TestDatabase,
} from '../../helpers/databases.js';
import { callContext, testContext } from '../context.js';

const reads: [string, string][] = [
  ['SELECT 1', 'sqlite'],
  ['select * from t;', 'postgres'],
  ['  WITH x AS (SELECT 1) SELECT * FROM x', 'postgres'],
  ['VALUES (1), (2)', 'sqlite'],
  ['EXPLAIN SELECT 1', 'mysql'],
  ['SHOW TABLES', 'mysql'],
  ['DESCRIBE t', 'mysql'],
  ['PRAGMA table_info(t)', 'sqlite'],
  ["SELECT 'DELETE FROM t; DROP TABLE t' AS s", 'sqlite'],
  ['SELECT "update", `insert` FROM t', 'sqlite'],
  ["SELECT replace(name, 'a', 'b') FROM t", 'mysql'],
  ['SELECT 1 -- ; DROP TABLE t', 'postgres'],
  ['SELECT 1 /* ; DROP TABLE t */', 'mysql'],
  ['(SELECT 1) UNION (SELECT 2)', 'postgres'],
  ['SELECT $$; DELETE FROM t$$', 'postgres'],
  ["SELECT E'\\'; DROP TABLE t; --'", 'postgres'],
  ["SELECT 'a\\'; DROP TABLE t; -- '", 'mysql'],
  ['SELECT 1--1', 'mysql'],
  ['/* /* */ DELETE FROM t */ SELECT 1', 'postgres'],
  // A standard string on PostgreSQL: the backslash is literal, the string ends at the second quote.
  ["SELECT name'\\' AS a", 'postgres'],
  // Names that only look like the refused functions, or are not called.
  ['SELECT lock, lo, "dblink" FROM t', 'postgres'],
  ['SELECT lower(name), pg_size_pretty(1), pg_backend_pid(), SLEEP(0) FROM t', 'mysql'],
];

const refusals: [string, string, RegExp][] = [
  ['INSERT INTO t VALUES (1)', 'sqlite', /INSERT is not a read statement/],
  ['UPDATE t SET a = 1', 'postgres', /UPDATE is not a read/],
  ['DELETE FROM t', 'mysql', /DELETE is not a read/],
  ['CREATE TABLE x (a int)', 'postgres', /CREATE is not a read/],
  ['DROP TABLE t', 'sqlite', /DROP is not a read/],
  ['TRUNCATE t', 'mysql', /TRUNCATE is not a read/],
  ['SELECT 1; DROP TABLE t', 'sqlite', /only one statement/],
  ['SELECT 1; SELECT 2', 'postgres', /only one statement/],
  ['SELECT 1 /* hide */; DELETE FROM t -- tail', 'mysql', /only one statement/],
  ['WITH gone AS (DELETE FROM t RETURNING *) SELECT * FROM gone', 'postgres', /contains DELETE/],
  ['WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x', 'sqlite', /contains INSERT/],
  ['SELECT * INTO copy FROM t', 'postgres', /contains INTO/],
  ["SELECT * FROM t INTO OUTFILE '/tmp/x'", 'mysql', /contains INTO/],
  ['SELECT * FROM t FOR UPDATE', 'postgres', /contains UPDATE/],
  ['EXPLAIN ANALYZE DELETE FROM t', 'postgres', /contains DELETE/],
  ['PRAGMA journal_mode = WAL', 'sqlite', /not one of the pragmas that only read/],
  ['PRAGMA writable_schema', 'sqlite', /not one of the pragmas/],
  ['/*!50000 DELETE FROM t */ SELECT 1', 'mysql', /executable comments/],
  ['REPLACE INTO t VALUES (1)', 'mysql', /REPLACE is not a read/],
  ['SET x = 1', 'mysql', /SET is not a read/],
  ['COMMIT', 'postgres', /COMMIT is not a read/],
  ['', 'sqlite', /empty/],
  ['-- nothing but a comment', 'postgres', /empty/],
  ["SELECT 'unterminated", 'sqlite', /unterminated string/],
  // Functions that act outside the read-only transaction (issue 13).
  ["SELECT name'\\' AS a, pg_ls_dir('/') AS b --'", 'postgres', /calls pg_ls_dir/],
  ["SELECT dblink_exec('dbname=x', 'DELETE FROM t')", 'postgres', /calls dblink_exec, which acts outside/],
  ["SELECT lo_export(1, '/tmp/x')", 'postgres', /calls lo_export/],
  ["SELECT pg_catalog.pg_read_file('/etc/passwd')", 'postgres', /calls pg_read_file/],
  ['SELECT "pg_read_file"(\'/etc/passwd\')', 'postgres', /calls pg_read_file/],
  ["SELECT pg_read_file -- x\n ('/etc/passwd')", 'postgres', /calls pg_read_file/],
  ['SELECT U&"\\0070g_ls_dir"(\'/\')', 'postgres', /written with escapes/],
  ['SELECT pg_terminate_backend(1)', 'postgres', /calls pg_terminate_backend/],
  ['SELECT pg_advisory_lock(1)', 'postgres', /calls pg_advisory_lock/],
  ["SELECT set_config('role', 'postgres', true)", 'postgres', /calls set_config/],
  ["SELECT LOAD_FILE('/etc/passwd')", 'mysql', /calls load_file/],
  ["SELECT `GET_LOCK`('x', 0)", 'mysql', /calls get_lock/],
  ["SELECT BENCHMARK(1e9, MD5('x'))", 'mysql', /calls benchmark/],
  ["SELECT load_extension('x')", 'sqlite', /calls load_extension/],
  // In MySQL a comment does not nest: the DELETE is code there.
  ['/* /* */ DELETE FROM t */ SELECT 1', 'mysql', /DELETE/],
];

describe('the classifier', () => {
  for (const [sql, dialect] of reads) {
    test(`${dialect}: reads ${JSON.stringify(sql)}`, () => {
      assert.deepEqual(classifySql(sql, dialect).read, true, JSON.stringify(classifySql(sql, dialect)));
    });
  }
  for (const [sql, dialect, reason] of refusals) {
    test(`${dialect}: refuses ${JSON.stringify(sql)}`, () => {
      const verdict = classifySql(sql, dialect);
      assert.equal(verdict.read, false);
      assert.match((verdict as { reason: string }).reason, reason);
    });
  }
});

const text = (r: ToolResult) => (r.content[0] as { text: string }).text;

for (const engine of ENGINES) {
  describe(`${engine}: nothing writes through a read`, () => {
    // Each test carries the skip (so the runner counts it as skipped, with the reason).
    const skip = skipFor(engine);
    let db: TestDatabase;
    let writable: SqlCapability;
    let readOnly: SqlCapability;
    const closers: (() => Promise<void>)[] = [];
    const q = (name: string) => writable.quoteIdentifier(name);
    const counts = async () => {
      const rows = await db.admin(
        `SELECT (SELECT COUNT(*) FROM ${q(CUSTOMERS)}) AS customers, (SELECT COUNT(*) FROM ${q(ITEMS)}) AS items`,
      );
      return { customers: Number(rows[0]!.customers), items: Number(rows[0]!.items) };
    };

    before(async () => {
      if (skip) return;
      db = await createDatabase(engine, 'readonly');
      // The test login is a superuser (root): the opt-in leaves only the read-only layers between
      // sql-query and the database, which is what these tests probe (privileged-role.test.ts covers
      // the refusal itself).
      const rw = await db.open({ readOnly: false, allowPrivilegedRole: true });
      const ro = await db.open({ allowPrivilegedRole: true });
      writable = rw.sql;
      readOnly = ro.sql;
      closers.push(
        () => rw.opened.dispose(),
        () => ro.opened.dispose(),
      );
    });
    after(async () => {
      for (const close of closers) await close();
      await db?.drop();
    });

    const attacks = () => [
      `INSERT INTO ${q(CUSTOMERS)} (id, ${q('E-mail')}) VALUES (9, 'x@example.com')`,
      `UPDATE ${q(CUSTOMERS)} SET name = 'pwned'`,
      `DELETE FROM ${q(ITEMS)}`,
      `DROP TABLE ${q(ITEMS)}`,
      `CREATE TABLE ${q('evil')} (a INTEGER)`,
      `ALTER TABLE ${q(CUSTOMERS)} ADD COLUMN z INTEGER`,
      `SELECT 1; DELETE FROM ${q(ITEMS)}`,
      `SELECT 1 /* looks harmless */; DELETE FROM ${q(ITEMS)} -- tail`,
      `WITH gone AS (DELETE FROM ${q(ITEMS)} RETURNING id) SELECT * FROM gone`,
      `SELECT * INTO ${q('copy')} FROM ${q(CUSTOMERS)}`,
      // An executable comment: code on MySQL, a plain comment (and so an inert SELECT 1) elsewhere.
      ...(engine === 'mysql' ? [`/*!50000 DELETE FROM ${q(ITEMS)} */ SELECT 1`] : []),
    ];

    test('the sql-query tool refuses every write, and the rows stay', { skip }, async () => {
      const before = await counts();
      const ctx = testContext({ baseDir: '.', name: 'query', sources: { db: { sql: readOnly } } });
      const tool = sqlQueryTool.compile({ kind: 'sql-query', source: 'db' }, ctx);
      assert.ok(tool, JSON.stringify(ctx.errors));
      for (const sql of attacks()) {
        const result = await tool.run({ sql }, callContext());
        assert.equal(result.isError, true, `${sql} → ${text(result)}`);
        assert.match(text(result), /^Query refused: /, sql);
      }
      assert.deepEqual(await counts(), before);
    });

    test('a read-only call on a writable source refuses every write, and the rows stay', {
      skip,
    }, async () => {
      const before = await counts();
      for (const sql of attacks()) {
        await assert.rejects(
          writable.query({ segments: [sql], params: [] }, [], {
            maxRows: 10,
            timeoutMs: 5000,
            signal: new AbortController().signal,
            readOnly: true,
          }),
          /refused|read-only/,
          sql,
        );
      }
      assert.deepEqual(await counts(), before);
    });

    test('a read-only source refuses writes even when the call does not ask', { skip }, async () => {
      const before = await counts();
      for (const sql of attacks()) {
        await assert.rejects(
          readOnly.query({ segments: [sql], params: [] }, [], {
            maxRows: 10,
            timeoutMs: 5000,
            signal: new AbortController().signal,
          }),
          /refused|read-only/,
          sql,
        );
      }
      assert.deepEqual(await counts(), before);
    });

    test('"; DROP …" smuggled in a bound value is inert', { skip }, async () => {
      const before = await counts();
      const ctx = testContext({ baseDir: '.', name: 'find', sources: { db: { sql: writable } } });
      const tool = sqlTool.compile(
        {
          kind: 'sql',
          source: 'db',
          input: { name: { type: 'string' } },
          sql: `SELECT id FROM ${q(CUSTOMERS)} WHERE name = :name`,
        },
        ctx,
      );
      assert.ok(tool, JSON.stringify(ctx.errors));
      for (const name of [`x'; DROP TABLE ${q(ITEMS)}; --`, "' OR '1'='1", `1; DELETE FROM ${q(ITEMS)}`]) {
        const result = await tool.run({ name }, callContext());
        assert.equal(text(result), 'No rows.', name);
      }
      assert.deepEqual(await counts(), before);
    });

    if (engine !== 'sqlite') {
      test('the read-only transaction stops a write the classifier cannot see', { skip }, async () => {
        // A function call reads as a SELECT, but nextval() writes: the transaction refuses it.
        await db.admin(`CREATE SEQUENCE ${q('seq ✓')}`);
        const sql =
          engine === 'postgres' ? `SELECT nextval('${q('seq ✓')}')` : `SELECT NEXTVAL(${q('seq ✓')})`;
        assert.equal(classifySql(sql, engine).read, true);
        const call = (text: string, readOnly: boolean) =>
          writable.query(parseSqlParams(text), [], {
            maxRows: 10,
            timeoutMs: 5000,
            signal: new AbortController().signal,
            readOnly,
          });
        // Again after a read and after a write on the pool's connections (session settings and
        // prepared statements are kept per connection between calls).
        for (const before of [undefined, 'read', 'write'] as const) {
          if (before) await call('SELECT 1 AS one', before === 'read');
          await assert.rejects(call(sql, true), /read-only transaction|READ ONLY transaction/i);
        }
      });
    }
  });
}
