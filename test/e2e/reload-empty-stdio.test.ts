/**
 * A save cut short leaves the manifest empty for a moment. Over real stdio, with a real file: the
 * truncation is refused as MANIFEST_EMPTY, every tool keeps being listed and answering, and the
 * client is told nothing (no list_changed), until a real edit arrives.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, tempFiles } from '../helpers/demo.js';
import { ServerLog } from '../helpers/reload-harness.js';

const MANIFEST = `
tools:
  hello: { kind: content, description: Says hello, content: [{ text: hello }] }
  bye: { kind: content, description: Says bye, content: [{ text: bye }] }
`;

describe('an emptied manifest while serving on stdio', () => {
  const files = tempFiles({ 'mcp.yaml': MANIFEST });
  const file = join(files.dir, 'mcp.yaml');
  const client = new Client({ name: 'empty', version: '1' });
  let listChanged = 0;
  let log: ServerLog;

  before(async () => {
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);
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

  const names = async () => (await client.listTools()).tools.map((t) => t.name).sort();

  test('truncating the file to empty keeps every tool and notifies nothing', async () => {
    assert.deepEqual(await names(), ['bye', 'hello']);
    const before = log.reloads();
    truncateSync(file, 0);
    await log.waitFor(() => log.reloads() > before, 'the reload after truncating the manifest');
    assert.deepEqual(await names(), ['bye', 'hello']);
    const result = await client.callTool({ name: 'hello', arguments: {} });
    assert.deepEqual(result.content, [{ type: 'text', text: 'hello' }]);
    assert.match(log.text, /error\[MANIFEST_EMPTY\]/);
    assert.match(log.text, /still serving the previous version/);
    assert.equal(listChanged, 0);
  });

  test('a file of only comments is refused the same way; the real save then reloads', async () => {
    await log.edit(file, '# saving…\n');
    assert.deepEqual(await names(), ['bye', 'hello']);
    assert.equal(listChanged, 0);
    await log.edit(file, MANIFEST.replace(/ {2}bye:.*\n/, ''));
    assert.deepEqual(await names(), ['hello']);
    assert.equal(listChanged, 1);
  });
});

test('`mcp-run validate` rejects an empty manifest', () => {
  const files = tempFiles({ 'mcp.yaml': '' });
  try {
    const file = join(files.dir, 'mcp.yaml');
    for (const text of ['', '# only a comment\n']) {
      writeFileSync(file, text);
      const run = spawnSync(process.execPath, [CLI, 'validate', file], { encoding: 'utf8' });
      assert.equal(run.status, 1, run.stdout + run.stderr);
      assert.match(run.stdout + run.stderr, /error\[MANIFEST_EMPTY\]/);
    }
  } finally {
    files.cleanup();
  }
});
