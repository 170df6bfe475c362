/**
 * recipes/postgres-explorer served by the built CLI over stdio to the official SDK v2 client, with
 * DATABASE_URL pointing at a schema this test creates (through the URL's search_path) in the
 * PostgreSQL of MCP_RUN_TEST_POSTGRES_URL. Skipped, with the reason, without that variable.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import pg from 'pg';
import { LEAST_PRIVILEGE_SQL } from '../../src/kinds/sql/privilege.js';
import { PG_SKIP, PG_URL } from '../helpers/databases.js';
import { CLI, REPO } from '../helpers/demo.js';

type Json = Record<string, any>;
const skip = PG_SKIP;

describe('recipes/postgres-explorer', () => {
  const id = randomBytes(4).toString('hex');
  const schema = `mcp_run_explorer_${id}`;
  const reader = `mcp_run_reader_${id}`;
  const setup = readFileSync(join(REPO, 'recipes/postgres-explorer/setup-reader.sql'), 'utf8');
  const admin = new pg.Client({ connectionString: PG_URL });
  const client = new Client(
    { name: 'recipe-postgres-explorer', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const call = async (name: string, args: Json = {}) =>
    (await client.callTool({ name, arguments: args })) as Json;

  before(async () => {
    if (skip) return;
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(`CREATE TABLE ${schema}."Big Table ✓" (id int PRIMARY KEY, label text NOT NULL)`);
    await admin.query(
      `INSERT INTO ${schema}."Big Table ✓" SELECT g, 'row ' || g FROM generate_series(1, 300) g`,
    );
    await admin.query(`ANALYZE ${schema}."Big Table ✓"`);
    // The recipe's own setup file, with this run's names: the server runs as that role.
    const db = (await admin.query('SELECT current_database() AS d')).rows[0].d;
    await admin.query(
      setup.replaceAll('mcp_reader', reader).replaceAll(' app ', ` ${db} `).replaceAll('public', schema),
    );
    const url = new URL(PG_URL!);
    url.username = reader;
    url.searchParams.set('options', `-c search_path=${schema}`);
    const env = { ...(process.env as Record<string, string>), DATABASE_URL: url.toString() };
    const manifest = join(REPO, 'recipes/postgres-explorer/mcp.yaml');
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, manifest], env, stderr: 'pipe' }),
    );
  });
  after(async () => {
    if (skip) return;
    await client.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.query(`DROP OWNED BY ${reader}`);
    await admin.query(`DROP ROLE ${reader}`);
    await admin.end();
  });

  test('lists and describes the tables of the search path', { skip }, async () => {
    const tables = await call('list_tables');
    assert.deepEqual(tables.structuredContent.tables, [
      { name: 'Big Table ✓', type: 'table', columnCount: 2, rows: 300, rowsEstimated: true },
    ]);
    const described = await call('describe_table', { table: 'Big Table ✓' });
    assert.match(described.content[0].text, /\| label \| text \| no \| {2}\| {2}\|/);
    const { resources } = await client.listResources();
    assert.deepEqual(
      resources.map((r: Json) => r.uri),
      [
        'postgres://db/schema',
        'postgres://db/schema?format=json',
        'postgres://db/schema/tables/Big%20Table%20%E2%9C%93',
      ],
    );
  });

  test('query reads with the 200-row cap and refuses writes', { skip }, async () => {
    const rows = await call('query', { sql: 'SELECT id FROM "Big Table ✓" ORDER BY id' });
    assert.equal(rows.structuredContent.rowCount, 200);
    assert.equal(rows.structuredContent.truncated, true);
    const refused = await call('query', { sql: 'DROP TABLE "Big Table ✓"' });
    assert.equal(refused.isError, true);
    assert.equal(
      Number((await admin.query(`SELECT count(*) FROM ${schema}."Big Table ✓"`)).rows[0].count),
      300,
    );
  });

  test('table_sizes and running_queries answer', { skip }, async () => {
    const sizes = await call('table_sizes', { limit: 200 });
    assert.ok(
      sizes.structuredContent.rows.some((r: Json) => r.schema === schema && r.table === 'Big Table ✓'),
    );
    const running = await call('running_queries');
    assert.equal(running.isError, undefined, running.content[0].text);
  });

  test('the setup SQL is the one the refusal and docs/security.md show', () => {
    assert.ok(setup.includes(LEAST_PRIVILEGE_SQL.postgres));
    assert.ok(readFileSync(join(REPO, 'docs/security.md'), 'utf8').includes(LEAST_PRIVILEGE_SQL.postgres));
    assert.ok(
      readFileSync(join(REPO, 'recipes/postgres-explorer/README.md'), 'utf8').includes(
        LEAST_PRIVILEGE_SQL.postgres,
      ),
    );
  });

  test('the server runs as the reader, and cannot read server files', { skip }, async () => {
    const who = await call('query', { sql: 'SELECT current_user AS who' });
    assert.deepEqual(who.structuredContent.rows, [{ who: reader }]);
    const files = await call('query', { sql: "SELECT pg_read_file('/etc/passwd')" });
    assert.equal(files.isError, true);
  });
});
