/**
 * Mirrored tools through the official clients: SDK v1 over real stdio (2025-11-25) and the v2 client
 * over real HTTP (2026-07-28) list and call `read_<resource>` and `get_prompt_<prompt>` like any
 * tool, and a reload that adds a mirrored resource tells them with tools/list_changed.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { tempFiles } from '../helpers/demo.js';
import { connectWatchedStdio, type ServerLog, serveWatchedHttp } from '../helpers/reload-harness.js';
import type { ServedCli } from '../transports/http-harness.js';

const manifest = (more = '') => `
server: { mirror: { resources: true } }
tools:
  ping: { kind: content, description: Answers pong., content: [{ text: pong }] }
resources:
  handbook: { kind: file, path: handbook.md, uri: "docs://handbook", description: The handbook. }
  greeting:
    kind: text
    uri: "greet://{lang}/{name}"
    text: "{{lang}}: hello {{name}}"
    variables: { lang: { enum: [en, fr] } }
${more}
prompts:
  review:
    description: Review a change.
    arguments: { change: { required: true } }
    messages: [{ text: "Review {{change}}." }]
    mirror: true
`;
const FAQ = '  faq: { kind: text, uri: "docs://faq", text: Ask away. }';
const TAKEN = '  ping: { kind: text, uri: "docs://ping", text: clash, mirror: { name: ping } }';

const names = (tools: readonly { name: string }[]) => tools.map((t) => t.name);
const texts = (result: object) =>
  ((result as { content: { text?: string }[] }).content ?? []).map((b) => b.text);

describe('mirrored tools over stdio, SDK v1 client', () => {
  const files = tempFiles({ 'mcp.yaml': manifest(), 'handbook.md': 'Be kind.' });
  const file = join(files.dir, 'mcp.yaml');
  const client = new Client({ name: 'mirror', version: '1' });
  let listChanged = 0;
  let log: ServerLog;

  before(async () => {
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);
    log = await connectWatchedStdio(client, file);
  });
  after(async () => {
    await client.close();
    files.cleanup();
  });

  test('the mirrors are listed and called like tools', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(names(tools), ['ping', 'read_handbook', 'read_greeting', 'get_prompt_review']);
    const greeting = tools.find((t) => t.name === 'read_greeting')!;
    assert.deepEqual(greeting.inputSchema.properties, {
      lang: { type: 'string', enum: ['en', 'fr'] },
      name: { type: 'string' },
    });
    assert.deepEqual(texts(await client.callTool({ name: 'read_handbook', arguments: {} })), ['Be kind.']);
    assert.deepEqual(
      texts(await client.callTool({ name: 'read_greeting', arguments: { lang: 'en', name: 'Ann' } })),
      ['en: hello Ann'],
    );
    assert.deepEqual(
      texts(await client.callTool({ name: 'get_prompt_review', arguments: { change: '#7' } })),
      ['Review #7.'],
    );
    // The resources and prompt are still there for clients that use them.
    assert.equal((await client.readResource({ uri: 'docs://handbook' })).contents.length, 1);
  });

  test('a reload that adds a mirrored resource sends tools/list_changed; a clash keeps the old catalog', async () => {
    await log.edit(file, manifest(FAQ));
    assert.deepEqual(names((await client.listTools()).tools).slice(0, 4), [
      'ping',
      'read_handbook',
      'read_greeting',
      'read_faq',
    ]);
    assert.equal(listChanged, 1);
    await log.edit(file, manifest(TAKEN));
    assert.match(log.text, /error\[MIRROR_NAME_TAKEN\] .*mcp\.yaml:12:64 resources\.ping\.mirror/);
    assert.ok(names((await client.listTools()).tools).includes('read_faq'));
    assert.equal(listChanged, 1);
  });
});

describe('mirrored tools over HTTP, v2 client (2026-07-28)', () => {
  const files = tempFiles({ 'mcp.yaml': manifest(), 'handbook.md': 'Be kind.' });
  const file = join(files.dir, 'mcp.yaml');
  let server: ServedCli;
  let log: ServerLog;

  before(async () => {
    ({ server, log } = await serveWatchedHttp(file));
  });
  after(async () => {
    assert.equal(await server.stop(), 0);
    files.cleanup();
  });

  test('lists and calls the mirrors; a listen stream hears the reload that adds one', async () => {
    const client = new ModernClient(
      { name: 'mirror-modern', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    let listChanged = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => void listChanged++);
    await client.connect(new ModernHttp(new URL(server.url)));
    assert.ok(names((await client.listTools()).tools).includes('get_prompt_review'));
    const result = await client.callTool({ name: 'read_greeting', arguments: { lang: 'fr', name: 'Zoé' } });
    assert.deepEqual(texts(result), ['fr: hello Zoé']);
    const refused = await client.callTool({ name: 'read_greeting', arguments: { lang: 'de', name: 'x' } });
    assert.equal(refused.isError, true);

    const subscription = await client.listen({ toolsListChanged: true });
    await log.edit(file, manifest(FAQ));
    await log.waitFor(() => listChanged === 1, 'tools/list_changed');
    assert.ok(names((await client.listTools()).tools).includes('read_faq'));
    await subscription.close();
    await client.close();
  });
});
