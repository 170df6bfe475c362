/**
 * The official SDK clients drive `mcp-run` serving the demo manifest, in one matrix:
 * {stdio, http} × {2025-11-25, 2026-07-28}.
 *
 * - 2025-11-25: the SDK v1 client (`@modelcontextprotocol/sdk`), initialize handshake; over HTTP a
 *   Mcp-Session-Id session with its GET stream.
 * - 2026-07-28: the SDK v2 client (`@modelcontextprotocol/client`) pinned to 2026-07-28, stateless:
 *   server/discover, a _meta envelope on every request, no session.
 * - stdio: the built CLI as the client's child process. http: the built CLI serving Streamable HTTP
 *   on a free port, stopped (exit code 0) after the cell.
 *
 * Every cell runs the same cases (demo-expectations.ts); a cell's own checks (the handshake, the
 * HTTP session, ping, listen streams…) sit in that cell only. Test names start with the cell, e.g.
 * "http × 2026-07-28: tools/call returns the right rows for every tool".
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, demoCopy } from '../helpers/demo.js';
import { ROUTED_TOOL, type Served, spawnHttpCli, startHttp } from '../transports/http-harness.js';
import * as demo from './demo-expectations.js';

type TransportName = 'stdio' | 'http';
type Version = '2025-11-25' | '2026-07-28';

/** How a client reaches a running mcp-run. */
type Wire = { kind: 'stdio'; command: string; args: string[] } | { kind: 'http'; url: URL };

/** The transport half of a cell: start mcp-run serving a manifest, and stop it. */
interface TransportAdapter {
  serve(manifest: string): Promise<{ wire: Wire; stop(): Promise<void> }>;
}

/** A connected client, seen through what the shared cases need. */
interface Connection {
  readonly client: demo.DemoClient;
  /** The era's handshake checks, and the transport's where they differ (the HTTP session). */
  checkHandshake(): Promise<void>;
  /** ping, where the era's cells check it. */
  ping?(): Promise<unknown>;
  close(): Promise<void>;
}

/** What a cell's own tests can reach once the cell is up. */
interface Cell {
  readonly label: string;
  wire(): Wire;
  connection(): Connection;
}

/** The era half of a cell: which SDK client, how it connects over a wire, and its error codes. */
interface EraAdapter {
  readonly notFoundCode: number;
  readonly handshake: string;
  connect(wire: Wire): Promise<Connection>;
  /** Tests that exist only in some cells of this era, registered inside that cell. */
  readonly own?: Partial<Record<TransportName, (cell: Cell) => void>>;
}

const transports: Record<TransportName, TransportAdapter> = {
  // The client spawns the CLI itself and ends it on close.
  stdio: {
    serve: async (manifest) => ({
      wire: { kind: 'stdio', command: process.execPath, args: [CLI, manifest] },
      stop: async () => {},
    }),
  },
  http: {
    async serve(manifest) {
      const server = await spawnHttpCli([manifest]);
      return {
        wire: { kind: 'http', url: new URL(server.url) },
        stop: async () => assert.equal(await server.stop(), 0, 'the HTTP server exits cleanly'),
      };
    },
  },
};

const SERVER_INFO = { name: 'shop-assistant', version: '1.0.0' };

const legacyClient = (name: string) => new ClientV1({ name, version: '1.0.0' });
const pinnedClient = (name: string) =>
  new ClientV2({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });

const eras: Record<Version, EraAdapter> = {
  '2025-11-25': {
    notFoundCode: -32002,
    handshake: 'initialize negotiates 2025-11-25 and names the server',
    async connect(wire) {
      const client = legacyClient('e2e-legacy');
      const transport =
        wire.kind === 'stdio'
          ? new StdioV1({ command: wire.command, args: wire.args, stderr: 'pipe' })
          : new HttpV1(wire.url);
      await client.connect(transport);
      return {
        client: client as unknown as demo.DemoClient,
        async checkHandshake() {
          assert.deepEqual(client.getServerVersion(), SERVER_INFO);
          assert.deepEqual(Object.keys(client.getServerCapabilities() ?? {}).sort(), [
            'completions',
            'logging',
            'prompts',
            'resources',
            'tasks',
            'tools',
          ]);
          assert.match(client.getInstructions() ?? '', /demo shop/);
          if (transport instanceof HttpV1) {
            assert.match(transport.sessionId ?? '', /^[\x21-\x7e]+$/, 'a visible-ASCII session id');
            assert.equal(transport.protocolVersion, '2025-11-25');
          }
        },
        ping: () => client.ping(),
        close: () => client.close(),
      };
    },
    own: {
      stdio: (cell) => pingTest(cell),
      http: (cell) => {
        pingTest(cell);
        test(`${cell.label}: DELETE ends the session`, async () => {
          const served = cell.wire();
          assert.ok(served.kind === 'http');
          const other = new HttpV1(served.url);
          const second = legacyClient('e2e-http-legacy-2');
          await second.connect(other);
          assert.ok(other.sessionId, 'the second client has a session to end');
          await other.terminateSession();
          assert.equal(other.sessionId, undefined);
          await second.close();
        });
        listChangedOnSessionStream(cell.label);
      },
    },
  },
  '2026-07-28': {
    notFoundCode: -32602,
    handshake: 'server/discover negotiates 2026-07-28',
    async connect(wire) {
      const client = pinnedClient('e2e-modern');
      const transport =
        wire.kind === 'stdio'
          ? new StdioV2({ command: wire.command, args: wire.args, stderr: 'pipe' })
          : new HttpV2(wire.url);
      await client.connect(transport);
      return {
        client: client as unknown as demo.DemoClient,
        async checkHandshake() {
          assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
          const discovered = await client.discover();
          assert.ok(discovered.supportedVersions.includes('2026-07-28'));
          assert.ok(discovered.capabilities.tools);
          if (transport instanceof HttpV2) assert.equal(transport.sessionId, undefined, 'no session');
        },
        close: () => client.close(),
      };
    },
    own: {
      http: (cell) => {
        listenStream(cell.label);
        paramHeaders(cell.label);
      },
    },
  },
};

