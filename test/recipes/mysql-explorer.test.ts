/**
 * recipes/mysql-explorer served by the built CLI over stdio to the official SDK v2 client, with
 * DATABASE_URL pointing at a database this test creates in the MariaDB/MySQL server of
 * MCP_RUN_TEST_MYSQL_URL. Skipped, with the reason, without that variable.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import mysql from 'mysql2/promise';
import { LEAST_PRIVILEGE_SQL } from '../../src/kinds/sql/privilege.js';
import { MYSQL_SKIP, MYSQL_URL } from '../helpers/databases.js';
import { CLI, REPO } from '../helpers/demo.js';

type Json = Record<string, any>;
const skip = MYSQL_SKIP;

describe('recipes/mysql-explorer', () => {
  const id = randomBytes(4).toString('hex');
  const database = `mcp_run_explorer_${id}`;
  const reader = `mcp_reader_${id}`;
  const password = `pw_${id}`;
  const setup = readFileSync(join(REPO, 'recipes/mysql-explorer/setup-reader.sql'), 'utf8');
  let admin: mysql.Connection;
  const client = new Client(
    { name: 'recipe-mysql-explorer', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const call = async (name: string, args: Json = {}) =>
    (await client.callTool({ name, arguments: args })) as Json;

  before(async () => {
    if (skip) return;
    admin = await mysql.createConnection({ uri: MYSQL_URL!, charset: 'utf8mb4' });
    await admin.query(`CREATE DATABASE ${database} CHARACTER SET utf8mb4`);
    await admin.query(`CREATE TABLE ${database}.\`Big Table ✓\` (id INT PRIMARY KEY, label TEXT NOT NULL)`);
    await admin.query(
      `INSERT INTO ${database}.\`Big Table ✓\` SELECT seq, CONCAT('row ', seq) FROM seq_1_to_300`,
    );
    // The recipe's own setup file, with this run's names: the server runs as that account.
    const statements = setup
      .split('\n')
      .filter((line) => !line.startsWith('--'))
      .join('\n')
      .replaceAll('mcp_reader', reader)
      .replaceAll('choose-a-password', password)
      .replaceAll(' app.', ` ${database}.`)
      .split(';')
      .filter((s) => s.trim());
    for (const statement of statements) await admin.query(statement);
    const url = new URL(MYSQL_URL!);
    url.username = reader;
    url.password = password;
    url.pathname = `/${database}`;
    const env = { ...(process.env as Record<string, string>), DATABASE_URL: url.toString() };
    const manifest = join(REPO, 'recipes/mysql-explorer/mcp.yaml');
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, manifest], env, stderr: 'pipe' }),
    );
  });
  after(async () => {
    if (skip) return;
    await client.close();
    await admin.query(`DROP DATABASE ${database}`);
    await admin.query(`DROP USER '${reader}'@'%'`);
    await admin.end();
  });

  test('lists and describes the tables of the database', { skip }, async () => {
    const tables = await call('list_tables');
    assert.deepEqual(
      tables.structuredContent.tables.map((t: Json) => [t.name, t.type, t.columnCount, t.rowsEstimated]),
      [['Big Table ✓', 'table', 2, true]],
    );
    const described = await call('describe_table', { table: 'Big Table ✓' });
    assert.match(described.content[0].text, /\| label \| text \| no \| {2}\| {2}\|/);
    const { resources } = await client.listResources();
    assert.deepEqual(
      resources.map((r: Json) => r.uri),
      [
        'mysql://db/schema',
        'mysql://db/schema?format=json',
        'mysql://db/schema/tables/Big%20Table%20%E2%9C%93',
      ],
    );
  });

  test('query reads with the 200-row cap and refuses writes', { skip }, async () => {
    const rows = await call('query', { sql: 'SELECT id FROM `Big Table ✓` ORDER BY id' });
    assert.equal(rows.structuredContent.rowCount, 200);
    assert.equal(rows.structuredContent.truncated, true);
    const refused = await call('query', { sql: 'DROP TABLE `Big Table ✓`' });
    assert.equal(refused.isError, true);
    const [count] = await admin.query(`SELECT COUNT(*) AS n FROM ${database}.\`Big Table ✓\``);
    assert.equal(Number((count as Json[])[0]!.n), 300);
  });

  test('table_sizes and running_queries answer', { skip }, async () => {
    const sizes = await call('table_sizes');
    assert.deepEqual(
      sizes.structuredContent.rows.map((r: Json) => r.table),
      ['Big Table ✓'],
    );
    const running = await call('running_queries');
    assert.equal(running.isError, undefined, running.content[0].text);
  });

  test('the setup SQL is the one the refusal and docs/security.md show', () => {
    assert.ok(setup.includes(LEAST_PRIVILEGE_SQL.mysql));
    assert.ok(readFileSync(join(REPO, 'docs/security.md'), 'utf8').includes(LEAST_PRIVILEGE_SQL.mysql));
    assert.ok(
      readFileSync(join(REPO, 'recipes/mysql-explorer/README.md'), 'utf8').includes(
        LEAST_PRIVILEGE_SQL.mysql,
      ),
    );
  });

  test('the server runs as the reader, and cannot read server files', { skip }, async () => {
    const who = await call('query', { sql: 'SELECT CURRENT_USER() AS who' });
    assert.deepEqual(who.structuredContent.rows, [{ who: `${reader}@%` }]);
    const files = await call('query', { sql: "SELECT LOAD_FILE('/etc/passwd') AS f" });
    assert.equal(files.isError, true);
  });
});
