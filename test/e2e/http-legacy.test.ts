/**
 * The official SDK v1 client (2025 era: initialize, Mcp-Session-Id, GET stream) drives mcp-run over
 * real Streamable HTTP: the built CLI as a child process serving the demo manifest, and an
 * in-process server for the unsolicited list_changed on the session's GET stream.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { demoCopy } from '../helpers/demo.js';
import { type Served, type ServedCli, spawnHttpCli, startHttp } from '../transports/http-harness.js';
import * as demo from './demo-expectations.js';

describe('HTTP, SDK v1 client (2025-11-25), the CLI serving the demo', () => {
  const copy = demoCopy();
  const client = new Client({ name: 'e2e-http-legacy', version: '1.0.0' });
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

  test('negotiates 2025-11-25 in a session and names the server', () => {
    assert.match(transport.sessionId ?? '', /^[\x21-\x7e]+$/);
    assert.equal(transport.protocolVersion, '2025-11-25');
    assert.deepEqual(client.getServerVersion(), { name: 'shop-assistant', version: '1.0.0' });
    assert.match(client.getInstructions() ?? '', /demo shop/);
  });
  test('lists every tool, resource, template and prompt', () => demo.listsEverything(asDemo));
  test('calls every tool with the right rows', () => demo.callsEveryTool(asDemo));
  test('reads every resource and the order template', () => demo.readsEveryResource(asDemo));
  test('gets the prompt and completes its arguments', () => demo.getsEveryPrompt(asDemo));
  test('answers mistakes with the 2025 error codes', () => demo.rejectsMistakes(asDemo, -32002));
  test('answers ping', async () => assert.deepEqual(await client.ping(), {}));
  test('ends the session with DELETE', async () => {
    const other = new StreamableHTTPClientTransport(new URL(server.url));
    const second = new Client({ name: 'e2e-http-legacy-2', version: '1.0.0' });
    await second.connect(other);
    await other.terminateSession();
    assert.equal(other.sessionId, undefined);
    await second.close();
  });
});

describe('HTTP, SDK v1 client: list_changed on the session GET stream', () => {
  let s: Served;
  before(async () => {
    s = await startHttp({ listChanged: true });
  });
  after(() => s.close());

  test('arrives after a change, on the stream the client opened after initialized', async () => {
    const client = new Client({ name: 'e2e-http-notify', version: '1.0.0' });
    const received = new Promise<string>((resolve) => {
      client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => resolve(n.method));
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(s.url)));
    assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);
    // The client opens its GET stream right after notifications/initialized; trigger until it is there
    // (a notification with no stream open is dropped, as the spec allows), bounded.
    let method: string | undefined;
    for (let i = 0; i < 50 && method === undefined; i++) {
      s.protocol.notifyListChanged(new Set(['tools']));
      method = await Promise.race([
        received,
        new Promise<undefined>((r) => setTimeout(() => r(undefined), 100)),
      ]);
    }
    assert.equal(method, 'notifications/tools/list_changed');
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['echo', 'add'],
      'the session still serves requests',
    );
    await client.close();
  });
});