for (const transportName of ['stdio', 'http'] as const) {
  for (const version of ['2025-11-25', '2026-07-28'] as const) {
    const label = `${transportName} × ${version}`;
    const era = eras[version];

    describe(label, () => {
      const copy = demoCopy();
      let served: Awaited<ReturnType<TransportAdapter['serve']>> | undefined;
      let connection: Connection | undefined;
      const client = () => connection!.client;

      before(async () => {
        served = await transports[transportName].serve(copy.manifest);
        connection = await era.connect(served.wire);
      });
      after(async () => {
        try {
          await connection?.close();
          await served?.stop();
        } finally {
          copy.cleanup();
        }
      });

      test(`${label}: ${era.handshake}`, () => connection!.checkHandshake());
      test(`${label}: tools/list, resources/list, resources/templates/list and prompts/list list everything`, () =>
        demo.listsEverything(client()));
      test(`${label}: tools/call returns the right rows for every tool`, () => demo.callsEveryTool(client()));
      test(`${label}: resources/read reads every resource and the order template`, () =>
        demo.readsEveryResource(client()));
      test(`${label}: prompts/get renders the prompt, completion/complete completes its arguments`, () =>
        demo.getsEveryPrompt(client()));
      test(`${label}: mistakes are answered with the ${version} error codes`, () =>
        demo.rejectsMistakes(client(), era.notFoundCode));

      era.own?.[transportName]?.({ label, wire: () => served!.wire, connection: () => connection! });
    });
  }
}

/** 2025 era: ping on the cell's client. */
function pingTest(cell: Cell): void {
  test(`${cell.label}: ping is answered`, async () => {
    assert.deepEqual(await cell.connection().ping!(), {});
  });
}

/** http × 2025: an unsolicited list_changed on the session's GET stream (in-process server). */
function listChangedOnSessionStream(label: string): void {
  describe(`${label}: list_changed on the session GET stream (in-process server)`, () => {
    let s: Served;
    before(async () => {
      s = await startHttp({ listChanged: true });
    });
    after(() => s.close());

    test(`${label}: list_changed arrives after a change, on the stream the client opened after initialized`, async () => {
      const client = legacyClient('e2e-http-notify');
      const received = new Promise<string>((resolve) => {
        client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => resolve(n.method));
      });
      await client.connect(new HttpV1(new URL(s.url)));
      assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);
      // The client opens its GET stream right after notifications/initialized; trigger until it is
      // there (a notification with no stream open is dropped, as the spec allows), bounded.
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
}

/** http × 2026-07-28: a listen stream (in-process server). */
function listenStream(label: string): void {
  describe(`${label}: a listen stream (in-process server)`, () => {
    let s: Served;
    before(async () => {
      s = await startHttp({ listChanged: true });
    });
    after(() => s.close());

    test(`${label}: subscriptions/listen is acknowledged, delivers a tagged list_changed, and ends gracefully at shutdown`, async () => {
      const client = pinnedClient('e2e-http-listen');
      await client.connect(new HttpV2(new URL(s.url)));
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
}

/** http × 2026-07-28: Mcp-Param-* headers mirrored from x-mcp-header arguments (in-process server). */
function paramHeaders(label: string): void {
  describe(`${label}: Mcp-Param-* headers (in-process server)`, () => {
    let s: Served;
    before(async () => {
      s = await startHttp({ catalog: { tools: new Map([['routed', ROUTED_TOOL]]) } });
    });
    after(() => s.close());

    test(`${label}: the client mirrors x-mcp-header arguments and the server accepts them`, async () => {
      const client = pinnedClient('e2e-http-routed');
      await client.connect(new HttpV2(new URL(s.url)));
      await client.listTools(); // the client learns the x-mcp-header declarations from the list
      const args = { region: 'eu-wést', count: 3, options: { fast: true } };
      const result = await client.callTool({ name: 'routed', arguments: args });
      assert.deepEqual(result.content, [{ type: 'text', text: JSON.stringify(args) }]);
      await client.close();
    });
  });
}
