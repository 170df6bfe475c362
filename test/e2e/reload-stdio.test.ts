/**
 * Hot reload over real stdio, with real files in a temp folder and the official clients: each edit
 * produces exactly the notifications a client can see a reason for, and a broken edit takes nothing
 * away.
 */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { until } from '../helpers/databases.js';
import { CLI, tempFiles } from '../helpers/demo.js';
import { ServerLog } from '../helpers/reload-harness.js';

const manifest = (tools: string, prompt = 'Greets someone.') => `
sources:
  mem: { kind: sqlite, path: ":memory:" }
tools:
${tools}
resources:
  a: { kind: file, path: a.md, uri: "notes://a" }
  b: { kind: file, path: b.md, uri: "notes://b" }
prompts:
  greet:
    description: ${prompt}
    arguments: { who: { required: true } }
    messages: [{ text: "Say hi to {{who}}." }]
`;
const ONE = '  one: { kind: sql, source: mem, description: The first, sql: SELECT 1 AS n }';
const TWO = '  two: { kind: sql, source: mem, description: The second, sql: SELECT 2 AS n }';

describe('hot reload over stdio, SDK v1 client (2025-11-25)', () => {
  const files = tempFiles({ 'mcp.yaml': manifest(ONE), 'a.md': 'A', 'b.md': 'B' });
  const file = join(files.dir, 'mcp.yaml');
  const client = new Client({ name: 'reload', version: '1' });
  const seen = { tools: 0, prompts: 0, resources: 0, updated: [] as string[] };
  const messages: { level: string; data: unknown }[] = [];
  let log: ServerLog;

  /** A request as a barrier: every notification sent before it has been handled when it returns. */
  const toolNames = async () => (await client.listTools()).tools.map((t) => t.name);

  before(async () => {
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void seen.tools++);
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void seen.prompts++);
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void seen.resources++);
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params));
    client.setNotificationHandler(
      ResourceUpdatedNotificationSchema,
      (n) => void seen.updated.push(n.params.uri),
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, file, '--log-level', 'debug'],
      stderr: 'pipe',
    });
    log = new ServerLog(transport.stderr as never);
    await client.connect(transport);
    await log.waitFor(() => log.text.includes('watching'), 'the watcher to start');
    assert.deepEqual(client.getServerCapabilities()?.tools, { listChanged: true });
  });
  after(async () => {
    await client.close();
    files.cleanup();
  });

  test('adding a tool sends exactly one tools/list_changed, and the next list shows it', async () => {
    await log.edit(file, manifest(`${ONE}\n${TWO}`));
    assert.deepEqual(await toolNames(), ['one', 'two']);
    assert.deepEqual(seen, { tools: 1, prompts: 0, resources: 0, updated: [] });
  });

  test('changing a tool notifies once more; removing one, once more', async () => {
    await log.edit(file, manifest(`${ONE.replace('The first', 'The very first')}\n${TWO}`));
    assert.equal((await client.listTools()).tools[0]?.description, 'The very first');
    await log.edit(file, manifest(ONE));
    assert.deepEqual(await toolNames(), ['one']);
    assert.equal(seen.tools, 3);
  });

  test('editing a prompt notifies prompts only', async () => {
    await log.edit(file, manifest(ONE, 'Greets someone warmly.'));
    assert.equal((await client.listPrompts()).prompts[0]?.description, 'Greets someone warmly.');
    assert.deepEqual(seen, { tools: 3, prompts: 1, resources: 0, updated: [] });
  });

  test('a comment or a reformat notifies nothing', async () => {
    await log.edit(file, `# a comment\n${manifest(ONE, 'Greets someone warmly.').replaceAll(': ', ':   ')}`);
    assert.deepEqual(await toolNames(), ['one']);
    assert.deepEqual(seen, { tools: 3, prompts: 1, resources: 0, updated: [] });
  });

  test('broken edits change no list and every tool keeps answering; clients hear of each failure; the fix reloads', async () => {
    const broken = [
      manifest(ONE).replace('tools:', 'tools: ['), // YAML syntax
      manifest(ONE.replace('kind: sql', 'kind: sqll')), // unknown kind
      manifest(ONE.replace('source: mem', 'source: nope')), // fails to compile
    ];
    for (const text of broken) {
      await log.edit(file, text);
      const result = await client.callTool({ name: 'one', arguments: {} });
      assert.deepEqual(result.structuredContent, { rows: [{ n: 1 }], rowCount: 1, truncated: false });
    }
    assert.match(log.text, /reload of mcp\.yaml failed with 1 error; still serving the previous version/);
    assert.match(log.text, /error\[MANIFEST_UNKNOWN_KIND\] .*mcp\.yaml:5:16 tools\.one\.kind/);
    assert.deepEqual(seen, { tools: 3, prompts: 1, resources: 0, updated: [] });
    // On stdio the client is the author's: the data is the summary, then the errors with their frames.
    assert.deepEqual(
      messages.map((m) => ({ ...m, data: String(m.data).split('\n\n')[0] })),
      broken.map(() => ({
        level: 'error',
        logger: 'mcp-run',
        data: 'reload of mcp.yaml failed with 1 error; still serving the previous version',
      })),
      'each failed reload reaches the client at level error (the default level is warning)',
    );
    assert.match(
      String(messages[1]!.data),
      /\n\nerror\[MANIFEST_UNKNOWN_KIND\] .*mcp\.yaml:5:16 tools\.one\.kind\n[\s\S]*> 5 \| {3}one: \{ kind: sqll/,
    );
    await log.edit(file, manifest(`${ONE}\n${TWO}`));
    assert.deepEqual(await toolNames(), ['one', 'two']);
    assert.equal(seen.tools, 4);
    assert.match(log.text, /reloaded mcp\.yaml: .*\(the errors are fixed\)/);
  });

  test('a broken edit reports its structural and its compile errors together, in one pass, and keeps serving', async () => {
    const before = log.text.length;
    const tools = seen.tools;
    const told = messages.length;
    // One entry whose structure is wrong (an unknown field), one that only compiling finds wrong
    // (an unknown source): both in the one report, as validate would print them.
    const broken = manifest(
      `${ONE.replace('sql: SELECT 1 AS n', 'sql: SELECT 1 AS n, maxRowz: 5')}\n${TWO.replace('source: mem', 'source: nope')}`,
    );
    await log.edit(file, broken);
    const report = log.text.slice(before);
    assert.match(report, /reload of mcp\.yaml failed with 2 errors; still serving the previous version/);
    assert.match(report, /error\[MANIFEST_UNKNOWN_FIELD\] .*tools\.one\.maxRowz/);
    assert.match(report, /error\[[A-Z_]+\] .*tools\.two\.source[\s\S]*"nope"/);
    // The log line on stderr can come before the notification on stdout: wait for it (bounded).
    await until(async () => messages.length > told);
    const last = messages.at(-1)!;
    assert.deepEqual(
      { ...last, data: String(last.data).split('\n\n')[0] },
      {
        level: 'error',
        logger: 'mcp-run',
        data: 'reload of mcp.yaml failed with 2 errors; still serving the previous version',
      },
    );
    assert.match(String(last.data), /error\[MANIFEST_UNKNOWN_FIELD\] .*tools\.one\.maxRowz/);
    assert.match(String(last.data), /error\[[A-Z_]+\] .*tools\.two\.source[\s\S]*"nope"/);
    // The last good catalog still serves both tools.
    assert.deepEqual(await toolNames(), ['one', 'two']);
    const result = await client.callTool({ name: 'two', arguments: {} });
    assert.deepEqual(result.structuredContent, { rows: [{ n: 2 }], rowCount: 1, truncated: false });
    await log.edit(file, manifest(`${ONE}\n${TWO}`));
    assert.equal(seen.tools, tools, 'back to the served version: no list changed');
  });

  test('editing a resource file sends resources/updated for the URIs subscribed to, only', async () => {
    await client.subscribeResource({ uri: 'notes://a' });
    await log.edit(join(files.dir, 'b.md'), 'B, edited');
    await toolNames();
    assert.deepEqual(seen.updated, []);
    await log.edit(join(files.dir, 'a.md'), 'A, edited');
    await toolNames();
    assert.deepEqual(seen.updated, ['notes://a']);
    const read = await client.readResource({ uri: 'notes://a' });
    assert.equal(read.contents[0] && 'text' in read.contents[0] && read.contents[0].text, 'A, edited');
    assert.equal(seen.resources, 0, 'a content edit is not a change of the list');
    await client.unsubscribeResource({ uri: 'notes://a' });
    await log.edit(join(files.dir, 'a.md'), 'A, edited twice');
    await toolNames();
    assert.deepEqual(seen.updated, ['notes://a']);
  });

  test('ten edits in quick succession end with the last one served', async () => {
    for (let i = 1; i <= 10; i++) {
      writeFileSync(file, manifest(`${ONE.replace('The first', `Version ${i}`)}\n${TWO}`));
    }
    let description: string | undefined;
    const deadline = Date.now() + 10_000;
    while (description !== 'Version 10' && Date.now() < deadline) {
      description = (await client.listTools()).tools[0]?.description;
      if (description !== 'Version 10') await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(description, 'Version 10');
  });
});

