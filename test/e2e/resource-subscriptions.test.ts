/**
 * Resource subscriptions are honest, over real stdio with the official clients and real files:
 * `resources.subscribe` is advertised only when the server watches, every resource kind either
 * sends `resources/updated` or refuses the subscription, an unknown URI is -32002, and the 2026
 * acknowledgement lists only the URIs whose updates will be sent.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { LEGACY_VERSIONS } from '../../src/protocol/versions.js';
import { CLI, tempFiles } from '../helpers/demo.js';
import { RawStdioPeer } from '../helpers/raw-stdio.js';
import { ServerLog } from '../helpers/reload-harness.js';
import { spawnHttpCli } from '../transports/http-harness.js';

const manifest = (inline: string) => `
sources:
  mem: { kind: sqlite, path: ":memory:" }
resources:
  a: { kind: file, path: a.md, uri: "notes://a" }
  docs: { kind: directory, path: docs, uri: "docs://" }
  inline: { kind: text, uri: "notes://inline", text: "${inline}" }
  greeting:
    kind: text
    uri: "greet://{lang}"
    text: "Hello in {{lang}}."
  rows: { kind: sql, source: mem, uri: "rows://one", sql: SELECT 1 AS n }
  schema: { kind: sql-schema, source: mem, uri: "schema://mem" }
`;

const UPDATING = ['notes://a', 'docs://x.md', 'notes://inline'];
/** They exist (a template match, a query, a schema), but nothing tells the server they changed. */
const SILENT = ['greet://en', 'rows://one', 'schema://mem'];
const UNKNOWN = 'nosuch://thing';

function files() {
  const made = tempFiles({ 'mcp.yaml': manifest('first'), 'a.md': 'A' });
  mkdirSync(join(made.dir, 'docs'));
  writeFileSync(join(made.dir, 'docs', 'x.md'), 'X');
  return made;
}

async function errorCode(promise: Promise<unknown>): Promise<number> {
  const err = await promise.then(
    () => assert.fail('expected an error'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof McpError, String(err));
  return err.code;
}

describe('resource subscriptions over stdio, SDK v1 client, watching', () => {
  const dir = files();
  const file = join(dir.dir, 'mcp.yaml');
  const client = new Client({ name: 'subs', version: '1' });
  const updated: string[] = [];
  let log: ServerLog;

  before(async () => {
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, file, '--log-level', 'debug'],
      stderr: 'pipe',
    });
    log = new ServerLog(transport.stderr as never);
    await client.connect(transport);
    await log.waitFor(() => log.text.includes('watching'), 'the watcher to start');
  });
  after(async () => {
    await client.close();
    dir.cleanup();
  });

  test('advertises subscribe', () => {
    assert.deepEqual(client.getServerCapabilities()?.resources, { subscribe: true, listChanged: true });
  });

  test('an unknown URI is -32002; a resource that sends no updates is refused with -32602', async () => {
    assert.equal(await errorCode(client.subscribeResource({ uri: UNKNOWN })), -32002);
    for (const uri of SILENT)
      assert.equal(await errorCode(client.subscribeResource({ uri })), -32602, `${uri} is refused`);
  });

  test('a file, a directory file and inline text each send resources/updated when they change', async () => {
    for (const uri of UPDATING) assert.deepEqual(await client.subscribeResource({ uri }), {});
    await log.edit(join(dir.dir, 'a.md'), 'A2');
    await client.listResources();
    assert.deepEqual(updated, ['notes://a']);
    await log.edit(join(dir.dir, 'docs', 'x.md'), 'X2');
    await client.listResources();
    assert.deepEqual(updated, ['notes://a', 'docs://x.md']);
    await log.edit(file, manifest('second'));
    const { contents } = await client.readResource({ uri: 'notes://inline' });
    assert.deepEqual(contents, [{ uri: 'notes://inline', mimeType: 'text/plain', text: 'second' }]);
    assert.deepEqual(updated, ['notes://a', 'docs://x.md', 'notes://inline']);
  });

  test('a manifest edit that leaves the inline text alone sends no resources/updated', async () => {
    await log.edit(file, `${manifest('second')}\n# a comment\n`);
    await client.listResources();
    assert.deepEqual(updated, ['notes://a', 'docs://x.md', 'notes://inline']);
  });
});

describe('resource subscriptions over stdio, SDK v1 client, --no-watch', () => {
  const dir = files();
  const client = new Client({ name: 'subs-static', version: '1' });

  before(async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, join(dir.dir, 'mcp.yaml'), '--no-watch'],
      stderr: 'pipe',
    });
    await client.connect(transport);
  });
  after(async () => {
    await client.close();
    dir.cleanup();
  });

  test('does not advertise subscribe, and refuses resources/subscribe as not available', async () => {
    assert.deepEqual(client.getServerCapabilities()?.resources, { listChanged: false });
    assert.equal(await errorCode(client.subscribeResource({ uri: 'notes://a' })), -32601);
  });
});

