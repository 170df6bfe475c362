/**
 * The official SDK v2 client pinned to 2026-07-28 (stateless era: server/discover, a _meta envelope
 * on every request) drives `mcp-run` over real stdio: the built CLI as a child process.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, demoCopy } from '../helpers/demo.js';
import * as demo from './demo-expectations.js';

describe('stdio, SDK v2 client pinned to 2026-07-28', () => {
  const copy = demoCopy();
  const client = new Client(
    { name: 'e2e-modern', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const asDemo = client as unknown as demo.DemoClient;

  before(async () => {
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, copy.manifest], stderr: 'pipe' }),
    );
  });
  after(async () => {
    await client.close();
    copy.cleanup();
  });

  test('negotiates 2026-07-28 through server/discover', async () => {
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    const discovered = await client.discover();
    assert.ok(discovered.supportedVersions.includes('2026-07-28'));
    assert.ok(discovered.capabilities.tools);
  });
  test('lists every tool, resource, template and prompt', () => demo.listsEverything(asDemo));
  test('calls every tool with the right rows', () => demo.callsEveryTool(asDemo));
  test('reads every resource and the order template', () => demo.readsEveryResource(asDemo));
  test('gets the prompt and completes its arguments', () => demo.getsEveryPrompt(asDemo));
  test('answers mistakes with the 2026 error codes', () => demo.rejectsMistakes(asDemo, -32602));
});
