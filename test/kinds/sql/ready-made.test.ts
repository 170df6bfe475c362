/**
 * The ready-made tools (`sql-list-tables`, `sql-describe-table`, `sql-query`) on all three engines:
 * their fixed input and description, what they answer, and the mistakes they answer with a sentence.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ToolResult } from '../../../src/catalog/types.js';
import type { CompiledTool, SqlCapability, ToolCommon, ToolKind } from '../../../src/kinds/contract/kinds.js';
import { sqlDescribeTableTool } from '../../../src/kinds/sql/describe-table-tool.js';
import { sqlListTablesTool } from '../../../src/kinds/sql/list-tables-tool.js';
import { sqlQueryTool } from '../../../src/kinds/sql/query-tool.js';
import {
  CUSTOMERS,
  createDatabase,
  ENGINES,
  ITEMS,
  skipFor,
  type TestDatabase,
  VIEW,
} from '../../helpers/databases.js';
import { callContext, testContext } from '../context.js';

const text = (r: ToolResult) => (r.content[0] as { text: string }).text;

function compile(kind: ToolKind, sql: SqlCapability, extra: Record<string, unknown> = {}): CompiledTool {
  const ctx = testContext({ baseDir: '.', name: 'tool', sources: { db: { sql } } });
  const tool = kind.compile({ kind: kind.kind, source: 'db', ...extra } as ToolCommon, ctx);
  assert.ok(tool, JSON.stringify(ctx.errors));
  return tool;
}

/** The reads each engine has: SQLite has no SHOW or DESCRIBE, PostgreSQL no DESCRIBE. */
const READS: Record<string, string> = {
  sqlite: 'SELECT, WITH … SELECT, VALUES, EXPLAIN or a read-only PRAGMA',
  postgres: 'SELECT, WITH … SELECT, VALUES, TABLE, EXPLAIN or SHOW',
  mysql: 'SELECT, WITH … SELECT, VALUES, EXPLAIN, SHOW or DESCRIBE',
};

for (const engine of ENGINES) {
  describe(`${engine}: ready-made tools`, () => {
    const skip = skipFor(engine);
    let db: TestDatabase;
    let sql: SqlCapability;
    let dispose: () => Promise<void>;
    before(async () => {
      if (skip) return;
      db = await createDatabase(engine, 'ready');
      // The test login is a superuser (root); privileged-role.test.ts covers the refusal.
      const opened = await db.open({ maxRows: 2, allowPrivilegedRole: true });
      sql = opened.sql;
      dispose = () => opened.opened.dispose();
    });
    after(async () => {
      await dispose?.();
      await db?.drop();
    });

    test('sql-list-tables lists tables and views with counts', { skip }, async () => {
      const tool = compile(sqlListTablesTool, sql);
      assert.deepEqual(tool.input, {});
      assert.match(
        tool.description!,
        new RegExp(`^Lists the tables and views of the ${engine} database "db"`),
      );
      const result = await tool.run({}, callContext());
      const tables = (
        result.structuredContent as { tables: { name: string; type: string; columnCount: number }[] }
      ).tables;
      assert.deepEqual(
        tables.map((t) => [t.name, t.type, t.columnCount]),
        [
          [CUSTOMERS, 'table', 4],
          [VIEW, 'view', 2],
          [ITEMS, 'table', 4],
        ],
      );
      assert.match(text(result), /^\| name \| type \| columns \| rows \|\n/);
      assert.match(text(result), /\| order "items" \| table \| 4 \| ~?5 \|/);
    });

    test('sql-describe-table describes a table, and suggests a name for a typo', { skip }, async () => {
      const tool = compile(sqlDescribeTableTool, sql);
      assert.deepEqual(Object.keys(tool.input!), ['table']);
      const result = await tool.run({ table: ITEMS }, callContext());
      assert.equal(result.isError, undefined, text(result));
      assert.match(text(result), /^# Table order "items"\n/);
      assert.match(text(result), /\| customer_id \| [^|]+ \| no \| {2}\| → Customers ✓\.id \|/);
      const detail = result.structuredContent as { primaryKey: string[]; indexes: { name: string }[] };
      assert.deepEqual(detail.primaryKey, ['id']);
      assert.ok(detail.indexes.some((i) => i.name === 'idx by customer'));

      const typo = await tool.run({ table: 'order "item"' }, callContext());
      assert.equal(typo.isError, true);
      assert.equal(
        text(typo),
        `There is no table or view "order \\"item\\"" (did you mean "order \\"items\\""?). Tables: ${CUSTOMERS}, ${VIEW}, ${ITEMS}.`,
      );
      // A name is looked up, never run: SQL in it is just a name that does not exist.
      const sneaky = await tool.run({ table: `${ITEMS}; DROP TABLE x` }, callContext());
      assert.equal(sneaky.isError, true);
    });

    test('sql-query runs one read with the row cap, and refuses the rest with a reason', {
      skip,
    }, async () => {
      const tool = compile(sqlQueryTool, sql);
      assert.deepEqual(Object.keys(tool.input!), ['sql']);
      assert.deepEqual(tool.annotations, { readOnlyHint: true });
      assert.match(tool.description!, /returns at most 2 rows/);
      assert.ok(tool.description!.includes(`Only one ${READS[engine]} statement`), tool.description);
      if (engine === 'sqlite') assert.doesNotMatch(tool.description!, /SHOW|DESCRIBE/);
      const q = (name: string) => sql.quoteIdentifier(name);
      const rows = await tool.run({ sql: `SELECT id, note FROM ${q(ITEMS)} ORDER BY id` }, callContext());
      assert.deepEqual(rows.structuredContent, {
        rows: [
          { id: 1, note: 'first' },
          { id: 2, note: null },
        ],
        rowCount: 2,
        truncated: true,
      });
      assert.match(text(rows), /Showing the first 2 rows; more exist \(truncated at 2 rows\)/);
      // A literal that looks like a parameter is text, not a placeholder.
      const literal = await tool.run({ sql: "SELECT ':name' AS t" }, callContext());
      assert.deepEqual((literal.structuredContent as { rows: unknown[] }).rows, [{ t: ':name' }]);
      const refused = await tool.run({ sql: `DELETE FROM ${q(ITEMS)}` }, callContext());
      assert.equal(refused.isError, true);
      assert.equal(
        text(refused),
        `Query refused: DELETE is not a read statement. Send one ${READS[engine]} statement.`,
      );
      const broken = await tool.run({ sql: 'SELECT * FROM no_such_table' }, callContext());
      assert.equal(broken.isError, true);
      assert.match(text(broken), /^SQL error: .*no_such_table/);
    });

    test('an input: on a ready-made tool is a mistake', { skip }, () => {
      const ctx = testContext({ baseDir: '.', name: 'tool', sources: { db: { sql } } });
      const tool = sqlQueryTool.compile(
        { kind: 'sql-query', source: 'db', input: { x: { type: 'string' } } },
        ctx,
      );
      assert.equal(tool, undefined);
      assert.deepEqual(ctx.codes(), ['MANIFEST_INVALID_VALUE']);
      assert.deepEqual(ctx.errors[0]!.at, ['input']);
    });
  });
}
