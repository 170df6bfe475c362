/**
 * The official clients read the schema resources and call the ready-made SQL tools over real stdio,
 * against real databases: the SDK v1 client (2025 era) and the SDK v2 client pinned to 2026-07-28,
 * each driving the built CLI serving a manifest written by the test. SQLite always runs; PostgreSQL
 * and MariaDB run when MCP_RUN_TEST_POSTGRES_URL / MCP_RUN_TEST_MYSQL_URL are set.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CUSTOMERS,
  createDatabase,
  ENGINES,
  ITEMS,
  skipFor,
  type TestDatabase,
  VIEW,
} from '../helpers/databases.js';
import { CLI, tempFiles } from '../helpers/demo.js';

type Json = Record<string, any>;

/** What the two clients share. */
interface AnyClient {
  listTools(): Promise<Json>;
  callTool(params: { name: string; arguments?: Json }): Promise<Json>;
  listResources(): Promise<Json>;
  listResourceTemplates(): Promise<Json>;
  readResource(params: { uri: string }): Promise<Json>;
  complete(params: Json): Promise<Json>;
  close(): Promise<void>;
}

function manifest(engine: string, config: Record<string, unknown>): string {
  // The connection URL reaches the server through the environment, as a user would write it. The
  // test logs in as the superuser; a real deployment uses a least-privilege role instead.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a manifest env reference, sent as data.
  const url = '${env:E2E_DATABASE_URL}';
  const server = config.url ? { url, allowPrivilegedRole: true } : {};
  const source = { kind: engine, ...config, ...server };
  return [
    'server: { name: databases-e2e, version: 1.0.0 }',
    `sources: { db: ${JSON.stringify(source)} }`,
    'tools:',
    '  tables: { kind: sql-list-tables, source: db }',
    '  describe: { kind: sql-describe-table, source: db }',
    '  query: { kind: sql-query, source: db, maxRows: 3 }',
    'resources:',
    '  schema: { kind: sql-schema, source: db, uri: "db://e2e/schema" }',
  ].join('\n');
}

