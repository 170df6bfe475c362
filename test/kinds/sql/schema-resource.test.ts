/**
 * The `sql-schema` resources on real SQLite, PostgreSQL and MariaDB databases: what they show must
 * match the schema (one golden file per engine under test/fixtures/schema-golden/, regenerated with
 * UPDATE_GOLDEN=1 and reviewed in the diff), the listed tables follow DDL without a reload, and the
 * template matches, completes and refuses what it should.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { compileCatalog } from '../../../src/catalog/compile.js';
import {
  CatalogRef,
  type CatalogTemplate,
  InvalidRequestParams,
  type ResourceContents,
  ResourceNotFound,
} from '../../../src/catalog/types.js';
import { builtinKinds } from '../../../src/kinds/builtin.js';
import type { CompiledResources, SqlCapability } from '../../../src/kinds/contract/kinds.js';
import { type SqlSchemaConfig, sqlSchemaResource } from '../../../src/kinds/sql/schema-resource.js';
import { StderrLogger } from '../../../src/log.js';
import { loadManifest } from '../../../src/manifest/load.js';
import { createProtocol } from '../../../src/protocol/server.js';
import {
  CUSTOMERS,
  createDatabase,
  ENGINES,
  ITEMS,
  skipFor,
  type TestDatabase,
  VIEW,
} from '../../helpers/databases.js';
import { tempFiles } from '../../helpers/demo.js';
import { testContext } from '../context.js';

const GOLDEN = join(import.meta.dirname, '../../fixtures/schema-golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const signal = () => new AbortController().signal;

async function compile(sql: SqlCapability, config: Partial<SqlSchemaConfig> = {}) {
  const ctx = testContext({ baseDir: '.', name: 'schema', sources: { db: { sql } } });
  const compiled = await sqlSchemaResource.compile({ source: 'db', ...config }, ctx);
  assert.ok(compiled, JSON.stringify(ctx.errors));
  return compiled;
}

const textOf = (contents: readonly ResourceContents[]) => (contents[0] as { text: string }).text;

async function readTemplate(template: CatalogTemplate, uri: string) {
  const vars = template.match(uri);
  assert.ok(vars, `${uri} should match ${template.descriptor.uriTemplate}`);
  return template.read(uri, vars, signal());
}

for (const engine of ENGINES) {
  describe(`${engine}: sql-schema`, () => {
    const skip = skipFor(engine);
    let db: TestDatabase;
    let sql: SqlCapability;
    let dispose: () => Promise<void>;

    before(async () => {
      if (skip) return;
      db = await createDatabase(engine, 'schema');
      const opened = await db.open();
      sql = opened.sql;
      dispose = () => opened.opened.dispose();
    });
    after(async () => {
      await dispose?.();
      await db?.drop();
    });

    test('the resources match the real schema (golden file)', { skip }, async () => {
      const compiled = await compile(sql, { uri: 'db://golden/schema' });
      assert.deepEqual(
        compiled.resources.map((r) => [r.descriptor.uri, r.descriptor.mimeType]),
        [
          ['db://golden/schema', 'text/markdown'],
          ['db://golden/schema?format=json', 'application/json'],
        ],
      );
      const listed = await compiled.list!(signal());
      const parts: string[] = [];
      for (const resource of [...compiled.resources, ...listed]) {
        const d = resource.descriptor;
        parts.push(`=== ${d.uri} (${d.name}; ${d.description ?? ''})`, textOf(await resource.read(signal())));
      }
      const [template] = compiled.templates;
      for (const resource of listed) {
        const uri = `${resource.descriptor.uri}?format=json`;
        parts.push(`=== ${uri}`, textOf(await readTemplate(template!, uri)));
      }
      const actual = `${parts.join('\n')}\n`;
      const file = join(GOLDEN, `${engine}.txt`);
      if (UPDATE || !existsSync(file)) {
        mkdirSync(GOLDEN, { recursive: true });
        writeFileSync(file, actual);
      }
      assert.equal(actual, readFileSync(file, 'utf8'), `golden file ${file} differs`);
    });

    test('the listed tables follow CREATE and DROP without a reload', { skip }, async () => {
      const compiled = await compile(sql);
      const names = async () => (await compiled.list!(signal())).map((r) => r.descriptor.name);
      assert.deepEqual(await names(), [CUSTOMERS, VIEW, ITEMS]);
      const table = 'Later Table ✓';
      const q = sql.quoteIdentifier(table);
      await db.admin(`CREATE TABLE ${q} (x INTEGER)`);
      assert.deepEqual(await names(), [CUSTOMERS, table, VIEW, ITEMS]);
      const uri = (await compiled.list!(signal())).find((r) => r.descriptor.name === table)!.descriptor.uri;
      assert.match(textOf(await readTemplate(compiled.templates[0]!, uri)), /^# Table Later Table ✓\n/);
      await db.admin(`DROP TABLE ${q}`);
      assert.deepEqual(await names(), [CUSTOMERS, VIEW, ITEMS]);
      await assert.rejects(readTemplate(compiled.templates[0]!, uri), ResourceNotFound);
    });

    test('refresh: reload lists the tables once, as static resources', { skip }, async () => {
      const compiled: CompiledResources = await compile(sql, { refresh: 'reload' });
      assert.equal(compiled.list, undefined);
      assert.deepEqual(
        compiled.resources.slice(2).map((r) => r.descriptor.uri),
        [CUSTOMERS, VIEW, ITEMS].map((n) => `${engine}://db/schema/tables/${encodeURIComponent(n)}`),
      );
      assert.match(textOf(await compiled.resources[4]!.read(signal())), /^# Table order "items"\n/);
    });

    test('the template: percent-encoded names, ?format, completion from the live list', {
      skip,
    }, async () => {
      const compiled = await compile(sql);
      const template = compiled.templates[0]!;
      const base = `${engine}://db/schema/tables/`;
      assert.equal(template.descriptor.uriTemplate, `${base}{table}{?format}`);
      assert.deepEqual(template.match(`${base}${encodeURIComponent(ITEMS)}?format=json`), {
        table: ITEMS,
        format: 'json',
      });
      assert.equal(template.match(`${base}a/b`), undefined);
      assert.equal(template.match(`${base}a?other=1`), undefined);
      assert.equal(template.match(`${engine}://db/schema/other/x`), undefined);
      const json = JSON.parse(
        textOf(await readTemplate(template, `${base}${encodeURIComponent(ITEMS)}?format=json`)),
      );
      assert.deepEqual(json.primaryKey, ['id']);
      assert.deepEqual(
        json.foreignKeys.map((fk: { columns: string[]; table: string }) => [fk.columns, fk.table]),
        [[['customer_id'], CUSTOMERS]],
      );
      await assert.rejects(readTemplate(template, `${base}x?format=xml`), InvalidRequestParams);
      await assert.rejects(readTemplate(template, `${base}no%20such%20table`), ResourceNotFound);
      assert.deepEqual(await template.complete('table', 'c', {}), [CUSTOMERS]);
      assert.deepEqual(await template.complete('table', 'O', {}), [ITEMS]);
      assert.deepEqual(await template.complete('format', 'j', {}), ['json']);
    });
  });
}

test('a URI with a query or without a scheme is refused at compile time', async () => {
  for (const uri of ['db://x/schema?a=1', 'no-scheme', 'db://x/{t}']) {
    const ctx = testContext({ baseDir: '.', name: 'schema', sources: {} });
    assert.equal(await sqlSchemaResource.compile({ source: 'db', uri }, ctx), undefined);
    assert.deepEqual(ctx.codes(), ['SOURCE_UNKNOWN', 'MANIFEST_INVALID_VALUE'], uri);
  }
});

test('resources/list pages through the static resources, then the live tables', async () => {
  const files = tempFiles({
    'mcp.yaml': [
      'server: { name: t, version: 1.0.0, pageSize: 2 }',
      'sources: { db: { kind: sqlite, path: db.sqlite, seed: seed.sql } }',
      'resources:',
      '  notes: { kind: text, uri: "notes://a", text: hello }',
      '  schema: { kind: sql-schema, source: db }',
    ].join('\n'),
    'seed.sql': 'CREATE TABLE b (x INTEGER); CREATE TABLE "A table" (y TEXT);',
  });
  const registry = builtinKinds();
  const log = new StderrLogger('silent');
  const catalog = await compileCatalog(
    await loadManifest(join(files.dir, 'mcp.yaml'), registry, {}),
    registry,
    log,
  );
  const sent: Record<string, any>[] = [];
  const connection = createProtocol(new CatalogRef(catalog), { log, listChanged: false }).connect((m) =>
    sent.push(m as never),
  );
  let id = 0;
  const request = async (method: string, params: Record<string, unknown> = {}) => {
    const n = ++id;
    await connection.receive({ jsonrpc: '2.0', id: n, method, params });
    return sent.find((m) => m.id === n)!;
  };
  const listAll = async () => {
    const uris: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await request('resources/list', cursor ? { cursor } : {})).result;
      assert.ok(page.resources.length <= 2);
      uris.push(...page.resources.map((r: { uri: string }) => r.uri));
      cursor = page.nextCursor;
    } while (cursor);
    return uris;
  };
  try {
    await request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    });
    const schema = 'sqlite://db/schema';
    assert.deepEqual(await listAll(), [
      'notes://a',
      schema,
      `${schema}?format=json`,
      `${schema}/tables/A%20table`,
      `${schema}/tables/b`,
    ]);
    const writer = new Database(join(files.dir, 'db.sqlite'));
    writer.exec('CREATE TABLE "c ✓" (z INTEGER)');
    writer.close();
    assert.deepEqual((await listAll()).slice(3), [
      `${schema}/tables/A%20table`,
      `${schema}/tables/b`,
      `${schema}/tables/c%20%E2%9C%93`,
    ]);
    const read = await request('resources/read', { uri: `${schema}/tables/c%20%E2%9C%93?format=json` });
    assert.equal(JSON.parse(read.result.contents[0].text).name, 'c ✓');
    const missing = await request('resources/read', { uri: `${schema}/tables/nope` });
    assert.equal(missing.error.code, -32002);
  } finally {
    connection.close();
    await catalog.dispose();
    files.cleanup();
  }
});