describe('hot reload over stdio, SDK v2 client pinned to 2026-07-28 (subscriptions/listen)', () => {
  const files = tempFiles({ 'mcp.yaml': manifest(ONE), 'a.md': 'A', 'b.md': 'B' });
  const file = join(files.dir, 'mcp.yaml');
  const client = new ModernClient(
    { name: 'reload-modern', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const seen = { tools: 0, prompts: 0 };
  let log: ServerLog;

  before(async () => {
    client.setNotificationHandler('notifications/tools/list_changed', () => void seen.tools++);
    client.setNotificationHandler('notifications/prompts/list_changed', () => void seen.prompts++);
    const transport = new ModernStdio({
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
    files.cleanup();
  });

  test('a listen stream asking for tools gets tools/list_changed, and nothing it did not ask for', async () => {
    const subscription = await client.listen({ toolsListChanged: true });
    assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true });
    await log.edit(file, manifest(`${ONE}\n${TWO}`));
    await log.edit(file, manifest(`${ONE}\n${TWO}`, 'Greets someone warmly.'));
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['one', 'two'],
    );
    assert.deepEqual(seen, { tools: 1, prompts: 0 });
    await subscription.close();
  });
});

describe('hot reload over stdio: a call in flight during a reload', () => {
  // The tool announces it started, then waits for a file before printing its version: the test
  // swaps the manifest while the call is provably in flight.
  const slow = (version: string) => `
tools:
  slow:
    kind: shell
    description: Prints the version it was declared with, once the go file exists.
    cwd: .
    command:
      - node
      - -e
      - |
        const fs = require('node:fs');
        fs.writeFileSync('started-${version}', '');
        const timer = setInterval(() => {
          if (fs.existsSync('go')) { clearInterval(timer); console.log('${version}'); }
        }, 20);
    timeoutMs: 20000
`;
  const files = tempFiles({ 'mcp.yaml': slow('v1') });
  const file = join(files.dir, 'mcp.yaml');
  const client = new Client({ name: 'reload-in-flight', version: '1' });
  let log: ServerLog;

  before(async () => {
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
    files.cleanup();
  });

  test('finishes with its original behaviour; the next call runs the new one', async () => {
    const inFlight = client.callTool({ name: 'slow', arguments: {} });
    await log.waitFor(() => existsSync(join(files.dir, 'started-v1')), 'the first call to start');
    await log.edit(file, slow('v2'));
    assert.match(log.text, /reloaded mcp\.yaml: no visible change/); // the command changed, not the descriptor
    writeFileSync(join(files.dir, 'go'), '');
    const first = (await inFlight) as { content: { text: string }[] };
    assert.equal(first.content[0]?.text.trim(), 'v1');
    const second = (await client.callTool({ name: 'slow', arguments: {} })) as {
      content: { text: string }[];
    };
    assert.equal(second.content[0]?.text.trim(), 'v2');
  });
});
