/**
 * The `duckdb` source against the real engine (@duckdb/node-api): reading the declared files (CSV,
 * Parquet, JSON, a database file), and every way out refused at two layers, the family's classifier
 * and, with it bypassed (the engine's own `run`), DuckDB itself: files outside the declared folders,
 * symlinks out of them, URLs, writes, ATTACH, INSTALL, LOAD and SET, with no side effect left. Then
 * the limits: the byte budget over a million rows, the memory limit, the time limit and a
 * cancellation that interrupt the query in the engine, the event loop answering meanwhile, and 32
 * calls at once.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import type { SqlCapability } from '../../../../src/kinds/contract/kinds.js';
import { type DuckdbConfig, duckdbSource, openDuckdb } from '../../../../src/kinds/sql/duckdb/source.js';
import type { EngineRun, SqlEngine } from '../../../../src/kinds/sql/engine.js';
import { sqlQueryTool } from '../../../../src/kinds/sql/query-tool.js';
import { sqlTool } from '../../../../src/kinds/sql/sql-tool.js';
import { runSql as runOn } from '../../../helpers/databases.js';
import { callContext, tempDir, testContext } from '../../context.js';

const dir = tempDir('mcp-run-duckdb-');
const data = join(dir, 'data');
const outside = join(dir, 'outside');
const closers: (() => Promise<void>)[] = [];
let files: { sql: SqlCapability; engine: SqlEngine };
let database: { sql: SqlCapability; engine: SqlEngine };

before(async () => {
  mkdirSync(data);
  mkdirSync(outside);
  writeFileSync(join(data, 'sales.csv'), 'region,amount\nnorth,10\nsouth,20\nnorth,5\n');
  writeFileSync(join(data, 'events.json'), '[{"kind":"click","n":1},{"kind":"view","n":2}]');
  writeFileSync(join(outside, 'secret.csv'), 'secret\nhunter2\n');
  // In a folder of its own: a glob that matches it fails as a whole (DuckDB refuses the file).
  mkdirSync(join(data, 'sub'));
  symlinkSync(join(outside, 'secret.csv'), join(data, 'sub', 'escape.csv'));
  mkdirSync(join(dir, 'links'));
  symlinkSync(outside, join(dir, 'links', 'out'));
  symlinkSync(join(data, 'sales.csv'), join(dir, 'links', 'sales.csv'));
  // The Parquet file and the database file, written by a DuckDB of the test's own (no isolation).
  const maker = await DuckDBInstance.create(join(dir, 'shop.duckdb'));
  const conn = await maker.connect();
  await conn.run(
    `COPY (SELECT range AS id, 'item ' || range AS name FROM range(5)) TO '${join(data, 'items.parquet')}' (FORMAT parquet)`,
  );
  await conn.run("CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL DEFAULT 'x')");
  await conn.run("INSERT INTO customers VALUES (1, 'Ada'), (2, 'Alan')");
  conn.closeSync();
  maker.closeSync();
  files = await open({
    files: ['./data', './links'],
    tables: { sales: 'data/sales.csv', items: 'data/*.parquet' },
    timeoutMs: 4000,
  });
  database = await open({ path: './shop.duckdb', files: ['data/*.csv'] });
});
after(async () => {
  for (const close of closers) await close();
});

async function open(config: DuckdbConfig): Promise<{ sql: SqlCapability; engine: SqlEngine }> {
  const ctx = testContext({ baseDir: dir, name: 'files' });
  const result = await openDuckdb(config, ctx);
  assert.ok(result, JSON.stringify(ctx.errors));
  closers.push(() => result.opened.dispose());
  return { sql: result.opened.capabilities.sql!, engine: result.engine };
}

/** DuckDB reads only absolute paths under `enable_external_access = false`: 'data/x' → '<dir>/data/x'. */
const abs = (text: string) => text.replaceAll(/'(data|links|outside)\//g, `'${dir}/$1/`);
function runSql(
  sql: SqlCapability,
  text: string,
  values: unknown[] = [],
  extra: Parameters<typeof runOn>[3] = {},
) {
  return runOn(sql, abs(text), values, extra);
}

/** The engine alone: no classifier, no statement-type check (readOnly false), only its settings. */
const raw = (engine: SqlEngine, text: string, extra: Partial<EngineRun> = {}) =>
  engine.run(abs(text), [], {
    readOnly: false,
    rowSet: true,
    maxRows: 10,
    maxBytes: 1 << 20,
    timeoutMs: 4000,
    offset: 0,
    signal: new AbortController().signal,
    ...extra,
  });

describe('reading the declared files', () => {
  test('a CSV file by a path relative to the manifest folder, with a bound value', async () => {
    const result = await runSql(
      files.sql,
      "SELECT region, sum(amount) AS total FROM 'data/sales.csv' WHERE region = :r GROUP BY region",
      ['north'],
    );
    assert.deepEqual(result.rows, [{ region: 'north', total: 15 }]);
  });

  test('Parquet and JSON by absolute path, FROM-first and DESCRIBE', async () => {
    const parquet = await runSql(files.sql, `FROM '${join(data, 'items.parquet')}' SELECT name WHERE id = 3`);
    assert.deepEqual(parquet.rows, [{ name: 'item 3' }]);
    const json = await runSql(files.sql, "SELECT kind, n FROM 'data/events.json' ORDER BY n");
    assert.deepEqual(json.rows, [
      { kind: 'click', n: 1 },
      { kind: 'view', n: 2 },
    ]);
    const describe = await runSql(files.sql, "DESCRIBE SELECT * FROM 'data/items.parquet'");
    assert.deepEqual(
      describe.rows.map((r) => r.column_name),
      ['id', 'name'],
    );
  });

  test('a symlink inside a declared folder that points inside works; a declared folder may be a symlink', async () => {
    const result = await runSql(files.sql, "SELECT count(*) AS n FROM 'links/sales.csv'");
    assert.deepEqual(result.rows, [{ n: 3 }]);
  });

  test('the tables are views over their files; a relative path is refused with what can be read', async () => {
    const result = await runSql(
      files.sql,
      'SELECT s.region, i.name FROM sales s, items i WHERE i.id = s.amount / 5 ORDER BY 2',
    );
    assert.deepEqual(result.rows, [
      { region: 'north', name: 'item 1' },
      { region: 'north', name: 'item 2' },
      { region: 'south', name: 'item 4' },
    ]);
    await assert.rejects(
      runOn(files.sql, "SELECT * FROM 'data/sales.csv'"),
      (err: Error) =>
        /Permission Error/.test(err.message) &&
        err.message.includes(`the files ${data}/…`) &&
        err.message.includes('the tables sales, items'),
    );
  });

  test('a sql tool pages through a view with a cursor, as on the other engines', async () => {
    const ctx = testContext({ baseDir: dir, sources: { files: { sql: files.sql } } });
    const tool = sqlTool.compile(
      {
        kind: 'sql',
        source: 'files',
        input: { region: { type: 'string' } },
        sql: "SELECT amount FROM sales WHERE region = :region OR :region = 'all' ORDER BY amount",
        maxRows: 2,
        paginate: true,
      },
      ctx,
    );
    assert.ok(tool, JSON.stringify(ctx.errors));
    const first = (await tool.run({ region: 'all' }, callContext())).structuredContent as {
      rows: unknown[];
      nextCursor?: string;
    };
    assert.deepEqual(first.rows, [{ amount: 5 }, { amount: 10 }]);
    const second = (await tool.run({ region: 'all', cursor: first.nextCursor }, callContext()))
      .structuredContent as { rows: unknown[]; nextCursor?: string };
    assert.deepEqual(second.rows, [{ amount: 20 }]);
    assert.equal(second.nextCursor, undefined);
  });

  test('a bound value is a value: quotes and statements in it are inert', async () => {
    const evil = "north'; COPY (SELECT 1) TO 'data/pwned.csv'; --";
    const result = await runSql(files.sql, "SELECT count(*) AS n FROM 'data/sales.csv' WHERE region = :r", [
      evil,
    ]);
    assert.deepEqual(result.rows, [{ n: 0 }]);
    assert.equal(existsSync(join(data, 'pwned.csv')), false);
  });

  test('values come back JSON-safe: dates as text, big integers, lists and structs', async () => {
    const result = await runSql(
      files.sql,
      "SELECT DATE '2024-01-31' AS d, TIMESTAMP '2024-01-31 12:00:00' AS t, 2::HUGEINT ** 70 AS big, 9007199254740993::BIGINT AS i, [1, 2] AS l, {'a': 1} AS s, 1.25::DECIMAL(5, 2) AS m",
    );
    assert.deepEqual(result.rows, [
      {
        d: '2024-01-31',
        t: '2024-01-31 12:00:00',
        big: 1.1805916207174113e21,
        i: '9007199254740993',
        l: [1, 2],
        s: { a: 1 },
        m: 1.25,
      },
    ]);
  });

  test('a database file opens read-only, and its tables are there', async () => {
    const result = await runSql(database.sql, 'SELECT name FROM customers ORDER BY id');
    assert.deepEqual(result.rows, [{ name: 'Ada' }, { name: 'Alan' }]);
    await assert.rejects(raw(database.engine, "INSERT INTO customers VALUES (3, 'Eve')"), /read-only mode/);
    const after = await runSql(database.sql, 'SELECT count(*) AS n FROM customers');
    assert.deepEqual(after.rows, [{ n: 2 }]);
  });
});

/** Each way out: the SQL, what the classifier says, and what DuckDB itself says with it bypassed. */
const escapes: { what: string; sql: string; classifier: RegExp; engine: RegExp; leaves?: string }[] = [
  {
    what: 'reading /etc/passwd',
    sql: "SELECT * FROM read_text('/etc/passwd')",
    classifier: /^$/, // a plain SELECT: the engine is the layer that refuses it
    engine: /Permission Error: Cannot access file "\/etc\/passwd"/,
  },
  {
    what: 'reading a file beside the declared folder with ..',
    sql: "SELECT * FROM 'data/../outside/secret.csv'",
    classifier: /^$/,
    engine: /Permission Error/,
  },
  {
    what: 'a symlink in a declared folder that points outside it',
    sql: "SELECT * FROM 'data/sub/escape.csv'",
    classifier: /^$/,
    engine: /Permission Error: Cannot access file ".*escape\.csv"/,
  },
  {
    what: 'a symlinked folder in a declared folder that points outside it',
    sql: "SELECT * FROM 'links/out/secret.csv'",
    classifier: /^$/,
    engine: /Permission Error/,
  },
  {
    what: 'an HTTP URL',
    sql: "SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')",
    classifier: /^$/,
    engine: /Permission Error|disabled/,
  },
  {
    what: 'a glob over the whole disk',
    sql: "SELECT * FROM glob('/etc/*')",
    classifier: /^$/,
    engine: /Permission Error/,
  },
  {
    what: 'COPY … TO a file outside',
    sql: `COPY (SELECT 1) TO '${join(dir, 'copied.csv')}'`,
    classifier: /COPY is not a read/,
    engine: /Permission Error/,
    leaves: join(dir, 'copied.csv'),
  },
  {
    what: 'ATTACH of another database',
    sql: `ATTACH '${join(dir, 'other.duckdb')}' AS other`,
    classifier: /ATTACH is not a read/,
    engine: /Permission Error/,
    leaves: join(dir, 'other.duckdb'),
  },
  {
    what: 'INSTALL',
    sql: 'INSTALL httpfs',
    classifier: /INSTALL is not a read/,
    engine: /Permission Error|disabled/,
  },
  {
    what: 'LOAD',
    sql: 'LOAD httpfs',
    classifier: /LOAD is not a read/,
    engine: /Loading external extensions is disabled/,
  },
  {
    what: 'SET of a locked setting',
    sql: 'SET enable_external_access = true',
    classifier: /SET is not a read/,
    engine: /the configuration has been locked/,
  },
  {
    what: 'SET of the memory limit',
    sql: "SET memory_limit = '100GB'",
    classifier: /SET is not a read/,
    engine: /the configuration has been locked/,
  },
  {
    what: 'PRAGMA that changes a setting',
    sql: 'PRAGMA threads = 64',
    classifier: /PRAGMA threads is not one of the pragmas/,
    engine: /the configuration has been locked/,
  },
];

describe('every way out is refused, by the classifier and by the engine alone', () => {
  for (const way of escapes) {
    test(way.what, async () => {
      const tool = await queryTool(files.sql);
      const answer = await tool(way.sql);
      assert.equal(answer.isError, true, answer.text);
      if (way.classifier.source !== '^$') assert.match(answer.text, way.classifier);
      else assert.match(answer.text, way.engine);
      await assert.rejects(raw(files.engine, way.sql), way.engine);
      if (way.leaves) assert.equal(existsSync(way.leaves), false, `${way.leaves} was written`);
      // The isolation still holds afterwards.
      await assert.rejects(raw(files.engine, "SELECT * FROM read_text('/etc/passwd')"), /Permission Error/);
    });
  }

  test('COPY … TO a declared folder: the engine would write it, DuckDB’s parser refuses it', async () => {
    const target = join(data, 'copied.csv');
    await assert.rejects(runSql(files.sql, `COPY (SELECT 1) TO '${target}'`), /the source is read-only/);
    await assert.rejects(
      raw(files.engine, `COPY (SELECT 1) TO '${target}'`, { readOnly: true }),
      /refused by DuckDB: the statement is not a SELECT/,
    );
    await assert.rejects(
      raw(files.engine, `EXPORT DATABASE '${join(data, 'exported')}'`, { readOnly: true }),
      /refused by DuckDB: the statement is not a SELECT/,
    );
    await assert.rejects(
      raw(files.engine, 'CREATE TEMP TABLE t AS SELECT 1', { readOnly: true }),
      /refused by DuckDB: the statement is not a SELECT/,
    );
    assert.deepEqual(readdirSync(data).sort(), ['events.json', 'items.parquet', 'sales.csv', 'sub']);
  });

  test('a declared glob allows its folder; a file outside it stays refused', async () => {
    const result = await runSql(database.sql, "SELECT count(*) AS n FROM 'data/sales.csv'");
    assert.deepEqual(result.rows, [{ n: 3 }]);
    await assert.rejects(raw(database.engine, "SELECT * FROM 'outside/secret.csv'"), /Permission Error/);
  });
});

describe('red team: what the other engines are tried with', () => {
  const tries: [string, RegExp][] = [
    ["SELECT 1; COPY (SELECT 1) TO 'data/x.csv'", /only one statement/],
    ["SELECT 1 /* ; */; ATTACH 'x.db'", /only one statement/],
    ["/* SELECT 1 */ COPY (SELECT 1) TO 'data/x.csv'", /COPY is not a read/],
    ['SELECT 1 -- \n; INSTALL httpfs', /only one statement/],
    ['SELECT $$;$$; LOAD httpfs', /only one statement/],
    ["SELECT E'\\'; SET threads = 1; --'", /^(?!.*refused).*/],
    ["SELECT '; SET threads = 1; --' AS s", /^(?!.*refused).*/],
    ["WITH x AS (SELECT 1) COPY x TO 'data/x.csv'", /contains COPY/],
    ["SELECT * FROM query('COPY (SELECT 1) TO ''data/x.csv''')", /Expected a single SELECT statement/],
    ['/* /* */ SET threads = 1 */ SELECT 1', /^(?!.*refused).*/],
    ["EXPLAIN EXPORT DATABASE 'data/x.csv'", /contains EXPORT/],
    ['EXPLAIN SELECT 1', /refused by DuckDB: the statement is not a SELECT/],
  ];
  for (const [sql, expected] of tries) {
    test(JSON.stringify(sql), async () => {
      const tool = await queryTool(files.sql);
      const answer = await tool(sql);
      assert.match(answer.text, expected);
      assert.equal(existsSync(join(data, 'x.csv')), false);
    });
  }

  test('with the classifier bypassed, DuckDB’s parser takes one SELECT only', async () => {
    await assert.rejects(
      raw(files.engine, "SELECT 1; COPY (SELECT 1) TO 'data/x.csv'", { readOnly: true }),
      /refused by DuckDB: the statement is not a SELECT/,
    );
    await assert.rejects(
      raw(files.engine, 'SELECT 1; SELECT 2', { readOnly: true }),
      /refused by DuckDB: only one statement is allowed/,
    );
    assert.equal(existsSync(join(data, 'x.csv')), false);
  });
});

describe('limits', () => {
  test('a million rows stay inside maxBytes, cut while they stream', async () => {
    const maxBytes = 64 * 1024;
    const result = await raw(files.engine, "SELECT range AS n, repeat('x', 100) AS pad FROM range(1000000)", {
      readOnly: true,
      maxRows: 1_000_000,
      maxBytes,
    });
    assert.equal(result.truncated, true);
    assert.match(result.note ?? '', /maxBytes: 65536/);
    assert.ok(result.rows.length > 0 && result.rows.length * 108 <= maxBytes, `${result.rows.length} rows`);
    // A list counts what it holds: one row of a million numbers does not pass as one value.
    const list = await raw(files.engine, 'SELECT list(range) AS l FROM range(1000000)', {
      readOnly: true,
      maxBytes,
    });
    assert.match(list.note ?? '', /first row alone passes/);
  });

  test('a query past the memory limit fails in the engine instead of growing the process', async () => {
    const small = await open({ files: ['./data'], memoryLimit: '64MB', maxTempSize: '1MB' });
    await assert.rejects(
      runSql(small.sql, 'SELECT list(range) AS l FROM range(50000000)'),
      /Out of Memory Error/,
    );
    assert.deepEqual((await runSql(small.sql, 'SELECT 1 AS one')).rows, [{ one: 1 }]);
  });

  for (const [what, sql] of [
    ['a long aggregation', 'SELECT count(*) AS n FROM range(100000000000)'],
    ['a cross join', 'SELECT sum(a.range * b.range) AS s FROM range(1000000) a, range(1000000) b'],
  ]) {
    test(`${what} is interrupted at its time limit, and the connection serves the next call`, async () => {
      const started = Date.now();
      await assert.rejects(runSql(files.sql, sql!, [], { timeoutMs: 300 }), /took longer than 300 ms/);
      assert.ok(Date.now() - started < 3000, `ended after ${Date.now() - started} ms`);
      for (let i = 0; i < 3; i++)
        assert.deepEqual((await runSql(files.sql, 'SELECT 1 AS one')).rows, [{ one: 1 }]);
    });
  }

  test('a cancelled call interrupts its query', async () => {
    const controller = new AbortController();
    const running = runSql(files.sql, 'SELECT count(*) FROM range(100000000000)', [], {
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(running, /cancelled/);
  });

  test('while a query runs, the event loop and the other connection keep answering', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    let longDone = false;
    const long = runSql(files.sql, 'SELECT count(*) FROM range(100000000000)', [], {
      timeoutMs: 1500,
    }).finally(() => {
      longDone = true;
    });
    long.catch(() => undefined);
    await new Promise((done) => setTimeout(done, 100));
    const other = await runSql(files.sql, "SELECT count(*) AS n FROM 'data/sales.csv'");
    assert.deepEqual(other.rows, [{ n: 3 }]);
    assert.equal(longDone, false, 'the other call was answered while the long one ran');
    await assert.rejects(long, /took longer/);
    clearInterval(timer);
    assert.ok(ticks > 10, `the event loop ran ${ticks} timers meanwhile`);
  });

  test('32 calls at once all answer, through a pool of 2 connections', async () => {
    const calls = Array.from({ length: 32 }, (_, i) =>
      runSql(files.sql, "SELECT :i AS i, count(*) AS n FROM 'data/*.csv'", [i]),
    );
    const results = await Promise.all(calls);
    for (const [i, result] of results.entries()) assert.deepEqual(result.rows, [{ i, n: 3 }]);
  });
});

describe('opening', () => {
  test('a missing folder, and neither path nor files, are reported at once', async () => {
    const ctx = testContext({ baseDir: dir, name: 'files' });
    assert.equal(await duckdbSource.open({ files: ['./data', './nowhere', 'gone/*.csv'] }, ctx), undefined);
    assert.deepEqual(ctx.codes(), ['SOURCE_OPEN_FAILED', 'SOURCE_OPEN_FAILED']);
    assert.deepEqual(
      ctx.errors.map((e) => e.at),
      [
        ['files', 1],
        ['files', 2],
      ],
    );
    const none = testContext({ baseDir: dir, name: 'files' });
    assert.equal(await duckdbSource.open({}, none), undefined);
    assert.deepEqual(none.codes(), ['MANIFEST_INVALID_VALUE']);
  });

  test('the private temporary folder is the only other one allowed, and goes with the source', async () => {
    const ctx = testContext({ baseDir: dir, name: 'files' });
    const result = await openDuckdb({ files: ['./data'] }, ctx);
    assert.ok(result);
    const settings = await raw(
      result.engine,
      "SELECT current_setting('temp_directory') AS temp, current_setting('allowed_directories') AS allowed",
    );
    const { temp, allowed } = settings.rows[0] as { temp: string; allowed: string[] };
    assert.ok(existsSync(temp), temp);
    assert.deepEqual([...allowed].sort(), [`${data}/`, `${temp}/`].sort());
    await result.opened.dispose();
    assert.equal(existsSync(temp), false, 'the temporary folder was removed');
  });

  test('an extension that is not installed fails the open; none loads later', async () => {
    const ctx = testContext({ baseDir: dir, name: 'files' });
    assert.equal(await duckdbSource.open({ files: ['./data'], extensions: ['spatial'] }, ctx), undefined);
    assert.match(ctx.errors[0]!.problem.message, /extension spatial cannot be loaded/);
  });
});

describe('schema', () => {
  test('each declared file or glob is listed with the columns DuckDB reads from it', async () => {
    const tables = await database.sql.schema.tables(new AbortController().signal);
    assert.deepEqual(
      tables.map((t) => [t.name, t.type, t.columnCount]),
      [
        ['customers', 'table', 2],
        ['data/*.csv', 'view', 2],
      ],
    );
    const glob = await database.sql.schema.describe('data/*.csv', new AbortController().signal);
    assert.deepEqual(
      glob?.columns.map((c) => [c.name, c.type]),
      [
        ['region', 'VARCHAR'],
        ['amount', 'BIGINT'],
      ],
    );
    const table = await database.sql.schema.describe('customers', new AbortController().signal);
    assert.deepEqual(table?.primaryKey, ['id']);
    assert.deepEqual(
      table?.columns.map((c) => [c.name, c.type, c.nullable, c.default]),
      [
        ['id', 'INTEGER', false, undefined],
        ['name', 'VARCHAR', false, "'x'"],
      ],
    );
  });
});

/** The ready-made `sql-query` tool on a capability: the classifier's layer, as a model meets it. */
async function queryTool(sql: SqlCapability) {
  const ctx = testContext({ baseDir: dir, sources: { files: { sql } } });
  const compiled = sqlQueryTool.compile({ kind: 'sql-query', source: 'files' }, ctx);
  assert.ok(compiled, JSON.stringify(ctx.errors));
  return async (text: string) => {
    const result = await compiled.run({ sql: abs(text) }, callContext());
    return { isError: result.isError === true, text: (result.content[0] as { text: string }).text };
  };
}
