/**
 * recipes/bookstore served by the built CLI over stdio to the official SDK v2 client (2026-07-28),
 * from a private copy of the recipe (the seed creates bookstore.db on first run): the hand-written
 * tools, paging, an identifier from an enum, the ready-made tools and the schema resources, and its
 * two skills (a hand-written folder and one generated from a toolset) listed, got and read through
 * the SDK's SkillsClient, which checks every file's size, digest and frontmatter.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, REPO } from '../helpers/demo.js';

type Json = Record<string, any>;

describe('recipes/bookstore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-bookstore-'));
  const client = new Client(
    { name: 'recipe-bookstore', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const call = async (name: string, args: Json = {}) =>
    (await client.callTool({ name, arguments: args })) as Json;

  before(async () => {
    cpSync(join(REPO, 'recipes/bookstore'), dir, { recursive: true, filter: (src) => !src.endsWith('.db') });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, join(dir, 'mcp.yaml')],
        stderr: 'pipe',
      }),
    );
  });
  after(async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the seed created the database; every tool is listed with a description', async () => {
    assert.ok(existsSync(join(dir, 'bookstore.db')));
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t: Json) => t.name),
      ['find_books', 'books_in_genre', 'best_sellers', 'table_rows', 'tables', 'describe_table', 'query'],
    );
    assert.ok(tools.every((t: Json) => t.description && t.annotations?.readOnlyHint === true));
    const find = tools[0] as Json;
    assert.deepEqual(Object.keys(find.outputSchema.properties.rows.items.properties), [
      'isbn',
      'title',
      'author',
      'year',
      'price',
      'stock',
    ]);
  });

  test('find_books binds its argument', async () => {
    const found = await call('find_books', { text: 'Moomin' });
    assert.deepEqual(
      found.structuredContent.rows.map((r: Json) => [r.title, r.author]),
      [
        ['Comet in Moominland', 'Tove Jansson'],
        ['Finn Family Moomintroll', 'Tove Jansson'],
      ],
    );
    assert.equal((await call('find_books', { text: "' OR 1=1 --" })).content[0].text, 'No rows.');
  });

  test('books_in_genre pages through a genre with its cursor', async () => {
    const first = await call('books_in_genre', { genre: 'fiction' });
    assert.equal(first.structuredContent.rowCount, 3);
    assert.match(
      first.content[0].text,
      /Rows 1 to 3; more exist\. For the next page, call books_in_genre again/,
    );
    const second = await call('books_in_genre', {
      genre: 'fiction',
      cursor: first.structuredContent.nextCursor,
    });
    assert.deepEqual(
      [...first.structuredContent.rows, ...second.structuredContent.rows].map((r: Json) => r.title),
      [
        'A Wizard of Earthsea',
        'Americanah',
        'Half of a Yellow Sun',
        'The Dispossessed',
        'The Left Hand of Darkness',
      ],
    );
    assert.equal(second.structuredContent.nextCursor, undefined);
  });

  test('best_sellers uses its defaults; table_rows takes a table only from its enum', async () => {
    const best = await call('best_sellers', { limit: 2 });
    assert.deepEqual(best.structuredContent.rows, [
      { title: 'Finn Family Moomintroll', copies: 7 },
      { title: 'SPQR', copies: 4 },
    ]);
    const authors = await call('table_rows', { table: 'authors' });
    assert.equal(authors.structuredContent.rows[0].name, 'Ursula K. Le Guin');
    const refused = await call('table_rows', { table: 'sqlite_schema' });
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text, /table must be one of "authors", "books", "sales"/);
  });

  test('the ready-made tools and the schema resources', async () => {
    const tables = await call('tables');
    assert.deepEqual(
      tables.structuredContent.tables.map((t: Json) => [t.name, t.rows ?? null]),
      [
        ['authors', 6],
        ['books', 12],
        ['sales', 10],
        ['stock_value', null],
      ],
    );
    const books = await call('describe_table', { table: 'books' });
    assert.match(books.content[0].text, /- \(author_id\) → authors \(id\)/);
    const query = await call('query', { sql: 'SELECT title FROM books WHERE stock = 0' });
    assert.deepEqual(query.structuredContent.rows, [{ title: 'The Dispossessed' }]);
    const refused = await call('query', { sql: 'UPDATE books SET stock = 99' });
    assert.equal(refused.isError, true);

    const { resources } = await client.listResources();
    assert.deepEqual(
      resources.map((r: Json) => r.uri),
      [
        'bookstore://schema',
        'bookstore://schema?format=json',
        // Each skill's SKILL.md, after the static resources and before the live tables.
        'skill://restock-report/SKILL.md',
        'skill://browse/SKILL.md',
        'bookstore://schema/tables/authors',
        'bookstore://schema/tables/books',
        'bookstore://schema/tables/sales',
        'bookstore://schema/tables/stock_value',
      ],
    );
    const sales = await client.readResource({ uri: 'bookstore://schema/tables/sales' });
    assert.match((sales.contents[0] as Json).text, /- sales_by_book \(isbn, sold_on\)/);
    const book = await client.readResource({ uri: 'bookstore://books/978-1-63149-125-1' });
    assert.equal(JSON.parse((book.contents[0] as Json).text).rows[0].sold, 4);
  });

  test('the hand-written skill and the one generated from the browse toolset, verified by the SDK', async () => {
    const skills = new SkillsClient(client);
    assert.equal(skills.supported, true);
    const { skills: entries } = await skills.list();
    assert.deepEqual(
      entries.map((e) => [e.uri, e.frontmatter.name]),
      [
        ['skill://restock-report/SKILL.md', 'restock-report'],
        ['skill://browse/SKILL.md', 'browse'],
      ],
    );
    const [written, generated] = entries;
    assert.ok(written && generated && Array.isArray(written.resources));
    assert.deepEqual(
      written.resources.map((r) => r.uri),
      ['skill://restock-report/SKILL.md', 'skill://restock-report/references/sales-window.md'],
    );
    const reference = await skills.read(written, 'references/sales-window.md');
    assert.equal(reference.verified, true);
    assert.match(reference.text!, /the last 90 days/);

    const { skill } = await skills.get('skill://browse/SKILL.md');
    assert.deepEqual(skill, generated);
    const file = await skills.read(skill);
    assert.equal(file.verified, true);
    assert.deepEqual(file.frontmatter, {
      name: 'browse',
      description:
        'Find books, browse a genre a page at a time, and see what sells. Use it when a task needs best_sellers, books_in_genre, find_books.',
      metadata: { generator: 'mcp-run', toolset: 'browse' },
    });
    assert.match(file.body!, /^\n# browse\n/);
    assert.match(
      file.body!,
      /## `find_books`[\s\S]*- finds books by author:\n\n {2}```json\n {2}\{\n {4}"text": "Moomin"/,
    );
    assert.match(file.body!, /- `restock`: Suggest which books to reorder\./);
  });
});