async function connect(era: 'legacy' | 'modern', dir: string, url: unknown): Promise<AnyClient> {
  const env = { ...(process.env as Record<string, string>), E2E_DATABASE_URL: String(url ?? '') };
  const params = {
    command: process.execPath,
    args: [CLI, 'mcp.yaml'],
    cwd: dir,
    env,
    stderr: 'pipe' as const,
  };
  if (era === 'legacy') {
    const client = new LegacyClient({ name: 'e2e-db-legacy', version: '1.0.0' });
    await client.connect(new LegacyStdio(params));
    return client as unknown as AnyClient;
  }
  const client = new ModernClient(
    { name: 'e2e-db-modern', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new ModernStdio(params));
  return client as unknown as AnyClient;
}

const TABLE_URI = (name: string) => `db://e2e/schema/tables/${encodeURIComponent(name)}`;

for (const engine of ENGINES) {
  for (const era of ['legacy', 'modern'] as const) {
    describe(`${engine} over stdio, ${era === 'legacy' ? 'SDK v1 (2025-11-25)' : 'SDK v2 pinned to 2026-07-28'}`, () => {
      const skip = skipFor(engine);
      let db: TestDatabase;
      let client: AnyClient;
      let files: { dir: string; cleanup: () => void };
      before(async () => {
        if (skip) return;
        db = await createDatabase(engine, `e2e_${era}`);
        files = tempFiles({ 'mcp.yaml': manifest(engine, db.config) });
        client = await connect(era, files.dir, db.config.url);
      });
      after(async () => {
        await client?.close();
        files?.cleanup();
        await db?.drop();
      });

      test('lists and reads the schema resources', { skip }, async () => {
        const { resources } = await client.listResources();
        assert.deepEqual(
          resources.map((r: Json) => [r.uri, r.mimeType]),
          [
            ['db://e2e/schema', 'text/markdown'],
            ['db://e2e/schema?format=json', 'application/json'],
            [TABLE_URI(CUSTOMERS), 'text/markdown'],
            [TABLE_URI(VIEW), 'text/markdown'],
            [TABLE_URI(ITEMS), 'text/markdown'],
          ],
        );
        const overview = await client.readResource({ uri: 'db://e2e/schema' });
        assert.match(overview.contents[0].text, /^# Schema of db \(/);
        assert.match(overview.contents[0].text, /\| Customers ✓ \| table \| 4 \| ~?3 \|/);
        const table = await client.readResource({ uri: TABLE_URI(ITEMS) });
        assert.equal(table.contents[0].mimeType, 'text/markdown');
        assert.match(table.contents[0].text, /^# Table order "items"\n/);
        assert.match(
          table.contents[0].text,
          /## Foreign keys\n\n- \(customer_id\) → Customers ✓ \(id\), on delete CASCADE/,
        );
        const json = await client.readResource({ uri: `${TABLE_URI(CUSTOMERS)}?format=json` });
        assert.equal(json.contents[0].mimeType, 'application/json');
        assert.deepEqual(
          JSON.parse(json.contents[0].text).columns.map((c: Json) => [c.name, c.nullable]),
          [
            ['id', false],
            ['E-mail', false],
            ['name', true],
            ['created', true],
          ],
        );
      });

      test('the table template completes names from the live schema', { skip }, async () => {
        const { resourceTemplates } = await client.listResourceTemplates();
        assert.deepEqual(
          resourceTemplates.map((t: Json) => t.uriTemplate),
          ['db://e2e/schema/tables/{table}{?format}'],
        );
        const completion = await client.complete({
          ref: { type: 'ref/resource', uri: 'db://e2e/schema/tables/{table}{?format}' },
          argument: { name: 'table', value: 'o' },
        });
        assert.deepEqual(completion.completion.values, [ITEMS]);
      });

      test('calls the ready-made tools', { skip }, async () => {
        const { tools } = await client.listTools();
        assert.deepEqual(
          tools.map((t: Json) => [
            t.name,
            Object.keys(t.inputSchema.properties),
            t.annotations?.readOnlyHint,
          ]),
          [
            ['tables', [], true],
            ['describe', ['table'], true],
            ['query', ['sql'], true],
          ],
        );
        assert.ok(tools.every((t: Json) => typeof t.description === 'string' && t.description.length > 40));

        const listed = await client.callTool({ name: 'tables', arguments: {} });
        assert.deepEqual(
          listed.structuredContent.tables.map((t: Json) => t.name),
          [CUSTOMERS, VIEW, ITEMS],
        );
        const described = await client.callTool({ name: 'describe', arguments: { table: CUSTOMERS } });
        assert.equal(described.isError, undefined);
        assert.deepEqual(described.structuredContent.primaryKey, ['id']);
        const unknown = await client.callTool({ name: 'describe', arguments: { table: 'customers' } });
        assert.equal(unknown.isError, true);
        assert.match(unknown.content[0].text, /did you mean "Customers ✓"\?/);

        const q = (name: string) => (engine === 'mysql' ? `\`${name}\`` : `"${name.replaceAll('"', '""')}"`);
        const rows = await client.callTool({
          name: 'query',
          arguments: { sql: `SELECT id, note FROM ${q(ITEMS)} WHERE note IS NOT NULL ORDER BY id` },
        });
        assert.deepEqual(rows.structuredContent, {
          rows: [
            { id: 1, note: 'first' },
            { id: 3, note: 'pipes | and ; semicolons' },
            { id: 5, note: 'last' },
          ],
          rowCount: 3,
          truncated: false,
        });
        assert.match(rows.content[0].text, /\| 3 \| pipes \\\| and ; semicolons \|/);
        const refused = await client.callTool({
          name: 'query',
          arguments: { sql: `DELETE FROM ${q(ITEMS)}` },
        });
        assert.equal(refused.isError, true);
        assert.match(refused.content[0].text, /^Query refused: DELETE is not a read statement/);
        const after = await client.callTool({
          name: 'query',
          arguments: { sql: `SELECT COUNT(*) AS n FROM ${q(ITEMS)}` },
        });
        assert.equal(Number(after.structuredContent.rows[0].n), 5);
      });
    });
  }
}
