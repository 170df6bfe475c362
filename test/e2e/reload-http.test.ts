/**
 * Hot reload over Streamable HTTP, with real files and the official clients: a 2025 session hears
 * list_changed on its GET stream, a 2026-07-28 listen stream hears it tagged, and each only for
 * what it can see change.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  PromptListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { tempFiles } from '../helpers/demo.js';
import { ServerLog } from '../helpers/reload-harness.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';

const manifest = (tools: string, promptDescription = 'Greets someone.') => `
sources:
  mem: { kind: sqlite, path: ":memory:" }
tools:
${tools}
resources:
  a: { kind: file, path: a.md, uri: "notes://a" }
prompts:
  greet:
    description: ${promptDescription}
    messages: [{ text: "Hi!" }]
`;
const ONE = '  one: { kind: sql, source: mem, description: The first, sql: SELECT 1 AS n }';
const TWO = '  two: { kind: sql, source: mem, description: The second, sql: SELECT 2 AS n }';

describe('hot reload over HTTP', () => {
  const files = tempFiles({ 'mcp.yaml': manifest(ONE), 'a.md': 'A' });
  const file = join(files.dir, 'mcp.yaml');
  let server: ServedCli;
  let log: ServerLog;

  before(async () => {
    server = await spawnHttpCli([file, '--log-level', 'debug']);
    log = new ServerLog(server.child.stderr);
    log.text = server.stderr();
    await log.waitFor(() => log.text.includes('watching'), 'the watcher to start');
  });
  after(async () => {
    assert.equal(await server.stop(), 0);
    files.cleanup();
  });

  test('a 2025 session gets list_changed and resources/updated on its GET stream', async () => {
    const client = new Client({ name: 'reload-http-legacy', version: '1' });
    const seen = { tools: 0, prompts: 0, updated: [] as string[] };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void seen.tools++);
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void seen.prompts++);
    client.setNotificationHandler(
      ResourceUpdatedNotificationSchema,
      (n) => void seen.updated.push(n.params.uri),
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    await log.waitFor(() => log.text.includes('opened its GET stream'), 'the session GET stream');
    await client.subscribeResource({ uri: 'notes://a' });

    await log.edit(file, manifest(`${ONE}\n${TWO}`));
    await log.edit(join(files.dir, 'a.md'), 'A, edited');
    await log.edit(file, `# reformatted\n${manifest(`${ONE}\n${TWO}`).replaceAll(': ', ':  ')}`);
    // The GET stream is ordered: once the sentinel edit's notification has arrived, anything the
    // reformat had sent would have arrived before it.
    await log.edit(file, manifest(ONE));
    await log.waitFor(() => seen.tools === 2 && seen.updated.length === 1, 'the notifications');
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['one'],
    );
    assert.deepEqual(seen, { tools: 2, prompts: 0, updated: ['notes://a'] });
    await client.close();
  });

  test('a 2026-07-28 listen stream gets tagged list_changed for what it asked, only', async () => {
    const client = new ModernClient(
      { name: 'reload-http-modern', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const seen = { tools: 0, prompts: 0 };
    client.setNotificationHandler('notifications/tools/list_changed', () => void seen.tools++);
    client.setNotificationHandler('notifications/prompts/list_changed', () => void seen.prompts++);
    await client.connect(new ModernHttp(new URL(server.url)));
    const subscription = await client.listen({ promptsListChanged: true });
    assert.deepEqual(subscription.honoredFilter, { promptsListChanged: true });

    await log.edit(file, manifest(`${ONE}\n${TWO}`)); // tools change: not asked for
    await log.edit(file, manifest(ONE, 'Greets someone warmly.'));
    await log.waitFor(() => seen.prompts === 1, 'prompts/list_changed');
    const { prompts } = await client.listPrompts();
    assert.equal(prompts[0]?.description, 'Greets someone warmly.');
    assert.deepEqual(seen, { tools: 0, prompts: 1 });
    await subscription.close();
    await client.close();
  });
});
