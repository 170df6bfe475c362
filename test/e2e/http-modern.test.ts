/**
 * The official SDK v2 client pinned to 2026-07-28 (stateless: an envelope and routing headers on
 * every POST, no session) drives mcp-run over real Streamable HTTP: the built CLI serving the demo,
 * and an in-process server for a listen stream's acknowledgement and tagged list_changed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { demoCopy } from '../helpers/demo.js';
import {
  ROUTED_TOOL,
  type Served,
  type ServedCli,
  spawnHttpCli,
  startHttp,
} from '../transports/http-harness.js';
import * as demo from './demo-expectations.js';

const pinned = () =>
  new Client(
    { name: 'e2e-http-modern', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );

describe('HTTP, SDK v2 client pinned to 2026-07-28, the CLI serving the demo', () => {
  const copy = demoCopy();
  const client = pinned();
  const asDemo = client as unknown as demo.DemoClient;
  let server: ServedCli;
  let transport: StreamableHTTPClientTransport;

  before(async () => {
    server = await spawnHttpCli([copy.manifest]);
    transport = new StreamableHTTPClientTransport(new URL(server.url));
    await client.connect(transport);
  });
  after(async () => {
    await client.close();
    assert.equal(await server.stop(), 0);
    copy.cleanup();
  });

  test('negotiates 2026-07-28 through server/discover, with no session', async () => {
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    const discovered = await client.discover();
    assert.ok(discovered.supportedVersions.includes('2026-07-28'));
    assert.equal(transport.sessionId, undefined);
  });
  test('lists every tool, resource, template and prompt', () => demo.listsEverything(asDemo));
  test('calls every tool with the right rows', () => demo.callsEveryTool(asDemo));
  test('reads every resource and the order template', () => demo.readsEveryResource(asDemo));
  test('gets the prompt and completes its arguments', () => demo.getsEveryPrompt(asDemo));
  test('answers mistakes with the 2026 error codes', () => demo.rejectsMistakes(asDemo, -32602));
});

describe('HTTP, SDK v2 client: a listen stream', () => {
  let s: Served;
  before(async () => {
    s = await startHttp({ listChanged: true });
  });
  after(() => s.close());

  test('is acknowledged, then delivers a tagged list_changed, and ends gracefully at shutdown', async () => {
    const client = pinned();
    await client.connect(new StreamableHTTPClientTransport(new URL(s.url)));
    const changed = new Promise<unknown>((resolve) => {
      client.setNotificationHandler('notifications/tools/list_changed', (n) => resolve(n));
    });
    const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true });
    assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true, promptsListChanged: true });
    s.protocol.notifyListChanged(new Set(['tools']));
    const note = (await changed) as { method: string; params?: { _meta?: Record<string, unknown> } };
    assert.equal(note.method, 'notifications/tools/list_changed');
    assert.ok(note.params?._meta?.['io.modelcontextprotocol/subscriptionId'] !== undefined, 'tagged');

    // The same client keeps calling while the stream is open.
    const result = await client.callTool({ name: 'echo', arguments: { text: 'still here' } });
    assert.deepEqual(result.content, [{ type: 'text', text: 'still here' }]);

    s.protocol.close();
    assert.equal(await subscription.closed, 'graceful');
    await client.close();
  });
});

describe('HTTP, SDK v2 client: Mcp-Param-* headers', () => {
  let s: Served;
  before(async () => {
    s = await startHttp({ catalog: { tools: new Map([['routed', ROUTED_TOOL]]) } });
  });
  after(() => s.close());

  test('the client mirrors x-mcp-header arguments and the server accepts them', async () => {
    const client = pinned();
    await client.connect(new StreamableHTTPClientTransport(new URL(s.url)));
    await client.listTools(); // the client learns the x-mcp-header declarations from the list
    const args = { region: 'eu-wést', count: 3, options: { fast: true } };
    const result = await client.callTool({ name: 'routed', arguments: args });
    assert.deepEqual(result.content, [{ type: 'text', text: JSON.stringify(args) }]);
    await client.close();
  });
});
