/**
 * `kind: mcp` over stdio, end to end: the built CLI serves real upstream servers (the reference
 * servers everything, filesystem and memory, and a small probe on the v1 server library) and the
 * official v1 client calls through it over stdio. Filters and renames hold on tools/call, a pinned
 * argument cannot be set, progress and cancellation cross both hops, and an upstream SIGKILLed
 * mid-call fails that call and serves the next one after its restart. UPSTREAM_ENTRY_UNKNOWN is
 * asserted here too (it needs a live upstream, so no golden case can produce it).
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';

type Json = Record<string, any>;
const REPO = join(import.meta.dirname, '../..');
const pkg = (name: string, file: string) => join(REPO, 'node_modules/@modelcontextprotocol', name, file);
const EVERYTHING = pkg('server-everything', 'dist/index.js');
const FILESYSTEM = pkg('server-filesystem', 'dist/index.js');
const MEMORY = pkg('server-memory', 'dist/index.js');
const PROBE = join(REPO, 'test/fixtures/mcp-upstream/probe.mjs');
const node = JSON.stringify(process.execPath);

const files = tempFiles({ 'notes/hello.txt': 'hello from the notes folder\n', 'probe.log': '' });
const manifest = join(files.dir, 'mcp.yaml');
writeFileSync(
  manifest,
  `
sources:
  everything:
    kind: mcp
    command: [${node}, ${JSON.stringify(EVERYTHING)}, stdio]
    expose:
      tools:
        include: [echo, get-sum, trigger-long-running-operation]
        prefix: ev_
        overrides:
          echo: { name: shout, description: Says the message back. }
  fs:
    kind: mcp
    command: [${node}, ${JSON.stringify(FILESYSTEM)}, ${JSON.stringify(join(files.dir, 'notes'))}]
    expose:
      tools:
        include: [read_text_file]
        overrides: { read_text_file: { name: read_note } }
  memory:
    kind: mcp
    command: [${node}, ${JSON.stringify(MEMORY)}]
    env: { MEMORY_FILE_PATH: ${JSON.stringify(join(files.dir, 'memory.jsonl'))} }
    expose:
      tools: { include: [create_entities, read_graph], prefix: mem_ }
  probe:
    kind: mcp
    command: [${node}, ${JSON.stringify(PROBE)}]
    env:
      PROBE_LOG: ${JSON.stringify(join(files.dir, 'probe.log'))}
      PROBE_REFUSE: ${JSON.stringify(join(files.dir, 'refuse'))}
    expose:
      tools: { prefix: probe_ }
tools:
  add_two:
    kind: mcp
    source: everything
    tool: get-sum
    description: Adds two to a number.
    pin: { b: 2 }
resources:
  architecture:
    kind: mcp
    source: everything
    uri: demo://resource/static/document/architecture.md
prompts:
  simple:
    kind: mcp
    source: everything
    prompt: simple-prompt
`,
);

const text = (result: Json) => (result.content as Json[]).map((b) => b.text).join('');

describe('kind: mcp over stdio, called by the v1 client', () => {
  let client: Client;
  let listChanged = 0;
  before(async () => {
    client = new Client({ name: 'mcp-upstream-v1', version: '1.0.0' });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged++;
    });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, manifest], stderr: 'pipe' }),
    );
  });
  after(async () => {
    await client?.close();
    files.cleanup();
  });

  test('the tools are the declared and exposed ones, renamed and filtered', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'add_two',
      'ev_get-sum',
      'ev_trigger-long-running-operation',
      'mem_create_entities',
      'mem_read_graph',
      'probe_ask_roots',
      'probe_big',
      'probe_exit',
      'probe_pid',
      'probe_wait',
      'read_note',
      'shout',
    ]);
    const shout = tools.find((t) => t.name === 'shout')!;
    assert.equal(shout.description, 'Says the message back.');
    const addTwo = tools.find((t) => t.name === 'add_two')!;
    assert.deepEqual(Object.keys((addTwo.inputSchema as Json).properties), ['a']);
  });

  test('a renamed tool answers under its new name, and its old name is unknown', async () => {
    const result = await client.callTool({ name: 'shout', arguments: { message: 'hi there' } });
    assert.match(text(result), /hi there/);
    await assert.rejects(client.callTool({ name: 'ev_echo', arguments: { message: 'x' } }), /ev_echo/);
  });

  test('a filtered-out tool is refused on tools/call, not only hidden', async () => {
    await assert.rejects(client.callTool({ name: 'ev_get-env', arguments: {} }), /ev_get-env/);
    await assert.rejects(client.callTool({ name: 'get-env', arguments: {} }), /get-env/);
  });

  test('a pinned argument is always sent and cannot be set by the caller', async () => {
    const result = await client.callTool({ name: 'add_two', arguments: { a: 40 } });
    assert.match(text(result), /42/);
    const refused = await client
      .callTool({ name: 'add_two', arguments: { a: 40, b: 100 } })
      .catch((err: Error) => ({ isError: true, content: [{ type: 'text', text: err.message }] }));
    assert.equal(refused.isError, true);
    assert.doesNotMatch(text(refused as Json), /140/);
  });

  test('progress of a long upstream operation reaches the client', async () => {
    const seen: Json[] = [];
    const result = await client.callTool(
      { name: 'ev_trigger-long-running-operation', arguments: { duration: 1, steps: 3 } },
      undefined,
      { onprogress: (p) => seen.push(p) },
    );
    assert.notEqual(result.isError, true, text(result));
    assert.ok(seen.length >= 2, `progress seen: ${JSON.stringify(seen)}`);
    assert.equal(seen.at(-1)!.total, 3);
  });

  test('a cancellation reaches the upstream', async () => {
    const controller = new AbortController();
    const call = client.callTool({ name: 'probe_wait', arguments: { tag: 'first' } }, undefined, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort('enough'), 300);
    await assert.rejects(call);
    const log = join(files.dir, 'probe.log');
    for (let i = 0; i < 100 && !readFileSync(log, 'utf8').includes('cancelled first'); i++)
      await new Promise((r) => setTimeout(r, 50));
    assert.match(readFileSync(log, 'utf8'), /cancelled first/);
  });

  test('a resource reads through, and a prompt gets through', async () => {
    const read = await client.readResource({ uri: 'demo://resource/static/document/architecture.md' });
    assert.match(String((read.contents[0] as Json).text), /\S/);
    const prompt = await client.getPrompt({ name: 'simple' });
    assert.ok(prompt.messages.length > 0);
  });

  test('a resource or prompt the manifest does not bring in is unknown on read and get', async () => {
    await assert.rejects(
      client.readResource({ uri: 'demo://resource/static/document/features.md' }),
      /not found/i,
    );
    await assert.rejects(
      client.getPrompt({ name: 'args-prompt', arguments: { city: 'Lyon' } }),
      /args-prompt/,
    );
    await assert.rejects(client.getPrompt({ name: 'simple-prompt' }), /simple-prompt/);
  });

  test('a file is read through the renamed filesystem tool', async () => {
    const result = await client.callTool({
      name: 'read_note',
      arguments: { path: join(files.dir, 'notes/hello.txt') },
    });
    assert.match(text(result), /hello from the notes folder/);
  });

  test('the memory server keeps its state across calls', async () => {
    await client.callTool({
      name: 'mem_create_entities',
      arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['writes programs'] }] },
    });
    const graph = await client.callTool({ name: 'mem_read_graph', arguments: {} });
    assert.match(text(graph), /Ada/);
  });

  test('an upstream SIGKILLed mid-call fails that call; the next call succeeds after its restart', async () => {
    const first = await client.callTool({ name: 'probe_pid', arguments: {} });
    const pid = (first.structuredContent as Json).pid as number;
    assert.ok(pid > 0, JSON.stringify(first));
    const call = client.callTool({ name: 'probe_wait', arguments: { tag: 'killed' } });
    await new Promise((r) => setTimeout(r, 200));
    process.kill(pid, 'SIGKILL');
    const failed = await call;
    assert.equal(failed.isError, true, JSON.stringify(failed));
    assert.match(text(failed), /exited|SIGKILL/);
    let next: Json | undefined;
    for (let i = 0; i < 50; i++) {
      next = await client.callTool({ name: 'probe_pid', arguments: {} });
      if (next.isError !== true) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.notEqual(next!.isError, true, text(next!));
    assert.notEqual((next!.structuredContent as Json).pid, pid);
    // The restart changed no entry: clients are told nothing (a list_changed would come before this answer).
    await client.listTools();
    assert.equal(listChanged, 0);
  });

  test('a dead upstream fails its own callers with a clear error, and the other sources keep serving', async () => {
    const refuse = join(files.dir, 'refuse');
    writeFileSync(refuse, '');
    const exited = await client.callTool({ name: 'probe_exit', arguments: {} });
    assert.equal(exited.isError, true);
    const down = await client.callTool({ name: 'probe_pid', arguments: {} });
    assert.equal(down.isError, true);
    assert.match(text(down), /probe/);
    assert.match(text(down), /could not be started|exited/);
    const other = await client.callTool({ name: 'shout', arguments: { message: 'still here' } });
    assert.match(text(other), /still here/);
    rmSync(refuse);
    let back: Json | undefined;
    for (let i = 0; i < 100; i++) {
      back = await client.callTool({ name: 'probe_pid', arguments: {} });
      if (back.isError !== true) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.notEqual(back!.isError, true, text(back!));
  });
});

test('UPSTREAM_ENTRY_UNKNOWN: a tool the upstream does not list is an error at its line', async () => {
  const bad = tempFiles({
    'mcp.yaml': `
sources:
  everything:
    kind: mcp
    command: [${node}, ${JSON.stringify(EVERYTHING)}, stdio]
tools:
  say:
    kind: mcp
    source: everything
    tool: ecko
`,
  });
  try {
    const run = runCli(['validate', join(bad.dir, 'mcp.yaml')]);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr + run.stdout, /UPSTREAM_ENTRY_UNKNOWN/);
    assert.match(run.stderr + run.stdout, /did you mean "echo"/);
  } finally {
    bad.cleanup();
  }
});
