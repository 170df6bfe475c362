import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ToolResult } from '../../../src/catalog/types.js';
import type { SourceCapabilities, ToolCommon } from '../../../src/kinds/contract/kinds.js';
import { type SqlToolConfig, sqlTool } from '../../../src/kinds/sql/sql-tool.js';
import { sqliteSource } from '../../../src/kinds/sql/sqlite/source.js';
import { callContext, tempDir, testContext } from '../context.js';

const SEED = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL, name TEXT NOT NULL, note TEXT);
INSERT INTO customers (email, name, note) VALUES
  ('ann@example.com', 'Ann', NULL), ('bob@example.com', 'Bob', 'pipes | and
newlines'), ('cy@example.com', 'Cy', NULL), ('dee@example.com', 'Dee', NULL);
CREATE TABLE secrets (id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO secrets (value) VALUES ('s1'), ('s2');
`;

const dir = tempDir();
const sources: Record<string, Partial<SourceCapabilities>> = {};
const disposers: (() => Promise<void>)[] = [];

before(async () => {
  writeFileSync(join(dir, 'seed.sql'), SEED);
  for (const [name, readOnly] of [
    ['ro', true],
    ['rw', false],
  ] as const) {
    const ctx = testContext({ baseDir: dir, name });
    const opened = await sqliteSource.open(
      { path: `${name}.db`, seed: 'seed.sql', readOnly, maxRows: 3 },
      ctx,
    );
    assert.ok(opened, JSON.stringify(ctx.errors));
    sources[name] = opened.capabilities;
    disposers.push(() => opened.dispose());
  }
});
after(() => Promise.all(disposers.map((d) => d())));

type Config = Omit<SqlToolConfig, 'kind'> & Partial<ToolCommon>;

function compile(config: Config) {
  const ctx = testContext({ baseDir: dir, name: 'tool', sources });
  const tool = sqlTool.compile({ kind: 'sql', ...config }, ctx);
  return { ctx, tool };
}

async function run(config: Config, args: Record<string, unknown> = {}) {
  const { ctx, tool } = compile(config);
  assert.ok(tool, JSON.stringify(ctx.errors));
  return tool.run(args, callContext());
}

const text = (result: ToolResult) => (result.content[0] as { text: string }).text;

const count = async (table: string) =>
  (
    (await run({ source: 'rw', sql: `SELECT count(*) AS n FROM ${table}` })).structuredContent as {
      rows: { n: number }[];
    }
  ).rows[0]!.n;

test('rows come back as a markdown table with a footer and structured content', async () => {
  const result = await run(
    {
      source: 'ro',
      sql: 'SELECT id, email FROM customers WHERE email = :email',
      input: { email: { type: 'string' } },
    },
    { email: 'ann@example.com' },
  );
  assert.equal(result.isError, undefined);
  assert.equal(text(result), '| id | email |\n| --- | --- |\n| 1 | ann@example.com |\n\n1 row.');
  assert.deepEqual(result.structuredContent, {
    rows: [{ id: 1, email: 'ann@example.com' }],
    rowCount: 1,
    truncated: false,
  });
});

test('cells: JSON for non-strings, pipes and newlines escaped, long values cut', async () => {
  const result = await run({
    source: 'ro',
    sql: "SELECT note, NULL AS n, 1.5 AS f, printf('%.300c', 'x') AS long FROM customers WHERE id = 2",
  });
  const row = text(result).split('\n')[2]!;
  assert.ok(row.startsWith('| pipes \\| and\\nnewlines | null | 1.5 | xxx'), row);
  assert.ok(row.includes(`${'x'.repeat(199)}… |`), row);
  assert.ok(!row.includes('x'.repeat(200)));
});

test('truncation: the footer says so, rowCount is what was returned; the source maxRows is the default', async () => {
  const result = await run({ source: 'ro', sql: 'SELECT id FROM customers ORDER BY id' });
  assert.deepEqual(result.structuredContent, {
    rows: [{ id: 1 }, { id: 2 }, { id: 3 }],
    rowCount: 3,
    truncated: true,
  });
  assert.match(
    text(result),
    /\n\nShowing the first 3 rows; more exist \(truncated at 3 rows\)\. Narrow the query or ask for fewer rows\.$/,
  );
  const toolLimit = await run({ source: 'ro', sql: 'SELECT id FROM customers ORDER BY id', maxRows: 10 });
  assert.deepEqual(toolLimit.structuredContent, {
    rows: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }],
    rowCount: 4,
    truncated: false,
  });
  assert.match(text(toolLimit), /\n\n4 rows\.$/);
});

test('no rows says so', async () => {
  const result = await run({ source: 'ro', sql: 'SELECT id FROM customers WHERE 0' });
  assert.equal(text(result), 'No rows.');
  assert.deepEqual(result.structuredContent, { rows: [], rowCount: 0, truncated: false });
});

test('an absent optional argument binds as NULL, and a name may repeat', async () => {
  const config: Config = {
    source: 'ro',
    sql: 'SELECT name FROM customers WHERE (:email IS NULL OR email = :email) ORDER BY id',
    input: { email: { type: 'string', required: false } },
    maxRows: 10,
  };
  assert.equal(
    (await run(config)).structuredContent &&
      ((await run(config)).structuredContent as { rowCount: number }).rowCount,
    4,
  );
  assert.deepEqual((await run(config, { email: 'cy@example.com' })).structuredContent, {
    rows: [{ name: 'Cy' }],
    rowCount: 1,
    truncated: false,
  });
});

test('injection attempts through bound values match nothing and change nothing', async () => {
  const before = await count('customers');
  const byEmail: Config = {
    source: 'rw',
    sql: 'SELECT * FROM customers WHERE email = :email',
    input: { email: { type: 'string' } },
  };
  for (const attack of [
    "' OR 1=1 --",
    "x' OR '1'='1",
    '1; DROP TABLE customers',
    "'; DELETE FROM customers; --",
  ]) {
    const result = await run(byEmail, { email: attack });
    assert.equal(result.isError, undefined);
    assert.equal(text(result), 'No rows.');
  }
  const byId: Config = {
    source: 'rw',
    sql: 'SELECT value FROM secrets WHERE id = :id',
    input: { id: { type: 'string' } },
  };
  assert.equal(text(await run(byId, { id: '1 OR 1=1' })), 'No rows.');
  assert.equal(text(await run(byId, { id: '1; DROP TABLE secrets' })), 'No rows.');
  assert.equal(await count('customers'), before);
  assert.equal(await count('secrets'), 2);
});

test('writes: an error on a read-only source (as with readOnly: true), counted on a writable one', async () => {
  const insert: Config = {
    sql: 'INSERT INTO secrets (value) VALUES (:v)',
    source: 'ro',
    input: { v: { type: 'string' } },
  };
  const refused = compile(insert);
  assert.equal(refused.tool, undefined);
  assert.deepEqual(refused.ctx.codes(), ['SQL_WRITE_NOT_ALLOWED']);
  assert.match(refused.ctx.errors[0]!.problem.message, /^source "ro" is read-only, but /);

  const done = await run({ ...insert, source: 'rw' }, { v: 'x' });
  assert.equal(done.isError, undefined, text(done));
  assert.equal(text(done), '1 row changed.');
  assert.deepEqual(done.structuredContent, { changes: 1 });
  assert.equal(await count('secrets'), 3);
  const deleted = await run({ source: 'rw', sql: "DELETE FROM secrets WHERE value = 'x'" });
  assert.equal(text(deleted), '1 row changed.');
});

test('a driver error at run time is a result with isError, not a throw', async () => {
  const result = await run({ source: 'ro', sql: 'SELECT abs(-9223372036854775807 - 1) AS n' });
  assert.equal(result.isError, true);
  assert.equal(text(result), 'SQL error: integer overflow');
});

test('SQL_INVALID: a statement the source cannot prepare fails at compile time', () => {
  const { ctx, tool } = compile({ source: 'ro', sql: 'SELECT * FROM missing_table' });
  assert.equal(tool, undefined);
  assert.deepEqual(ctx.codes(), ['SQL_INVALID']);
  assert.match(ctx.errors[0]!.problem.message, /no such table: missing_table/);
});

test('annotations: readOnlyHint only for a read-only source', () => {
  assert.deepEqual(compile({ source: 'ro', sql: 'SELECT 1' }).tool?.annotations, { readOnlyHint: true });
  assert.equal(compile({ source: 'rw', sql: 'SELECT 1' }).tool?.annotations, undefined);
});

test('SQL_PARAM_UNDECLARED: every undeclared parameter, with did-you-mean and the declared list', () => {
  const { ctx, tool } = compile({
    source: 'ro',
    sql: 'SELECT * FROM customers WHERE email = :emial AND name = :zzz AND email = :emial',
    input: { email: { type: 'string' }, limit: { type: 'integer' } },
  });
  assert.equal(tool, undefined);
  assert.deepEqual(ctx.codes(), ['SQL_PARAM_UNDECLARED', 'SQL_PARAM_UNDECLARED']);
  assert.deepEqual(ctx.errors[0]!.at, ['sql']);
  assert.match(ctx.errors[0]!.problem.message, /:emial .*\(did you mean "email"\?\)/);
  assert.equal(ctx.errors[0]!.problem.hint, 'declared input: email, limit');
  assert.doesNotMatch(ctx.errors[1]!.problem.message, /did you mean/);
});

test('a positional ? placeholder is refused; a ? in a string is fine', () => {
  const { ctx, tool } = compile({ source: 'ro', sql: 'SELECT * FROM customers WHERE id = ?' });
  assert.equal(tool, undefined);
  assert.deepEqual(ctx.codes(), ['MANIFEST_INVALID_VALUE']);
  assert.match(ctx.errors[0]!.problem.message, /use named parameters like :name/);
  assert.ok(compile({ source: 'ro', sql: "SELECT 'why?' AS q" }).tool);
});

test('an unknown source is reported at source, together with the SQL problems', () => {
  const { ctx, tool } = compile({ source: 'nope', sql: 'SELECT :x' });
  assert.equal(tool, undefined);
  assert.deepEqual(ctx.codes(), ['SOURCE_UNKNOWN', 'SQL_PARAM_UNDECLARED']);
  assert.deepEqual(ctx.errors[0]!.at, ['source']);
});

test('a cancelled call comes back as an error result', async () => {
  const { tool } = compile({ source: 'ro', sql: 'SELECT 1' });
  const aborted = new AbortController();
  aborted.abort();
  const result = await tool!.run({}, callContext(aborted.signal));
  assert.equal(result.isError, true);
  assert.match(text(result), /cancelled/);
});
