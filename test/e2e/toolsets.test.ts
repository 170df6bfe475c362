/**
 * Toolsets through the official clients: two clients on two toolsets' endpoints over real HTTP (a
 * 2025 session with SDK v1 on one, a 2026-07-28 listen stream with the v2 client on the other), and
 * stdio with --toolset. Each sees only its own toolset, and only its own hears list_changed.
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
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { tempFiles } from '../helpers/demo.js';
import { connectWatchedStdio, type ServerLog, serveWatchedHttp } from '../helpers/reload-harness.js';
import { runCli } from '../helpers/run-cli.js';
import type { ServedCli } from '../transports/http-harness.js';

const manifest = ({ invoice = 'An invoice.', ticket = 'A ticket.', hi = 'Hi.' } = {}) => `
toolsets:
  billing: { tools: ["billing_*"], prompts: [billing_note] }
  support: { tools: [ticket], resources: [faq], prompts: [greet] }
tools:
  billing_invoice: { kind: content, description: "${invoice}", content: [{ text: invoice }] }
  billing_refund: { kind: content, description: A refund., content: [{ text: refund }] }
  ticket: { kind: content, description: "${ticket}", content: [{ text: ticket }] }
  status: { kind: content, description: Everyone's., content: [{ text: ok }] }
resources:
  faq: { kind: text, uri: "docs://faq", text: Ask., mirror: true }
prompts:
  greet: { description: "${hi}", messages: [{ text: Hi. }] }
  billing_note: { description: "${hi}", messages: [{ text: Pay. }] }
`;

const names = (items: readonly { name: string }[]) => items.map((t) => t.name);

describe('toolsets over HTTP', () => {
  const files = tempFiles({ 'mcp.yaml': manifest() });
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

  test('each endpoint serves its own toolset; the default serves everything; an unknown one is 404', async () => {
    const all = new Client({ name: 'all', version: '1' });
    await all.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    assert.deepEqual(names((await all.listTools()).tools), [
      'billing_invoice',
      'billing_refund',
      'ticket',
      'status',
      'read_faq',
    ]);
    await all.close();
    const missing = await fetch(`${server.url}/nope`, { method: 'POST' });
    assert.equal(missing.status, 404);
  });

  test('a 2025 session and a 2026 listen stream, on two toolsets: each sees and hears only its own', async () => {
    const billing = new Client({ name: 'billing', version: '1' });
    let billingChanged = 0;
    let billingPrompts = 0;
    billing.setNotificationHandler(ToolListChangedNotificationSchema, () => void billingChanged++);
    billing.setNotificationHandler(PromptListChangedNotificationSchema, () => void billingPrompts++);
    const billingTransport = new StreamableHTTPClientTransport(new URL(`${server.url}/billing`));
    await billing.connect(billingTransport);
    await log.waitFor(() => log.text.includes('opened its GET stream'), 'the session GET stream');

    const support = new ModernClient(
      { name: 'support', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    let supportChanged = 0;
    let supportPrompts = 0;
    support.setNotificationHandler('notifications/tools/list_changed', () => void supportChanged++);
    support.setNotificationHandler('notifications/prompts/list_changed', () => void supportPrompts++);
    await support.connect(new ModernHttp(new URL(`${server.url}/support`)));

    assert.deepEqual(names((await billing.listTools()).tools), ['billing_invoice', 'billing_refund']);
    assert.deepEqual(names((await support.listTools()).tools), ['ticket', 'read_faq']);
    assert.deepEqual(names((await support.listPrompts()).prompts), ['greet']);
    assert.deepEqual(names((await billing.listPrompts()).prompts), ['billing_note']);
    assert.deepEqual((await billing.listResources()).resources, []);
    // A tool of another toolset is unknown here.
    const other = await billing.callTool({ name: 'ticket', arguments: {} }).then(
      (r) => r,
      (err: Error) => err,
    );
    assert.ok(other instanceof Error && /Unknown tool/i.test(other.message), String(other));
    const subscription = await support.listen({ toolsListChanged: true, promptsListChanged: true });

    // A billing tool, then a support tool, then a prompt of each: the last is the sentinel. Each
    // client's stream is ordered, so once its prompts/list_changed has come, every tools/list_changed
    // sent to it before has come too.
    await log.edit(file, manifest({ invoice: 'An invoice, edited.' }));
    await log.edit(file, manifest({ invoice: 'An invoice, edited.', ticket: 'A ticket, edited.' }));
    await log.edit(
      file,
      manifest({ invoice: 'An invoice, edited.', ticket: 'A ticket, edited.', hi: 'Hello.' }),
    );
    await log.waitFor(() => billingPrompts === 1 && supportPrompts === 1, 'the sentinel on both streams');
    assert.deepEqual({ billingChanged, supportChanged }, { billingChanged: 1, supportChanged: 1 });

    // A session belongs to the path it was created on.
    const sessionId = billingTransport.sessionId!;
    const elsewhere = await fetch(`${server.url}/support`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    assert.equal(elsewhere.status, 404);

    await subscription.close();
    await support.close();
    await billing.close();
  });
});

describe('toolsets over stdio (--toolset)', () => {
  const files = tempFiles({ 'mcp.yaml': manifest() });
  const file = join(files.dir, 'mcp.yaml');
  const client = new Client({ name: 'stdio-toolset', version: '1' });
  let changed = 0;
  let log: ServerLog;

  before(async () => {
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    log = await connectWatchedStdio(client, file, ['--toolset', 'support']);
  });
  after(async () => {
    await client.close();
    files.cleanup();
  });

  test('serves only the toolset, and tells of its changes only', async () => {
    assert.deepEqual(names((await client.listTools()).tools), ['ticket', 'read_faq']);
    await log.edit(file, manifest({ invoice: 'Billing only.' }));
    await client.listTools();
    assert.equal(changed, 0);
    await log.edit(file, manifest({ invoice: 'Billing only.', ticket: 'Support too.' }));
    const { tools } = await client.listTools();
    assert.equal(tools[0]?.description, 'Support too.');
    assert.equal(changed, 1);
  });

  test('an unknown --toolset is refused at start, with the known ones', () => {
    const run = runCli([file, '--toolset', 'suport']);
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /--toolset: no toolset is named "suport" \(did you mean "support"\?\); toolsets: billing, support/,
    );
  });
});
