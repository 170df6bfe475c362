/**
 * An upstream's own requests during a call, relayed through mcp-run: the built CLI serves the
 * reference server everything and the probe over stdio. The official v1 client, which declares
 * elicitation, sampling and roots, answers everything's elicitation and sampling requests, and the
 * upstream's tool result carries its answers. A v1 client that declares none of them is never
 * asked: the upstream gets -32601; so is an SDK v2 client pinned to 2026-07-28 for what it did not
 * declare (its rounds for what it did: mcp-upstream-relay-2026.test.ts). Roots are never a caller's:
 * the probe's roots request is answered by mcp-run with the source's `roots:`, or -32601 without.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { CLI, tempFiles } from '../helpers/demo.js';

type Json = Record<string, any>;
const REPO = join(import.meta.dirname, '../..');
const EVERYTHING = join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const PROBE = join(REPO, 'test/fixtures/mcp-upstream/probe.mjs');
const node = JSON.stringify(process.execPath);

const files = tempFiles({
  'mcp.yaml': `
sources:
  everything:
    kind: mcp
    command: [${node}, ${JSON.stringify(EVERYTHING)}, stdio]
    expose:
      tools: { include: [trigger-elicitation-request, trigger-sampling-request], prefix: ev_ }
  probe:
    kind: mcp
    command: [${node}, ${JSON.stringify(PROBE)}]
    expose:
      tools: { include: [ask_roots], prefix: probe_ }
  rooted:
    kind: mcp
    command: [${node}, ${JSON.stringify(PROBE)}]
    roots: [project]
    expose:
      tools: { include: [ask_roots], prefix: rooted_ }
`,
});
const manifest = join(files.dir, 'mcp.yaml');
const text = (result: Json) => (result.content as Json[]).map((b) => b.text ?? '').join('\n');
const serve = () =>
  new StdioClientTransport({ command: process.execPath, args: [CLI, manifest], stderr: 'pipe' });

describe("an upstream's requests during a call, relayed to the calling client", () => {
  const asked: string[] = [];
  const capable = new Client(
    { name: 'relay-capable', version: '1.0.0' },
    { capabilities: { elicitation: {}, sampling: {}, roots: {} } },
  );
  const bare = new Client({ name: 'relay-bare', version: '1.0.0' });
  const modern = new ModernClient(
    { name: 'relay-2026', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: {} } },
  );
  before(async () => {
    capable.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(`elicit: ${request.params.message}`);
      return { action: 'accept', content: { name: 'Ada Lovelace', check: true } };
    });
    capable.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      const first = request.params.messages[0]?.content as Json;
      asked.push(`sample: ${first.text}`);
      return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'a sampled answer' } };
    });
    capable.setRequestHandler(ListRootsRequestSchema, async () => {
      asked.push('roots');
      return { roots: [{ uri: 'file:///srv/project', name: 'project' }] };
    });
    await Promise.all([
      capable.connect(serve()),
      bare.connect(serve()),
      modern.connect(new ModernStdio({ command: process.execPath, args: [CLI, manifest], stderr: 'pipe' })),
    ]);
  });
  after(async () => {
    await Promise.all([capable.close(), bare.close(), modern.close()]);
    files.cleanup();
  });

  test('elicitation: the client is asked, and its answer reaches the upstream', async () => {
    const result = (await capable.callTool({
      name: 'ev_trigger-elicitation-request',
      arguments: {},
    })) as Json;
    assert.ok(!result.isError, text(result));
    assert.match(text(result), /Ada Lovelace/);
    assert.ok(
      asked.some((a) => a.startsWith('elicit: Please provide inputs')),
      asked.join('\n'),
    );
  });

  test('sampling: the client samples, and its message reaches the upstream', async () => {
    const result = (await capable.callTool({
      name: 'ev_trigger-sampling-request',
      arguments: { prompt: 'say hi', maxTokens: 10 },
    })) as Json;
    assert.ok(!result.isError, text(result));
    assert.match(text(result), /a sampled answer/);
    assert.ok(asked.some((a) => a.includes('say hi')));
  });

  test("roots: the upstream gets the source's `roots:` whoever calls, never a caller's own", async () => {
    const before = asked.length;
    for (const client of [capable, bare, modern]) {
      const result = (await client.callTool({ name: 'rooted_ask_roots', arguments: {} })) as Json;
      assert.ok(!result.isError, text(result));
      assert.match(text(result), /roots: .*"uri":"file:\/\/\/[^"]*\/project","name":"project"/);
      assert.doesNotMatch(text(result), /srv/);
    }
    // A source without `roots:` declares none: the upstream is answered -32601, the caller not asked.
    const bareRoots = (await capable.callTool({ name: 'probe_ask_roots', arguments: {} })) as Json;
    assert.match(text(bareRoots), /refused: -32601 .*declared no roots/);
    assert.ok(!asked.slice(before).includes('roots'), asked.join(', '));
  });

  test('a client that declared none is never asked: the upstream gets -32601', async () => {
    const before = asked.length;
    const elicited = (await bare.callTool({ name: 'ev_trigger-elicitation-request', arguments: {} })) as Json;
    assert.equal(elicited.isError, true);
    assert.equal(asked.length, before);
  });

  test('a 2026-era client that did not declare sampling is never asked: the upstream gets -32601', async () => {
    const result = (await modern.callTool({
      name: 'ev_trigger-sampling-request',
      arguments: { prompt: 'say hi', maxTokens: 10 },
    })) as Json;
    assert.equal(result.isError, true, text(result));
    assert.match(text(result), /did not declare the capability sampling\/createMessage needs \(sampling\)/);
  });
});
