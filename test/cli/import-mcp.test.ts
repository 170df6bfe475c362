/**
 * `mcp-run import mcp`, with the built CLI and the probe (v1 server library) as the upstream: the
 * manifest it writes brings each tool in one at a time with the upstream's description pinned in
 * the manifest, written as data (a `${env:…}` in it stays text, even with the variable set), and
 * serves it to the official v1 client. Bad usage exits 2; an upstream that cannot start exits 1.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse } from 'yaml';
import { CLI, tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';

const REPO = join(import.meta.dirname, '../..');
const PROBE = join(REPO, 'test/fixtures/mcp-upstream/probe.mjs');
// biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's reference syntax, as data
const TRICKY = 'Greets ${env:SECRET} "by name".\nSecond line.';

const files = tempFiles({ 'tools.json': JSON.stringify({ greet: TRICKY }) });
const tools = join(files.dir, 'tools.json');
const out = join(files.dir, 'mcp.yaml');

describe('mcp-run import mcp', () => {
  after(() => files.cleanup());

  test('writes every tool one at a time, its description pinned as data, and the manifest serves it', async () => {
    const run = runCli([
      'import',
      'mcp',
      '--name',
      'probe',
      '-o',
      out,
      '--',
      process.execPath,
      PROBE,
      '--tools',
      tools,
    ]);
    assert.equal(run.code, 0, run.stderr);
    const written = parse(readFileSync(out, 'utf8'));
    assert.deepEqual(written.sources.probe, {
      kind: 'mcp',
      command: [process.execPath, PROBE, '--tools', tools],
    });
    assert.deepEqual(written.tools.greet, {
      kind: 'mcp',
      source: 'probe',
      tool: 'greet',
      description: TRICKY.split('${').join('$${'),
    });
    assert.equal(written.tools.pid.tool, 'pid');

    const client = new Client({ name: 'import-mcp', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, out],
        env: { ...(process.env as Record<string, string>), SECRET: 'leaked' },
      }),
    );
    try {
      const listed = (await client.listTools()).tools;
      assert.equal(listed.find((t) => t.name === 'greet')?.description, TRICKY);
      const result = await client.callTool({ name: 'greet', arguments: {} });
      assert.deepEqual(result.content, [{ type: 'text', text: 'greet' }]);
    } finally {
      await client.close();
    }
  });

  test('an existing output is kept without --force', () => {
    const run = runCli(['import', 'mcp', '-o', out, '--', process.execPath, PROBE]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /exists; pass --force/);
  });

  test('neither a command nor --url, or both, is bad usage', () => {
    assert.equal(runCli(['import', 'mcp']).code, 2);
    const both = runCli(['import', 'mcp', '--url', 'http://127.0.0.1:9/mcp', '--', process.execPath, PROBE]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /as --url URL/);
  });

  test('an upstream that cannot start exits 1 and says why', () => {
    const script = `process.stderr.write('no way'); process.exit(4)`;
    const run = runCli(['import', 'mcp', '--', process.execPath, '-e', script]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /SOURCE_OPEN_FAILED/);
  });
});
