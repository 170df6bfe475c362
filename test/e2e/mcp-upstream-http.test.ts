/**
 * `kind: mcp` with an upstream over Streamable HTTP, and the upstream's life around mcp-run's own:
 * server-everything in its streamableHttp mode behind mcp-run, called by the official v2 client in
 * the 2026-07-28 era over stdio (a 2025-only upstream served to a 2026 client), with progress
 * relayed from the upstream's SSE answer; then a stdio upstream behind `mcp-run --http` called by
 * the v1 client: /readyz names it, /metrics counts its restart after a SIGKILL, a reload kills the
 * old upstream process and starts a new one, and shutdown leaves no upstream process behind.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLI, tempFiles } from '../helpers/demo.js';
import { spawnHttpCli } from '../transports/http-harness.js';

type Json = Record<string, any>;
const REPO = join(import.meta.dirname, '../..');
const EVERYTHING = join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const PROBE = join(REPO, 'test/fixtures/mcp-upstream/probe.mjs');
const node = JSON.stringify(process.execPath);
const text = (result: Json) => (result.content as Json[]).map((b) => b.text).join('');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

describe('an upstream over Streamable HTTP, called by the v2 client in the 2026 era', () => {
  let upstream: ChildProcess;
  let client: ClientV2;
  const files = tempFiles({});
  before(async () => {
    const port = await freePort();
    upstream = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server-everything did not listen: ${said}`)), 15_000);
      const hear = (chunk: Buffer) => {
        said += chunk.toString();
        if (/listening on port/i.test(said)) {
          clearTimeout(timer);
          resolve();
        }
      };
      upstream.stderr!.on('data', hear);
      upstream.stdout!.on('data', hear);
    });
    const manifest = join(files.dir, 'mcp.yaml');
    writeFileSync(
      manifest,
      `
sources:
  everything:
    kind: mcp
    url: http://127.0.0.1:${port}/mcp
    expose:
      tools: { include: [echo, trigger-long-running-operation], prefix: ev_ }
`,
    );
    client = new ClientV2(
      { name: 'mcp-upstream-v2', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StdioV2({ command: process.execPath, args: [CLI, manifest], stderr: 'pipe' }));
  });
  after(async () => {
    await client?.close();
    upstream?.kill('SIGKILL');
    files.cleanup();
  });

  test('the exposed tools are listed and answer', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['ev_echo', 'ev_trigger-long-running-operation']);
    const result = (await client.callTool({ name: 'ev_echo', arguments: { message: 'over http' } })) as Json;
    assert.match(text(result), /over http/);
  });

  test("the upstream's progress, streamed over SSE, reaches the 2026 client", async () => {
    const seen: Json[] = [];
    const result = (await client.callTool(
      { name: 'ev_trigger-long-running-operation', arguments: { duration: 1, steps: 2 } },
      { onprogress: (p: Json) => seen.push(p) },
    )) as Json;
    assert.notEqual(result.isError, true, text(result));
    assert.ok(seen.length >= 1, `progress seen: ${JSON.stringify(seen)}`);
  });
});

describe('a stdio upstream behind mcp-run --http, across a reload and a shutdown', () => {
  const files = tempFiles({});
  const manifest = join(files.dir, 'mcp.yaml');
  const write = (description: string) =>
    writeFileSync(
      manifest,
      `
sources:
  probe:
    kind: mcp
    command: [${node}, ${JSON.stringify(PROBE)}]
tools:
  whoami:
    kind: mcp
    source: probe
    tool: pid
    description: ${description}
`,
    );
  after(() => files.cleanup());

  test('readyz names it, metrics count its restart, a reload replaces its process, and shutdown kills it', async () => {
    write('The first one.');
    const served = await spawnHttpCli([manifest, '--metrics']);
    const connect = async () => {
      const client = new Client({ name: 'mcp-upstream-v1', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
      return client;
    };
    const pidOf = async (client: Client) =>
      ((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent as Json).pid as number;
    try {
      const ready = await fetch(new URL('/readyz', served.url));
      assert.equal(ready.status, 200);
      assert.match(await ready.text(), /probe/);
      const first = await connect();
      const killed = await pidOf(first);
      process.kill(killed, 'SIGKILL');
      let before = killed;
      for (let i = 0; i < 50 && before === killed; i++) {
        await new Promise((r) => setTimeout(r, 100));
        before = await pidOf(first).catch(() => killed);
      }
      assert.notEqual(before, killed, 'the upstream was restarted');
      await first.close();
      const metrics = await (await fetch(new URL('/metrics', served.url))).text();
      assert.match(metrics, /^mcp_run_source_restarts_total\{source="probe"\} 1$/m);
      assert.match(metrics, /^mcp_run_tool_calls_total\{tool="whoami",outcome="ok"\} [1-9]/m);

      write('The second one.');
      let after = before;
      for (let i = 0; i < 100 && after === before; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const client = await connect();
        const { tools } = await client.listTools();
        if (tools[0]?.description === 'The second one.') after = await pidOf(client);
        await client.close();
      }
      assert.notEqual(after, before, 'the reload served a new upstream process');
      assert.ok(await gone(before), 'the old upstream process was killed after the reload');

      assert.equal(await served.stop('SIGTERM'), 0);
      assert.ok(await gone(after), 'the upstream process died with mcp-run');
    } finally {
      if (served.child.exitCode === null) served.child.kill('SIGKILL');
    }
  });
});