function modernClient(args: string[]) {
  const client = new ModernClient(
    { name: 'subs-modern', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const transport = new ModernStdio({ command: process.execPath, args: [CLI, ...args], stderr: 'pipe' });
  return { client, transport };
}

describe('subscriptions/listen over stdio, SDK v2 client pinned to 2026-07-28', () => {
  const dir = files();
  const file = join(dir.dir, 'mcp.yaml');
  const { client, transport } = modernClient([file, '--log-level', 'debug']);
  const updated: string[] = [];
  let log: ServerLog;

  before(async () => {
    client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
    log = new ServerLog(transport.stderr as never);
    await client.connect(transport);
    await log.waitFor(() => log.text.includes('watching'), 'the watcher to start');
  });
  after(async () => {
    await client.close();
    dir.cleanup();
  });

  test('the acknowledgement lists only the URIs that will be updated; updates follow', async () => {
    const subscription = await client.listen({
      resourceSubscriptions: [UNKNOWN, ...SILENT, ...UPDATING],
    });
    assert.deepEqual(subscription.honoredFilter, { resourceSubscriptions: UPDATING });
    await log.edit(file, manifest('changed'));
    await client.listResources();
    assert.deepEqual(updated, ['notes://inline']);
    // A file and a directory's file changing on disk reach the listen stream too.
    await log.edit(join(dir.dir, 'a.md'), 'A, one byte more');
    await client.listResources();
    assert.deepEqual(updated, ['notes://inline', 'notes://a']);
    await log.edit(join(dir.dir, 'docs', 'x.md'), 'X, one byte more');
    await client.listResources();
    assert.deepEqual(updated, ['notes://inline', 'notes://a', 'docs://x.md']);
    await subscription.close();
  });
});

describe('subscriptions/listen over stdio, SDK v2 client, --no-watch', () => {
  const dir = files();
  const { client, transport } = modernClient([join(dir.dir, 'mcp.yaml'), '--no-watch']);

  before(async () => {
    await client.connect(transport);
  });
  after(async () => {
    await client.close();
    dir.cleanup();
  });

  test('the acknowledgement holds no resource subscriptions: none would ever be honoured', async () => {
    const subscription = await client.listen({ resourceSubscriptions: UPDATING });
    assert.deepEqual(subscription.honoredFilter, {});
    await subscription.close();
  });
});

describe('resource subscriptions over Streamable HTTP, SDK v1 client', () => {
  for (const watch of [true, false]) {
    test(`subscribe is advertised ${watch ? 'when watching' : 'not with --no-watch'}; unknown URIs are -32002`, async () => {
      const dir = files();
      const served = await spawnHttpCli([join(dir.dir, 'mcp.yaml'), ...(watch ? [] : ['--no-watch'])]);
      const client = new Client({ name: 'subs-http', version: '1' });
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
        assert.deepEqual(
          client.getServerCapabilities()?.resources,
          watch ? { subscribe: true, listChanged: true } : { listChanged: false },
        );
        if (watch) {
          assert.deepEqual(await client.subscribeResource({ uri: 'notes://a' }), {});
          assert.equal(await errorCode(client.subscribeResource({ uri: UNKNOWN })), -32002);
        } else {
          assert.equal(await errorCode(client.subscribeResource({ uri: 'notes://a' })), -32601);
        }
      } finally {
        await client.close();
        await served.stop();
        dir.cleanup();
      }
    });
  }
});

describe('a PNG beside the manifest, subscribed in each 2025 version over stdio (raw JSON-RPC)', () => {
  for (const version of LEGACY_VERSIONS) {
    test(`${version}: appending one byte sends resources/updated`, async () => {
      const made = tempFiles({ 'mcp.yaml': 'resources:\n  logo: { kind: file, path: logo.png }\n' });
      writeFileSync(
        join(made.dir, 'logo.png'),
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      );
      const peer = new RawStdioPeer([join(made.dir, 'mcp.yaml'), '--log-level', 'debug']);
      try {
        const init = await peer.request({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'png', version: '1' } },
        });
        assert.equal(init.result.protocolVersion, version);
        peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        const listed = await peer.request({ jsonrpc: '2.0', id: 2, method: 'resources/list' });
        const uri = listed.result.resources[0].uri as string;
        assert.match(uri, /^file:\/\/.*logo\.png$/);
        const subscribed = await peer.request({
          jsonrpc: '2.0',
          id: 3,
          method: 'resources/subscribe',
          params: { uri },
        });
        assert.deepEqual(subscribed.result, {});
        const until = Date.now() + 10_000;
        while (!peer.stderr.includes('watching')) {
          assert.ok(Date.now() < until, `the watcher did not start:\n${peer.stderr}`);
          await new Promise((r) => setTimeout(r, 20));
        }
        const updated = peer.next((m) => m.method === 'notifications/resources/updated');
        appendFileSync(join(made.dir, 'logo.png'), Buffer.from([0]));
        assert.deepEqual((await updated).params, { uri });
      } finally {
        peer.kill();
        made.cleanup();
      }
    });
  }
});
