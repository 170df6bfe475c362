/**
 * recipes/confirm-delete served by the built CLI from a private copy (the seed creates notes.db):
 * over stdio to the official SDK v1 client (2025: the server asks through elicitation/create) and
 * over HTTP to the SDK v2 client pinned to 2026-07-28 (input_required). A declined confirmation
 * deletes nothing, an accepted one deletes, the archive reason comes from the user's form, and a
 * client that cannot show a form is refused before anything changes.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, REPO } from '../helpers/demo.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';

type Json = Record<string, any>;

function recipeCopy(): { manifest: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-confirm-delete-'));
  cpSync(join(REPO, 'recipes/confirm-delete'), dir, {
    recursive: true,
    filter: (src) => !src.endsWith('.db'),
  });
  return { manifest: join(dir, 'mcp.yaml'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const titles = (result: Json) => result.structuredContent.rows.map((row: Json) => row.title);

describe('recipes/confirm-delete, SDK v1 client over stdio (2025: elicitation requests)', () => {
  const copy = recipeCopy();
  const asked: string[] = [];
  let answer: Json = { action: 'accept' };
  const client = new Client(
    { name: 'recipe-confirm-v1', version: '1.0.0' },
    { capabilities: { elicitation: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return answer as never;
  });
  const bare = new Client({ name: 'recipe-confirm-bare', version: '1.0.0' });
  const call = async (c: Client, name: string, args: Json = {}) =>
    (await c.callTool({ name, arguments: args })) as Json;
  const transport = () =>
    new StdioClientTransport({ command: process.execPath, args: [CLI, copy.manifest], stderr: 'pipe' });

  before(async () => {
    await client.connect(transport());
    await bare.connect(transport());
  });
  after(async () => {
    await client.close();
    await bare.close();
    copy.cleanup();
  });

  test('delete_note is marked destructive; the confirmation is not one of its arguments', async () => {
    const { tools } = await client.listTools();
    const remove = tools.find((t) => t.name === 'delete_note')!;
    assert.equal(remove.annotations?.destructiveHint, true);
    assert.deepEqual(Object.keys(remove.inputSchema.properties ?? {}), ['id']);
    const archive = tools.find((t) => t.name === 'archive_note')!;
    assert.deepEqual(Object.keys(archive.inputSchema.properties ?? {}), ['id']);
  });

  test('a declined deletion deletes nothing; a confirmed one deletes', async () => {
    answer = { action: 'decline' };
    const declined = await call(client, 'delete_note', { id: 4 });
    assert.equal(declined.isError, undefined);
    assert.match(declined.content[0].text, /^Cancelled by the user: they declined the confirmation/);
    assert.ok(titles(await call(client, 'list_notes')).includes('Old wifi password'));
    answer = { action: 'accept' };
    const done = await call(client, 'delete_note', { id: 4 });
    assert.equal(done.content[0].text, '1 row changed.');
    assert.ok(!titles(await call(client, 'list_notes')).includes('Old wifi password'));
    assert.deepEqual(asked.slice(-2), [
      'Delete note 4 for good? This cannot be undone.',
      'Delete note 4 for good? This cannot be undone.',
    ]);
  });

  test('archive_note keeps the reason the user picked', async () => {
    answer = { action: 'accept', content: { reason: 'outdated' } };
    await call(client, 'archive_note', { id: 2 });
    const note = (await call(client, 'read_note', { id: 2 })).structuredContent.rows[0];
    assert.equal(note.archived_reason, 'outdated');
    assert.ok(!titles(await call(client, 'list_notes')).includes('Call the plumber'));
  });

  test('a client that cannot show forms is refused before anything changes', async () => {
    const refused = await call(bare, 'delete_note', { id: 1 });
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text, /needs to ask the user \(elicitation, form mode\)/);
    assert.ok(titles(await call(bare, 'list_notes')).includes('Groceries'));
  });
});

describe('recipes/confirm-delete, SDK v2 client pinned to 2026-07-28 over HTTP (input_required)', () => {
  const copy = recipeCopy();
  let server: ServedCli;
  let answer: Json = { action: 'accept' };
  const client = new ClientV2(
    { name: 'recipe-confirm-v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: {} } },
  );
  client.setRequestHandler('elicitation/create', async () => answer as never);
  const call = async (name: string, args: Json = {}) =>
    (await client.callTool({ name, arguments: args })) as Json;

  before(async () => {
    server = await spawnHttpCli([copy.manifest]);
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  });
  after(async () => {
    await client.close();
    assert.equal(await server.stop(), 0);
    copy.cleanup();
  });

  test('declined, then confirmed', async () => {
    answer = { action: 'cancel' };
    const dismissed = await call('delete_note', { id: 1 });
    assert.match(dismissed.content[0].text, /^Cancelled by the user: they dismissed the confirmation/);
    assert.ok(titles(await call('list_notes')).includes('Groceries'));
    answer = { action: 'accept' };
    assert.equal((await call('delete_note', { id: 1 })).content[0].text, '1 row changed.');
    assert.ok(!titles(await call('list_notes')).includes('Groceries'));
  });

  test('the archive reason defaults to the form default when the user keeps it', async () => {
    answer = { action: 'accept', content: {} };
    await call('archive_note', { id: 3 });
    assert.equal((await call('read_note', { id: 3 })).structuredContent.rows[0].archived_reason, 'done');
  });
});
