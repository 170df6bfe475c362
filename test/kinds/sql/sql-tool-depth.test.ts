/**
 * The `sql` tool beyond one query: continuation pages (`paginate`), identifiers from an enum, the
 * outputSchema derived from SQLite's prepared statement, `readOnly` on the tool, and cancellation
 * from the call's signal. Paging runs on all three engines.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ToolResult } from '../../../src/catalog/types.js';
import type { SqlCapability, ToolCommon } from '../../../src/kinds/contract/kinds.js';
import { type SqlToolConfig, sqlTool } from '../../../src/kinds/sql/sql-tool.js';
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

type Config = Omit<SqlToolConfig, 'kind'> & Partial<ToolCommon>;
const text = (r: ToolResult) => (r.content[0] as { text: string }).text;

function compileWith(sql: SqlCapability, config: Config) {
  const ctx = testContext({ baseDir: '.', name: 'tool', sources: { db: { sql } } });
  return { ctx, tool: sqlTool.compile({ kind: 'sql', ...config }, ctx) };
}

for (const engine of ENGINES) {
  describe(`${engine}: paginate`, () => {
    const skip = skipFor(engine);
    let db: TestDatabase;
    let sql: SqlCapability;
    let dispose: () => Promise<void>;
    before(async () => {
      if (skip) return;
      db = await createDatabase(engine, 'paging');
      const opened = await db.open();
      sql = opened.sql;
      dispose = () => opened.opened.dispose();
    });
    after(async () => {
      await dispose?.();
      await db?.drop();
    });

    test('pages of maxRows with a cursor, to the end, tied to their arguments', { skip }, async () => {
      const { ctx, tool } = compileWith(sql, {
        source: 'db',
        input: { min: { type: 'integer' } },
        sql: `SELECT id FROM ${sql.quoteIdentifier(ITEMS)} WHERE id >= :min ORDER BY id`,
        maxRows: 2,
        paginate: true,
      });
      assert.ok(tool, JSON.stringify(ctx.errors));
      assert.deepEqual(tool.input, { cursor: tool.input!.cursor });
      const seen: unknown[] = [];
      let args: Record<string, unknown> = { min: 1 };
      let pages = 0;
      for (;;) {
        const result: ToolResult = await tool.run(args, callContext());
        assert.equal(result.isError, undefined, text(result));
        const content = result.structuredContent as { rows: unknown[]; nextCursor?: string };
        seen.push(...content.rows);
        pages++;
        if (!content.nextCursor) {
          assert.match(text(result), /Rows 5 to 5; that is all\.$/);
          break;
        }
        assert.match(
          text(result),
          /more exist\. For the next page, call tool again with the same arguments and cursor "/,
        );
        args = { min: 1, cursor: content.nextCursor };
      }
      assert.equal(pages, 3);
      assert.deepEqual(
        seen,
        [1, 2, 3, 4, 5].map((id) => ({ id })),
      );

      const first = (await tool.run({ min: 1 }, callContext())).structuredContent as { nextCursor: string };
      const wrong = await tool.run({ min: 2, cursor: first.nextCursor }, callContext());
      assert.equal(wrong.isError, true);
      assert.match(text(wrong), /not one this tool gave for these arguments; call tool again without cursor/);
      assert.equal((await tool.run({ min: 1, cursor: 'garbage!' }, callContext())).isError, true);
    });
  });
}

describe('sqlite: identifiers, outputSchema, readOnly, cancellation', () => {
  let db: TestDatabase;
  let ro: SqlCapability;
  let rw: SqlCapability;
  const closers: (() => Promise<void>)[] = [];
  before(async () => {
    db = await createDatabase('sqlite', 'depth');
    for (const readOnly of [true, false]) {
      const { sql, opened } = await db.open({ readOnly });
      if (readOnly) ro = sql;
      else rw = sql;
      closers.push(() => opened.dispose());
    }
  });
  after(async () => {
    for (const close of closers) await close();
    await db.drop();
  });

  test('an identifier comes only from its enum and is quoted', async () => {
    const { ctx, tool } = compileWith(ro, {
      source: 'db',
      input: { table: { type: 'string', enum: [CUSTOMERS, ITEMS, VIEW] }, id: { type: 'integer' } },
      identifiers: ['table'],
      sql: 'SELECT count(*) AS n FROM :table WHERE :id > 0',
    });
    assert.ok(tool, JSON.stringify(ctx.errors));
    const count = async (table: string) =>
      ((await tool.run({ table, id: 1 }, callContext())).structuredContent as { rows: { n: number }[] })
        .rows[0]!.n;
    assert.equal(await count(CUSTOMERS), 3);
    assert.equal(await count(ITEMS), 5);
    assert.equal(await count(VIEW), 3);
    // Even a caller that skips input validation cannot bring its own name.
    const free = await tool.run({ table: 'sqlite_schema', id: 1 }, callContext());
    assert.equal(free.isError, true);
    assert.match(text(free), /^table must be one of "Customers ✓", /);
  });

  test('an identifier without an enum, or one the SQL does not use, is a compile error', () => {
    const free = compileWith(ro, {
      source: 'db',
      input: { table: { type: 'string' } },
      identifiers: ['table'],
      sql: 'SELECT * FROM :table',
    });
    assert.equal(free.tool, undefined);
    assert.deepEqual(free.ctx.codes(), ['SQL_IDENTIFIER_NOT_ENUM']);
    assert.match(free.ctx.errors[0]!.problem.message, /:table needs an enum/);
    const unused = compileWith(ro, {
      source: 'db',
      input: { table: { type: 'string', enum: ['a'] } },
      identifiers: ['table'],
      sql: 'SELECT 1',
    });
    assert.deepEqual(unused.ctx.codes(), ['MANIFEST_INVALID_VALUE']);
    // Every enum value is checked against the database when the manifest loads.
    const typo = compileWith(ro, {
      source: 'db',
      input: { table: { type: 'string', enum: [CUSTOMERS, 'Custmers'] } },
      identifiers: ['table'],
      sql: 'SELECT * FROM :table',
    });
    assert.deepEqual(typo.ctx.codes(), ['SQL_INVALID']);
    assert.match(typo.ctx.errors[0]!.problem.message, /no such table: Custmers/);
  });

  test('the outputSchema is derived from the prepared statement, and results satisfy it', async () => {
    const { tool } = compileWith(ro, {
      source: 'db',
      sql: `SELECT c.id, c."E-mail", c.name, count(i.id) AS items, 1.5 AS ratio
            FROM "Customers ✓" c LEFT JOIN "order ""items""" i ON i.customer_id = c.id GROUP BY c.id ORDER BY c.id`,
    });
    assert.deepEqual(tool?.outputSchema, {
      type: 'object',
      properties: {
        rows: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: ['number', 'string', 'null'], description: 'SQL type INTEGER' },
              'E-mail': { type: ['string', 'null'], description: 'SQL type VARCHAR(200)' },
              name: { type: ['string', 'null'], description: 'SQL type TEXT' },
              items: {},
              ratio: {},
            },
            required: ['id', 'E-mail', 'name', 'items', 'ratio'],
          },
        },
        rowCount: { type: 'integer', minimum: 0, description: 'How many rows this result holds.' },
        truncated: { type: 'boolean', description: 'More rows exist than this result holds.' },
      },
      required: ['rows', 'rowCount', 'truncated'],
    });
    const result = await tool!.run({}, callContext());
    assert.deepEqual((result.structuredContent as { rows: unknown[] }).rows[0], {
      id: 1,
      'E-mail': 'ann@example.com',
      name: 'Ann',
      items: 2,
      ratio: 1.5,
    });
    // A write has no rows, so no schema is derived for it.
    assert.equal(
      compileWith(rw, { source: 'db', sql: 'DELETE FROM "Customers ✓" WHERE 0' }).tool?.outputSchema,
      undefined,
    );
  });

  test('readOnly on the tool: true keeps a writable source to reads, false needs a writable source', async () => {
    const reads = compileWith(rw, {
      source: 'db',
      readOnly: true,
      sql: 'SELECT count(*) AS n FROM "Customers ✓"',
    });
    assert.deepEqual(reads.tool?.annotations, { readOnlyHint: true });
    const writesMarkedRead = compileWith(rw, {
      source: 'db',
      readOnly: true,
      sql: 'DELETE FROM "Customers ✓"',
    });
    assert.deepEqual(writesMarkedRead.ctx.codes(), ['SQL_WRITE_NOT_ALLOWED']);
    assert.match(
      writesMarkedRead.ctx.errors[0]!.problem.message,
      /readOnly: true, but DELETE is not a read statement/,
    );
    const writeOnReadOnly = compileWith(ro, {
      source: 'db',
      readOnly: false,
      sql: 'DELETE FROM "Customers ✓"',
    });
    assert.deepEqual(writeOnReadOnly.ctx.codes(), ['SQL_WRITE_NOT_ALLOWED']);
    assert.match(writeOnReadOnly.ctx.errors[0]!.problem.message, /source "db" is read-only/);
    const writes = compileWith(rw, {
      source: 'db',
      readOnly: false,
      sql: 'UPDATE "Customers ✓" SET name = name WHERE id = 1',
    });
    assert.equal(text(await writes.tool!.run({}, callContext())), '1 row changed.');
  });

  test('paginate needs a row set and leaves the name "cursor" to itself', () => {
    const write = compileWith(rw, { source: 'db', paginate: true, sql: 'DELETE FROM "Customers ✓"' });
    assert.deepEqual(write.ctx.codes(), ['MANIFEST_INVALID_VALUE']);
    const clash = compileWith(ro, {
      source: 'db',
      paginate: true,
      input: { cursor: { type: 'string' } },
      sql: 'SELECT :cursor AS c',
    });
    assert.deepEqual(clash.ctx.codes(), ['MANIFEST_INVALID_VALUE']);
  });

  test('a cancelled call stops between rows and says so', async () => {
    const { tool } = compileWith(ro, {
      source: 'db',
      sql: 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n',
      maxRows: 1e9,
    });
    const controller = new AbortController();
    controller.abort();
    const result = await tool!.run({}, callContext(controller.signal));
    assert.equal(result.isError, true);
    assert.equal(text(result), 'SQL error: the query was cancelled');
  });
});
