/**
 * The interactive steps with the official SDK v1 client (2025 era) against the built CLI, over real
 * stdio and over real Streamable HTTP: the client answers the server's elicitation/create,
 * sampling/createMessage and roots/list requests through its `setRequestHandler` handlers.
 */
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { CLI, tempFiles } from '../helpers/demo.js';
import { INTERACTIVE_FILES, INTERACTIVE_MANIFEST } from '../steps/manifest.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';

type Json = Record<string, any>;

/** What the client's handlers answer, set per test; every request they see is recorded. */
interface Answers {
  elicit: (params: Json) => Json;
  sample: (params: Json) => Json;
  roots: () => Json[];
}

function interactiveClient(answers: Answers, seen: Json[], logs: Json[]): Client {
  const client = new Client(
    { name: 'interactive-v1', version: '1.0.0' },
    { capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: true } } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    seen.push({ method: request.method, params: request.params });
    return answers.elicit(request.params) as never;
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    seen.push({ method: request.method, params: request.params });
    return answers.sample(request.params) as never;
  });
  client.setRequestHandler(ListRootsRequestSchema, async (request) => {
    seen.push({ method: request.method });
    return { roots: answers.roots() };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(n.params);
  });
  return client;
}

const transports: [
  string,
  (manifest: string) => Promise<{ transport: () => Transport; stop: () => Promise<void> }>,
][] = [
  [
    'stdio',
    async (manifest) => ({
      transport: () =>
        new StdioClientTransport({ command: process.execPath, args: [CLI, manifest], stderr: 'pipe' }),
      stop: async () => {},
    }),
  ],
  [
    'HTTP',
    async (manifest) => {
      const server: ServedCli = await spawnHttpCli([manifest]);
      return {
        transport: () => new StreamableHTTPClientTransport(new URL(server.url)),
        stop: async () => {
          assert.equal(await server.stop(), 0);
        },
      };
    },
  ],
];

for (const [name, start] of transports) {
  describe(`interactive steps, SDK v1 client over ${name}`, () => {
    const temp = tempFiles({ 'mcp.yaml': INTERACTIVE_MANIFEST, ...INTERACTIVE_FILES });
    const seen: Json[] = [];
    const logs: Json[] = [];
    const answers: Answers = {
      elicit: () => ({ action: 'accept', content: {} }),
      sample: () => ({ role: 'assistant', content: { type: 'text', text: '?' }, model: 'test' }),
      roots: () => [],
    };
    const client = interactiveClient(answers, seen, logs);
    const bare = new Client({ name: 'no-capabilities', version: '1.0.0' });
    let served: Awaited<ReturnType<typeof start>>;
    const call = async (c: Client, tool: string, args: Json = {}) =>
      (await c.callTool({ name: tool, arguments: args })) as Json;

    before(async () => {
      served = await start(join(temp.dir, 'mcp.yaml'));
      await client.connect(served.transport());
      await bare.connect(served.transport());
    });
    after(async () => {
      await client.close();
      await bare.close();
      await served.stop();
      temp.cleanup();
    });

    test('a confirmed confirm runs the tool', async () => {
      seen.length = 0;
      answers.elicit = () => ({ action: 'accept', content: {} });
      const result = await call(client, 'delete_order', { id: 7 });
      assert.deepEqual(result.content, [{ type: 'text', text: 'Deleted order 7.' }]);
      assert.deepEqual(seen, [
        {
          method: 'elicitation/create',
          params: { message: 'Delete order 7?', requestedSchema: { type: 'object', properties: {} } },
        },
      ]);
    });

    test('a declined confirm is a non-error "Cancelled by the user" result', async () => {
      answers.elicit = () => ({ action: 'decline' });
      const result = await call(client, 'delete_order', { id: 8 });
      assert.equal(result.isError, undefined);
      assert.equal(
        result.content[0].text,
        'Cancelled by the user: they declined the confirmation "Delete order 8?". Nothing was done.',
      );
    });

    test('ask sends defaults and choices; the answers and defaults reach the tool', async () => {
      seen.length = 0;
      answers.elicit = (params) =>
        params.message.startsWith('New ticket')
          ? { action: 'accept', content: { title: 'Broken link', labels: ['bug', 'ui'] } }
          : { action: 'accept' };
      const result = await call(client, 'file_ticket', { project: 'web' });
      assert.equal(result.content[0].text, 'Filed Broken link as p2 in web with labels bug,ui.');
      const form = seen[0]!.params.requestedSchema;
      assert.deepEqual(form.properties.title, { type: 'string', title: 'Title', default: 'Untitled' });
      assert.deepEqual(form.properties.priority.oneOf, [
        { const: 'p1', title: 'Urgent' },
        { const: 'p2', title: 'Normal' },
      ]);
      assert.deepEqual(form.properties.labels.items, { type: 'string', enum: ['bug', 'ui', 'docs'] });
      assert.equal(seen[1]!.params.message, 'File Broken link (p2) in web?');
    });

    test("sample: the client's model answers before the action (into) and after it", async () => {
      seen.length = 0;
      answers.sample = (params) => ({
        role: 'assistant',
        content: { type: 'text', text: `model saw: ${params.messages[0].content.text}` },
        model: 'test-model',
      });
      assert.equal(
        (await call(client, 'translate', { text: 'hello' })).content[0].text,
        'French: model saw: Translate to French: hello',
      );
      const summary = await call(client, 'summarize', { text: 'All the words.' });
      assert.deepEqual(summary.content, [
        { type: 'text', text: 'model saw: Summarize in one line: All the words.' },
      ]);
      assert.equal(seen[1]!.params.systemPrompt, 'You are terse.');
      assert.equal(seen[1]!.params.maxTokens, 40);
    });

    test("roots feed a shell tool's working folder; its logs arrive during the call", async () => {
      const work = realpathSync(join(temp.dir, 'work'));
      const nested = join(work, 'nested');
      mkdirSync(nested, { recursive: true });
      writeFileSync(join(nested, 'marker'), '');
      answers.roots = () => [{ uri: pathToFileURL(nested).href, name: 'nested' }];
      await client.setLoggingLevel('info');
      logs.length = 0;
      const result = await call(client, 'where');
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.equal(result.content[0].text.trim(), nested);
      assert.deepEqual(logs, [{ level: 'info', logger: 'where', data: `working in ${nested}` }]);
      answers.roots = () => [{ uri: pathToFileURL(join(temp.dir, '..')).href }];
      const outside = await call(client, 'where');
      assert.equal(outside.isError, true);
      assert.match(outside.content[0].text, /does not exist or is outside/);
    });

    test('a prompt asks its form', async () => {
      answers.elicit = () => ({ action: 'accept', content: { topic: 'the sea' } });
      const prompt = await client.getPrompt({ name: 'write_story', arguments: { style: 'calm' } });
      assert.deepEqual(prompt.messages[0]!.content, {
        type: 'text',
        text: 'Write a calm story about the sea.',
      });
    });

    test('a client without a capability gets a clear tool error, and is never asked', async () => {
      for (const [tool, args, needs] of [
        ['delete_order', { id: 1 }, /ask the user \(elicitation, form mode\)/],
        ['translate', { text: 'x' }, /ask the client's model \(sampling\)/],
        ['where', {}, /read the client's roots \(roots\)/],
      ] as const) {
        const result = await call(bare, tool, args);
        assert.equal(result.isError, true, tool);
        assert.match(result.content[0].text, needs);
        assert.match(result.content[0].text, /this client did not declare/);
      }
      assert.equal((await call(bare, 'trusting')).content[0].text, 'went ahead');
    });
  });
}
