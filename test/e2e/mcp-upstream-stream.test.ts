/**
 * `kind: mcp` over Streamable HTTP: the upstream's standalone GET stream, through the built CLI with
 * the official v1 client. server-everything (streamableHttp mode) sends its resources/updated there,
 * and they reach our subscriber; the raw fixture http-stream.mjs shows a list_changed on the stream
 * reloading mcp-run (our client told once), the stream opened again after the upstream ends it
 * (with Last-Event-ID), comments and junk past the budget read through, an event that never ends
 * cut off and the stream opened again (without it), a session that expires opened again with its
 * stream, and an upstream that answers the GET 405 served as before and never asked again.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { CLI, tempFiles } from '../helpers/demo.js';

type Json = Record<string, any>;
const REPO = join(import.meta.dirname, '../..');
const EVERYTHING = join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FIXTURE = join(REPO, 'test/fixtures/mcp-upstream/http-stream.mjs');
const ARCHITECTURE = 'demo://resource/static/document/architecture.md';
const text = (result: Json) => (result.content as Json[]).map((b) => b.text ?? '').join('\n');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts an upstream program and waits for it to say which port it listens on. */
async function upstream(args: string[], env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let said = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the upstream did not listen: ${said}`)), 15_000);
    const hear = (chunk: Buffer) => {
      said += chunk.toString();
      if (/listening on port/i.test(said)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stderr!.on('data', hear);
    child.stdout!.on('data', hear);
  });
  return child;
}

/** Polls `check` until it answers something (bounded). */
async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** mcp-run over stdio on `manifest`, with its stderr (debug) kept. */
async function mcpRun(manifest: string): Promise<{ client: Client; stderr: () => string }> {
  const client = new Client({ name: 'mcp-upstream-stream', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, manifest, '--log-level', 'debug'],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe("server-everything's resources/updated, sent on its GET stream, reach our subscriber", () => {
  let everything: ChildProcess;
  let client: Client;
  const updates: string[] = [];
  const files = tempFiles({});
  before(async () => {
    const port = await freePort();
    everything = await upstream([EVERYTHING, 'streamableHttp'], { PORT: String(port) });
    const manifest = join(files.dir, 'mcp.yaml');
    writeFileSync(
      manifest,
      `
sources:
  everything:
    kind: mcp
    url: http://127.0.0.1:${port}/mcp
    expose:
      tools: { include: [toggle-subscriber-updates], prefix: ev_ }
      resources: { include: [architecture.md], prefix: ev_ }
`,
    );
    ({ client } = await mcpRun(manifest));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
  });
  after(async () => {
    await client?.close();
    everything?.kill('SIGKILL');
    files.cleanup();
  });

  test('subscribe, toggle the updates, hear of the resource', async () => {
    assert.equal((client.getServerCapabilities() as Json).resources?.subscribe, true);
    await client.subscribeResource({ uri: ARCHITECTURE });
    const started = (await client.callTool({ name: 'ev_toggle-subscriber-updates', arguments: {} })) as Json;
    assert.match(text(started), /Started simulated resource updated/);
    // everything sends them with no request to ride on: only its GET stream carries them.
    await until('the update', () => updates.includes(ARCHITECTURE));
    await client.callTool({ name: 'ev_toggle-subscriber-updates', arguments: {} });
  });
});

describe('the GET stream of a raw upstream: list_changed, reconnection, an endless event', () => {
  let fixture: ChildProcess;
  let run: Awaited<ReturnType<typeof mcpRun>>;
  let listChanged = 0;
  const files = tempFiles({});
  const gets = async (): Promise<Json> =>
    JSON.parse(text((await run.client.callTool({ name: 'st_gets', arguments: {} })) as Json));
  before(async () => {
    const port = await freePort();
    fixture = await upstream([FIXTURE], { PORT: String(port) });
    const manifest = join(files.dir, 'mcp.yaml');
    writeFileSync(
      manifest,
      `
sources:
  stream:
    kind: mcp
    url: http://127.0.0.1:${port}/mcp
    maxMessageBytes: 65536
    expose:
      tools: { prefix: st_ }
`,
    );
    run = await mcpRun(manifest);
    run.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged++;
    });
  });
  after(async () => {
    await run?.client.close();
    fixture?.kill('SIGKILL');
    files.cleanup();
  });

  test('the stream is opened after the handshake, with no Last-Event-ID', async () => {
    const seen = await until('the first GET', async () => {
      const g = await gets();
      return g.gets.length >= 1 ? g : undefined;
    });
    assert.deepEqual(seen.gets, [null]);
  });

  test('a stream the upstream ends is opened again, resuming after its last event', async () => {
    const dropped = text((await run.client.callTool({ name: 'st_drop', arguments: {} })) as Json);
    const last = /the last event was (e\d+)/.exec(dropped)![1];
    const seen = await until('the second GET', async () => {
      const g = await gets();
      return g.gets.length >= 2 ? g : undefined;
    });
    assert.deepEqual(seen.gets, [null, last]);
  });

  test('comments and junk lines far past the budget hold nothing: the event after them arrives', async () => {
    const warned = run.stderr().match(/over maxMessageBytes/g)?.length ?? 0;
    const before = (await gets()).gets.length;
    const said = text((await run.client.callTool({ name: 'st_chatter', arguments: {} })) as Json);
    const last = /the last event was (e\d+)/.exec(said)![1];
    const seen = await until('the GET after the chatter', async () => {
      const g = await gets();
      return g.gets.length > before ? g : undefined;
    });
    // Resumed after the event that followed the chatter: the stream read it, and was not cut.
    assert.equal(seen.gets.at(-1), last);
    assert.equal(run.stderr().match(/over maxMessageBytes/g)?.length ?? 0, warned);
  });

  for (const mode of ['line', 'lines'] as const)
    test(`an event that never ends (${mode}) is cut off and the stream opened again, not resumed`, async () => {
      const before = (await gets()).gets.length;
      assert.equal(
        text((await run.client.callTool({ name: 'st_flood', arguments: { mode } })) as Json),
        'flooding',
      );
      const seen = await until('the flood cut off and a new GET', async () => {
        const g = await gets();
        return g.floods.at(-1)?.closed && g.gets.length > before ? g : undefined;
      });
      const flood = seen.floods.at(-1);
      assert.equal(flood.mode, mode);
      // mcp-run stopped reading near its 64 KiB budget; the socket buffers hold the rest.
      assert.ok(flood.bytes < 16 * 1024 * 1024, `the upstream wrote ${flood.bytes} bytes before the cut`);
      assert.equal(seen.gets.at(-1), null, 'the oversized event is not asked for again');
      assert.match(run.stderr(), /sent an event over maxMessageBytes \(65536\) on its stream/);
    });

  test('a list_changed on the stream reloads mcp-run, and our client hears it once', async () => {
    assert.equal(listChanged, 0);
    await run.client.callTool({ name: 'st_announce', arguments: {} });
    await until('the new tool served', async () => {
      const { tools } = await run.client.listTools();
      return tools.some((t) => t.name === 'st_extra_1') && listChanged >= 1 ? true : undefined;
    });
    const result = (await run.client.callTool({ name: 'st_extra_1', arguments: {} })) as Json;
    assert.equal(text(result), 'extra_1');
    assert.equal(listChanged, 1);
    // The reloaded source opened a session of its own, and its stream.
    const seen = await until('the new session GET', async () => {
      const g = await gets();
      return g.gets.length >= 1 ? g : undefined;
    });
    assert.deepEqual(seen.gets, [null]);
  });

  test('a session that expires is opened again, and its stream with it', async () => {
    const old = (await gets()).session;
    const said = text((await run.client.callTool({ name: 'st_expire', arguments: {} })) as Json);
    assert.equal(said, `expired ${old}`);
    // The first calls after may fail (the 404 closes the session); then a new one serves.
    const seen = await until('a new session with its GET', async () => {
      const result = (await run.client.callTool({ name: 'st_gets', arguments: {} })) as Json;
      if (result.isError) return undefined;
      const g = JSON.parse(text(result));
      return g.session !== old && g.gets.length >= 1 ? g : undefined;
    });
    assert.deepEqual(seen.gets, [null]);
  });
});

describe('an upstream that answers the GET 405', () => {
  let fixture: ChildProcess;
  let run: Awaited<ReturnType<typeof mcpRun>>;
  const files = tempFiles({});
  before(async () => {
    const port = await freePort();
    fixture = await upstream([FIXTURE], { PORT: String(port), NO_GET: '1' });
    const manifest = join(files.dir, 'mcp.yaml');
    writeFileSync(
      manifest,
      `
sources:
  stream:
    kind: mcp
    url: http://127.0.0.1:${port}/mcp
    expose:
      tools: { include: [gets, announce], prefix: st_ }
`,
    );
    run = await mcpRun(manifest);
  });
  after(async () => {
    await run?.client.close();
    fixture?.kill('SIGKILL');
    files.cleanup();
  });

  test('is served through its answers, and its GET is asked once', async () => {
    const gets = async (): Promise<Json> =>
      JSON.parse(text((await run.client.callTool({ name: 'st_gets', arguments: {} })) as Json));
    await until('the 405 logged', () => /offers no stream of its own/.test(run.stderr()));
    // A channel that retried would ask again within 250 ms; these calls and the log say it did not.
    for (let i = 0; i < 5; i++) assert.deepEqual((await gets()).gets, [null]);
    assert.equal(run.stderr().match(/offers no stream of its own/g)?.length, 1);
  });
});
