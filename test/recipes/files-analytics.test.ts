/**
 * recipes/files-analytics served by the built CLI over stdio to the official SDK v2 client
 * (2026-07-28), from a private copy of the recipe with a shorter time limit: the analyst's tools on
 * the committed Parquet and CSV files, the schema resources, and a runaway query interrupted at its
 * limit while the server goes on answering tools/list and another call.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, REPO } from '../helpers/demo.js';

type Json = Record<string, any>;

describe('recipes/files-analytics', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-files-analytics-'));
  const client = new Client(
    { name: 'recipe-files-analytics', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const call = async (name: string, args: Json = {}) =>
    (await client.callTool({ name, arguments: args })) as Json;

  before(async () => {
    cpSync(join(REPO, 'recipes/files-analytics'), dir, { recursive: true });
    const manifest = join(dir, 'mcp.yaml');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('timeoutMs: 5000', 'timeoutMs: 1500'));
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, manifest], stderr: 'pipe' }),
    );
  });
  after(async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the tools, read-only, and the top products from the Parquet and CSV files', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t: Json) => t.name),
      ['top_products', 'revenue_over_time', 'tables', 'describe_table', 'query'],
    );
    assert.ok(tools.every((t: Json) => t.annotations?.readOnlyHint === true));
    const top = await call('top_products', { limit: 3 });
    assert.deepEqual(
      top.structuredContent.rows.map((r: Json) => r.name),
      ['Atlas music 4', 'Beacon garden 3', 'Cinder music 5'],
    );
    const months = await call('revenue_over_time', { period: 'month', region: 'west' });
    assert.equal(months.structuredContent.rowCount, 12);
    assert.equal(months.structuredContent.rows[0].period_start, '2025-01-01');
  });

  test('the schema lists both tables with the types DuckDB reads from the files', async () => {
    const overview = await client.readResource({ uri: 'analytics://schema?format=json' });
    const tables = JSON.parse((overview.contents[0] as Json).text);
    assert.deepEqual(
      tables.tables.map((t: Json) => [t.name, t.columnCount]),
      [
        ['orders', 5],
        ['products', 4],
      ],
    );
    const products = await client.readResource({ uri: 'analytics://schema/tables/products' });
    assert.match((products.contents[0] as Json).text, /\| price \| DOUBLE \|/);
  });

  test('a runaway query is interrupted at its limit while the server answers meanwhile', async () => {
    let done = false;
    const runaway = call('query', { sql: 'SELECT count(*) FROM range(100000000000)' }).finally(() => {
      done = true;
    });
    assert.equal((await client.listTools()).tools.length, 5);
    const other = await call('query', { sql: 'SELECT count(*) AS n FROM products' });
    assert.deepEqual(other.structuredContent.rows, [{ n: 40 }]);
    assert.equal(done, false, 'tools/list and the other call were answered while the runaway query ran');
    const stopped = await runaway;
    assert.equal(stopped.isError, true);
    assert.match(stopped.content[0].text, /took longer than 1500 ms and was stopped/);
  });
});
