/**
 * The official SDK v1 client (2025 era, initialize handshake) drives `mcp-run` over real stdio: the
 * built CLI as a child process, serving the demo manifest.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, demoCopy } from '../helpers/demo.js';
import * as demo from './demo-expectations.js';

describe('stdio, SDK v1 client (2025-11-25)', () => {
  const copy = demoCopy();
  const client = new Client({ name: 'e2e-legacy', version: '1.0.0' });
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

  test('negotiates the 2025-11-25 era and names the server', () => {
    assert.deepEqual(client.getServerVersion(), { name: 'shop-assistant', version: '1.0.0' });
    assert.deepEqual(Object.keys(client.getServerCapabilities() ?? {}).sort(), [
      'completions',
      'logging',
      'prompts',
      'resources',
      'tools',
    ]);
    assert.match(client.getInstructions() ?? '', /demo shop/);
  });
  test('lists every tool, resource, template and prompt', () => demo.listsEverything(asDemo));
  test('calls every tool with the right rows', () => demo.callsEveryTool(asDemo));
  test('reads every resource and the order template', () => demo.readsEveryResource(asDemo));
  test('gets the prompt and completes its arguments', () => demo.getsEveryPrompt(asDemo));
  test('answers mistakes with the 2025 error codes', () => demo.rejectsMistakes(asDemo, -32002));
  test('answers ping', async () => assert.deepEqual(await client.ping(), {}));
});
