/**
 * The interactive steps in the 2026-07-28 era against the built CLI: the official SDK v2 client
 * pinned to 2026-07-28 fulfils `input_required` itself through its request handlers, over real
 * Streamable HTTP and real stdio; raw HTTP requests show what the client never sends: a tampered,
 * an expired and a replica's requestState.
 */
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { sealPayload, stateKey } from '../../src/protocol/request-state.js';
import { CLI, tempFiles } from '../helpers/demo.js';
import { captureLogger } from '../protocol/harness.js';
import { INTERACTIVE_FILES, INTERACTIVE_MANIFEST } from '../steps/manifest.js';
import { modernRequest, post, type ServedCli, spawnHttpCli } from '../transports/http-harness.js';

type Json = Record<string, any>;

const SECRET = 'shared by every replica of this test, and long enough';
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

interface Answers {
  elicit: (params: Json) => Json;
  sample: (params: Json) => Json;
  roots: () => Json[];
}

function pinnedClient(answers: Answers, seen: Json[], capabilities: Json): Client {
  const client = new Client(
    { name: 'interactive-v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities },
  );
  if (capabilities.elicitation) {
    client.setRequestHandler('elicitation/create', async (request: Json) => {
      seen.push({ method: 'elicitation/create', params: request.params });
      return answers.elicit(request.params) as never;
    });
  }
  if (capabilities.sampling) {
    client.setRequestHandler('sampling/createMessage', async (request: Json) => {
      seen.push({ method: 'sampling/createMessage', params: request.params });
      return answers.sample(request.params) as never;
    });
  }
  if (capabilities.roots) {
    client.setRequestHandler('roots/list', async () => {
      seen.push({ method: 'roots/list' });
      return { roots: answers.roots() } as never;
    });
  }
  return client;
}

const ALL = { elicitation: {}, sampling: {}, roots: {} };

const transports: [
  string,
  (manifest: string) => Promise<{ transport: () => any; stop: () => Promise<void> }>,
][] = [
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
  [
    'stdio',
    async (manifest) => ({
      transport: () =>
        new StdioClientTransport({ command: process.execPath, args: [CLI, manifest], stderr: 'pipe' }),
      stop: async () => {},
    }),
  ],
];

for (const [name, start] of transports) {
  describe(`interactive steps, SDK v2 client pinned to 2026-07-28 over ${name}`, () => {
    const temp = tempFiles({ 'mcp.yaml': INTERACTIVE_MANIFEST, ...INTERACTIVE_FILES });
    const seen: Json[] = [];
    const answers: Answers = {
      elicit: () => ({ action: 'accept', content: {} }),
      sample: () => ({ role: 'assistant', content: { type: 'text', text: '?' }, model: 'test' }),
      roots: () => [],
    };
    const client = pinnedClient(answers, seen, ALL);
    const bare = pinnedClient(answers, seen, {});
    let served: Awaited<ReturnType<typeof start>>;
    const call = async (c: Client, tool: string, args: Json = {}, meta?: Json) =>
      (await c.callTool({ name: tool, arguments: args, ...(meta && { _meta: meta }) })) as Json;

    before(async () => {
      served = await start(join(temp.dir, 'mcp.yaml'));
      await client.connect(served.transport());
      await bare.connect(served.transport());
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    });
    after(async () => {
      await client.close();
      await bare.close();
      await served.stop();
      temp.cleanup();
    });

    test('a confirmed confirm completes through one input_required round', async () => {
      seen.length = 0;
      answers.elicit = () => ({ action: 'accept', content: {} });
      const result = await call(client, 'delete_order', { id: 7 });
      assert.deepEqual(result.content, [{ type: 'text', text: 'Deleted order 7.' }]);
      assert.deepEqual(
        seen.map((s) => s.params.message),
        ['Delete order 7?'],
      );
    });

    test('a declined confirm is a non-error "Cancelled by the user" result', async () => {
      answers.elicit = () => ({ action: 'decline' });
      const result = await call(client, 'delete_order', { id: 8 });
      assert.equal(result.isError, undefined);
      assert.match(
        result.content[0].text,
        /^Cancelled by the user: they declined the confirmation "Delete order 8\?"/,
      );
    });

    test('ask with defaults and choices, then a confirm that uses the answers, in two rounds', async () => {
      seen.length = 0;
      answers.elicit = (params) =>
        params.message.startsWith('New ticket')
          ? { action: 'accept', content: { title: 'Typo', priority: 'p1', labels: ['docs'] } }
          : { action: 'accept', content: {} };
      const result = await call(client, 'file_ticket', { project: 'site' });
      assert.equal(result.content[0].text, 'Filed Typo as p1 in site with labels docs.');
      assert.deepEqual(
        seen.map((s) => s.params.message),
        ['New ticket in site', 'File Typo (p1) in site?'],
      );
      assert.equal(seen[0]!.params.requestedSchema.properties.title.default, 'Untitled');
    });

    test("the client's sampling handler answers a sample before and after the action", async () => {
      answers.sample = (params) => ({
        role: 'assistant',
        content: { type: 'text', text: `(${params.messages[0].content.text})` },
        model: 'test-model',
      });
      assert.equal(
        (await call(client, 'translate', { text: 'cat' })).content[0].text,
        'French: (Translate to French: cat)',
      );
      assert.equal(
        (await call(client, 'summarize', { text: 'Words.' })).content[0].text,
        '(Summarize in one line: Words.)',
      );
    });

    test("roots feed a shell tool's working folder; logs go to a call that asks for a level", async () => {
      const work = realpathSync(join(temp.dir, 'work'));
      answers.roots = () => [{ uri: pathToFileURL(work).href, name: 'work' }];
      const logs: Json[] = [];
      client.setNotificationHandler('notifications/message', (n: Json) => {
        logs.push(n.params);
      });
      const result = await call(client, 'where', {}, { [LOG_LEVEL]: 'info' });
      assert.equal(result.content[0].text.trim(), work);
      assert.deepEqual(logs, [{ level: 'info', logger: 'where', data: `working in ${work}` }]);
      logs.length = 0;
      assert.equal((await call(client, 'where')).content[0].text.trim(), work);
      assert.deepEqual(logs, [], 'no level, no logs');
    });

    test('a prompt with a form completes through input_required', async () => {
      answers.elicit = () => ({ action: 'accept', content: { topic: 'snow' } });
      const prompt = await client.getPrompt({ name: 'write_story', arguments: { style: 'short' } });
      assert.deepEqual(prompt.messages[0]!.content, {
        type: 'text',
        text: 'Write a short story about snow.',
      });
    });

    test('a client lacking a capability is refused with -32021 naming it', async () => {
      for (const [tool, args, capability] of [
        ['delete_order', { id: 1 }, 'elicitation'],
        ['translate', { text: 'x' }, 'sampling'],
        ['where', {}, 'roots'],
      ] as const) {
        const error = (await call(bare, tool, args).catch((err: unknown) => err)) as Json;
        assert.equal(error.code, -32021, `${tool}: ${String(error)}`);
        assert.deepEqual(error.data, { requiredCapabilities: { [capability]: {} } });
      }
      assert.equal((await call(bare, 'trusting')).content[0].text, 'went ahead');
    });
  });
}

describe('requestState over raw HTTP: tampered, expired, and carried to a replica', () => {
  const temp = tempFiles({ 'mcp.yaml': INTERACTIVE_MANIFEST, ...INTERACTIVE_FILES });
  let one: ServedCli;
  let two: ServedCli;
  const env = { ...process.env, MCP_RUN_STATE_KEY: SECRET };
  const capabilities = { elicitation: {} };
  const callOrder = (url: string, id: number, extra: Json = {}) => {
    const { message, headers } = modernRequest(
      id,
      'tools/call',
      { name: 'delete_order', arguments: { id: 3 }, ...extra },
      {
        'io.modelcontextprotocol/clientCapabilities': capabilities,
      },
    );
    return post(url, message, headers);
  };

  before(async () => {
    [one, two] = await Promise.all([
      spawnHttpCli([join(temp.dir, 'mcp.yaml')], { env }),
      spawnHttpCli([join(temp.dir, 'mcp.yaml')], { env }),
    ]);
  });
  after(async () => {
    assert.equal(await one.stop(), 0);
    assert.equal(await two.stop(), 0);
    temp.cleanup();
  });

  test('a tampered requestState is -32602 (HTTP 200, in band), naming the integrity check', async () => {
    const first = (await callOrder(one.url, 1)).json().result;
    assert.equal(first.resultType, 'input_required');
    const [body, mac] = first.requestState.split('.');
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    payload.s.done = ['confirm']; // "the user already confirmed"
    const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
    const res = await callOrder(one.url, 2, { requestState: forged, inputResponses: {} });
    assert.equal(res.status, 200);
    assert.equal(res.json().error.code, -32602);
    assert.match(res.json().error.message, /requestState refused: it failed its integrity check/);
  });

  test('an expired requestState is -32602, even with a valid signature', async () => {
    const first = (await callOrder(one.url, 3)).json().result;
    const payload = JSON.parse(Buffer.from(first.requestState.split('.')[0], 'base64url').toString());
    const expired = sealPayload(stateKey(SECRET, captureLogger()), { ...payload, x: Date.now() - 1000 });
    const res = await callOrder(one.url, 4, {
      requestState: expired,
      inputResponses: { confirm: { action: 'accept' } },
    });
    assert.equal(res.json().error.code, -32602);
    assert.match(res.json().error.message, /it expired \(a requestState is good for 10 minutes\)/);
  });

  test('a replica with the same MCP_RUN_STATE_KEY finishes a call another one started', async () => {
    const first = (await callOrder(one.url, 5)).json().result;
    const res = await callOrder(two.url, 6, {
      requestState: first.requestState,
      inputResponses: { confirm: { action: 'accept' } },
    });
    assert.deepEqual(res.json().result.content, [{ type: 'text', text: 'Deleted order 3.' }]);
  });

  test('a request lacking a needed capability is -32021 with HTTP 400', async () => {
    const { message, headers } = modernRequest(7, 'tools/call', {
      name: 'translate',
      arguments: { text: 'x' },
    });
    const res = await post(one.url, message, headers);
    assert.equal(res.status, 400);
    assert.equal(res.json().id, 7);
    assert.equal(res.json().error.code, -32021);
    assert.deepEqual(res.json().error.data, { requiredCapabilities: { sampling: {} } });
  });
});
