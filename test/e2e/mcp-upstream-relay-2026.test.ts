/**
 * An upstream's questions during a call reach a 2026-07-28 client as `input_required` rounds: the
 * built CLI serves the reference server everything (2025 only, over stdio) and the probe. The official SDK v2
 * client, pinned to 2026-07-28, drives the rounds itself (its elicitation and sampling handlers
 * answer, its retry carries the answer and the requestState) and the upstream's result carries the
 * answers. Then the rounds by hand over HTTP, each message checked against the official 2026
 * schema: a tampered requestState and a reused one are refused (-32602) and the held call still
 * answers its rightful retry, and a retry without the answer is asked again; inside a 2026 task
 * the question waits in the task (tasks/update answers it); a retry from another
 * caller is refused; a retry that reaches another
 * process, or comes after the held call expired (the source's timeoutMs), gets an error result that
 * says the call is not held here.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { CLI, tempFiles } from '../helpers/demo.js';
import { schemaFor } from '../protocol/mcp-schemas.js';
import { CAPS, modernRequest, post, type ServedCli, spawnHttpCli } from '../transports/http-harness.js';

type Json = Record<string, any>;
const REPO = join(import.meta.dirname, '../..');
const EVERYTHING = join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const PROBE = join(REPO, 'test/fixtures/mcp-upstream/probe.mjs');
const node = JSON.stringify(process.execPath);
const schema = schemaFor('2026-07-28');

const manifest = (timeoutMs: number) => `
sources:
  everything:
    kind: mcp
    command: [${node}, ${JSON.stringify(EVERYTHING)}, stdio]
    timeoutMs: ${timeoutMs}
    expose:
      tools: { include: [trigger-elicitation-request, trigger-sampling-request], prefix: ev_ }
  probe:
    kind: mcp
    command: [${node}, ${JSON.stringify(PROBE)}, --odd-questions]
    expose:
      tools: { include: [ask_roots, ask_odd], prefix: probe_ }
tools:
  elicit_task:
    kind: mcp
    source: everything
    tool: trigger-elicitation-request
    task: optional
  confirmed_elicit:
    kind: mcp
    source: everything
    tool: trigger-elicitation-request
    confirm: Ask the user for their details?
`;
const files = tempFiles({ 'mcp.yaml': manifest(60_000), 'short.yaml': manifest(4000) });
const text = (result: Json) => (result.content as Json[]).map((b) => b.text ?? '').join('\n');
const ELICIT = 'ev_trigger-elicitation-request';
const ANSWER = { action: 'accept', content: { name: 'Grace Hopper', check: true } };

describe('an upstream asks during a call: the official 2026 client answers in rounds', () => {
  const asked: string[] = [];
  const client = new ModernClient(
    { name: 'relay-2026', version: '1' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { elicitation: {}, sampling: {}, roots: {} },
    },
  );
  client.setRequestHandler('roots/list', async () => {
    asked.push('roots');
    return { roots: [{ uri: 'file:///srv/project', name: 'project' }] } as never;
  });
  client.setRequestHandler('elicitation/create', async (request: Json) => {
    asked.push(`elicit: ${request.params.message}`);
    // The manifest's own confirm step is answered yes; the upstream's form with its fields.
    return (/^Ask the user/.test(request.params.message) ? { action: 'accept' } : ANSWER) as never;
  });
  client.setRequestHandler('sampling/createMessage', async (request: Json) => {
    asked.push(`sample: ${JSON.stringify(request.params.messages)}`);
    return {
      model: 'test-model',
      role: 'assistant',
      content: { type: 'text', text: 'a sampled answer' },
    } as never;
  });
  before(async () => {
    await client.connect(
      new ModernStdio({
        command: process.execPath,
        args: [CLI, join(files.dir, 'mcp.yaml')],
        stderr: 'pipe',
      }),
    );
  });
  after(() => client.close());

  test('elicitation: the question is a round, and the answer reaches the upstream', async () => {
    const result = (await client.callTool({ name: ELICIT, arguments: {} })) as Json;
    assert.ok(!result.isError, text(result));
    assert.match(text(result), /Grace Hopper/);
    assert.ok(
      asked.some((a) => a.startsWith('elicit: Please provide inputs')),
      asked.join('\n'),
    );
  });

  test('sampling: the client samples in a round, and its message reaches the upstream', async () => {
    const result = (await client.callTool({
      name: 'ev_trigger-sampling-request',
      arguments: { prompt: 'say hi', maxTokens: 10 },
    })) as Json;
    assert.ok(!result.isError, text(result));
    assert.match(text(result), /a sampled answer/);
    assert.ok(
      asked.some((a) => a.startsWith('sample: ') && a.includes('say hi')),
      asked.join('\n'),
    );
  });

  test("a tool's own confirm step, then its upstream's question: each asked once, in its own round", async () => {
    const from = asked.length;
    const result = (await client.callTool({ name: 'confirmed_elicit', arguments: {} })) as Json;
    assert.ok(!result.isError, text(result));
    assert.match(text(result), /Grace Hopper/);
    assert.deepEqual(
      asked.slice(from).map((a) => a.replace(/^(elicit: \S+ \S+ \S+).*$/s, '$1')),
      ['elicit: Ask the user', 'elicit: Please provide inputs'],
    );
  });

  test("roots are never a round: mcp-run answers the upstream itself, and the client's roots stay with it", async () => {
    const result = (await client.callTool({ name: 'probe_ask_roots', arguments: {} })) as Json;
    assert.ok(!result.isError, text(result));
    assert.match(text(result), /refused: -32601 .*declared no roots/);
    assert.ok(!asked.includes('roots'));
  });
});

describe('input_required rounds by hand over HTTP, against the official 2026 schema', () => {
  const TOKENS = 'MCP_RUN_RELAY26_TOKENS';
  const env = {
    ...process.env,
    [TOKENS]: 'alice-token,bob-token',
    MCP_RUN_STATE_KEY: 'relay-2026-test-key-relay-2026-test-key',
  };
  let main: ServedCli;
  let short: ServedCli;
  let id = 0;

  /** One 2026 tools/call of ELICIT; its JSON-RPC response, checked against the schema. */
  async function call(url: string, extra: Json = {}, token = 'alice-token'): Promise<Json> {
    const { message, headers } = modernRequest(
      ++id,
      'tools/call',
      { name: ELICIT, arguments: {}, ...extra },
      { [CAPS]: { elicitation: {} } },
    );
    assert.deepEqual(schema.check('CallToolRequest', message), []);
    const res = await post(url, message, { ...headers, authorization: `Bearer ${token}` });
    const reply = res.headers['content-type']?.includes('event-stream') ? res.events().at(-1) : res.json();
    if (reply.error !== undefined) assert.deepEqual(schema.check('JSONRPCErrorResponse', reply), []);
    else {
      assert.deepEqual(schema.check('JSONRPCResultResponse', reply), []);
      const kind = reply.result.resultType === 'input_required' ? 'InputRequiredResult' : 'CallToolResult';
      assert.deepEqual(schema.check(kind, reply.result), [], JSON.stringify(reply.result));
    }
    return reply;
  }

  /** A first round: the upstream's question and the state to retry with. */
  async function firstRound(url: string): Promise<{ key: string; requestState: string }> {
    const reply = await call(url);
    assert.equal(reply.result?.resultType, 'input_required', JSON.stringify(reply));
    const entries = Object.entries(reply.result.inputRequests as Json);
    assert.equal(entries.length, 1);
    const [key, request] = entries[0]!;
    assert.equal(request.method, 'elicitation/create');
    assert.match(request.params.message, /Please provide inputs/);
    assert.equal(typeof reply.result.requestState, 'string');
    return { key, requestState: reply.result.requestState };
  }

  before(async () => {
    const args = (file: string) => [join(files.dir, file), '--no-watch', '--auth-token-env', TOKENS];
    [main, short] = await Promise.all([
      spawnHttpCli(args('mcp.yaml'), { env }),
      spawnHttpCli(args('short.yaml'), { env }),
    ]);
  });
  after(async () => {
    await Promise.all([main?.stop(), short?.stop()]);
    files.cleanup();
  });

  test("an upstream's malformed or url-mode question is refused to it (-32602), never passed on; a valid one arrives as the spec's fields only", async () => {
    const ask = async (method: string, params: Json): Promise<Json> => {
      const { message, headers } = modernRequest(
        ++id,
        'tools/call',
        { name: 'probe_ask_odd', arguments: { method, params: JSON.stringify(params) } },
        { [CAPS]: { elicitation: { form: {} }, sampling: {} } },
      );
      const res = await post(main.url, message, { ...headers, authorization: 'Bearer bob-token' });
      const reply = res.headers['content-type']?.includes('event-stream') ? res.events().at(-1) : res.json();
      assert.deepEqual(schema.check('JSONRPCResultResponse', reply), [], JSON.stringify(reply));
      const kind = reply.result.resultType === 'input_required' ? 'InputRequiredResult' : 'CallToolResult';
      assert.deepEqual(schema.check(kind, reply.result), [], JSON.stringify(reply.result));
      return reply.result;
    };
    const url = await ask('elicitation/create', {
      mode: 'url',
      message: 'Sign in to continue',
      url: 'https://evil.example/login',
      elicitationId: 'e1',
    });
    assert.match(text(url), /^refused: -32602 .*form-mode/, JSON.stringify(url));
    for (const [method, params] of [
      ['elicitation/create', {}],
      [
        'elicitation/create',
        { message: 'Name?', requestedSchema: { type: 'object', properties: { a: { type: 'object' } } } },
      ],
      ['sampling/createMessage', { messages: 'hi', maxTokens: 5 }],
      ['sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] }],
    ] as const) {
      const result = await ask(method, params);
      assert.match(
        text(result),
        /^refused: -32602 /,
        `${method} ${JSON.stringify(params)}: ${JSON.stringify(result)}`,
      );
    }
    const form = {
      type: 'object',
      properties: { name: { type: 'string', title: 'Name' } },
      required: ['name'],
    };
    const valid = await ask('elicitation/create', {
      message: 'Name?',
      requestedSchema: form,
      mode: 'form',
      url: 'x',
      junk: 1,
    });
    assert.equal(valid.resultType, 'input_required', JSON.stringify(valid));
    const [request] = Object.values(valid.inputRequests as Json) as Json[];
    assert.deepEqual(request, {
      method: 'elicitation/create',
      params: { message: 'Name?', requestedSchema: form, mode: 'form' },
    });
  });

  test('inside a 2026 task the question waits in the task: tasks/update answers it, and the task completes', async () => {
    const caps = { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } };
    const rpc = async (method: string, params: Json): Promise<Json> => {
      const { message, headers } = modernRequest(++id, method, params, { [CAPS]: caps });
      if (typeof params.taskId === 'string') headers['mcp-name'] = params.taskId;
      const res = await post(main.url, message, { ...headers, authorization: 'Bearer alice-token' });
      const reply = res.headers['content-type']?.includes('event-stream') ? res.events().at(-1) : res.json();
      assert.deepEqual(schema.check('JSONRPCResultResponse', reply), [], JSON.stringify(reply));
      return reply.result;
    };
    const created = await rpc('tools/call', { name: 'elicit_task', arguments: {} });
    assert.equal(created.resultType, 'task', JSON.stringify(created));
    const waiting = await until('the task to ask', async () => {
      const task = await rpc('tasks/get', { taskId: created.taskId });
      return task.status === 'input_required' ? task : undefined;
    });
    const [key, request] = Object.entries(waiting.inputRequests as Json)[0]!;
    assert.equal(request.method, 'elicitation/create');
    assert.match(request.params.message, /Please provide inputs/);
    await rpc('tasks/update', { taskId: created.taskId, inputResponses: { [key]: ANSWER } });
    const done = await until('the task to end', async () => {
      const task = await rpc('tasks/get', { taskId: created.taskId });
      return ['completed', 'failed', 'cancelled'].includes(task.status) ? task : undefined;
    });
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.match(text(done.result), /Grace Hopper/);
  });

  test('a tampered requestState and a reused one are refused; the rightful retry gets the result', async () => {
    const { key, requestState } = await firstRound(main.url);
    const [body, mac] = requestState.split('.');
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8'));
    payload.s.values = { ...payload.s.values, 'mcp-run.heldUpstreamCall': 'someone-elses-call' };
    const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
    const tampered = await call(main.url, { inputResponses: { [key]: ANSWER }, requestState: forged });
    assert.equal(tampered.error?.code, -32602, JSON.stringify(tampered));
    assert.match(tampered.error.message, /requestState refused: it failed its integrity check/);

    const done = await call(main.url, { inputResponses: { [key]: ANSWER }, requestState });
    assert.equal(done.result.resultType, 'complete', JSON.stringify(done));
    assert.ok(!done.result.isError, text(done.result));
    assert.match(text(done.result), /Grace Hopper/);

    const reused = await call(main.url, { inputResponses: { [key]: ANSWER }, requestState });
    assert.equal(reused.error?.code, -32602, JSON.stringify(reused));
    assert.match(reused.error.message, /requestState refused: it was already used/);
  });

  test('a retry without the answer is asked again, and the next one completes', async () => {
    const { key, requestState } = await firstRound(main.url);
    const again = await call(main.url, { requestState });
    assert.equal(again.result?.resultType, 'input_required', JSON.stringify(again));
    assert.deepEqual(Object.keys(again.result.inputRequests), [key]);
    const done = await call(main.url, {
      inputResponses: { [key]: ANSWER },
      requestState: again.result.requestState,
    });
    assert.match(text(done.result), /Grace Hopper/);
  });

  test('a retry from another caller is refused, and the call is cancelled', async () => {
    const { key, requestState } = await firstRound(main.url);
    const stolen = await call(main.url, { inputResponses: { [key]: ANSWER }, requestState }, 'bob-token');
    assert.equal(stolen.result?.isError, true, JSON.stringify(stolen));
    assert.match(text(stolen.result), /continues a call another caller started; it was refused/);
  });

  test('a retry after the held call expired (the source timeoutMs) gets the same clear error', async () => {
    const { key, requestState } = await firstRound(short.url);
    // The held call is cancelled upstream and forgotten; mcp-run's log says so.
    await waitFor(short, /a held upstream call was cancelled and forgotten/);
    const late = await call(short.url, { inputResponses: { [key]: ANSWER }, requestState });
    assert.equal(late.result?.isError, true, JSON.stringify(late));
    assert.match(
      text(late.result),
      /is not held by this mcp-run process: it expired \(the source everything's timeoutMs, 4000 ms/,
    );
  });

  test('a retry that reaches another process gets an error result saying the call is not held there', async () => {
    // Last on `main`: over stdio, a held call is a call in flight (the next call's questions could
    // not be told from its own), and this one stays held until the end.
    const { key, requestState } = await firstRound(main.url);
    // Same MCP_RUN_STATE_KEY: the state verifies there, but the upstream call is held here.
    const elsewhere = await call(short.url, { inputResponses: { [key]: ANSWER }, requestState });
    assert.equal(elsewhere.result?.isError, true, JSON.stringify(elsewhere));
    assert.match(text(elsewhere.result), /is not held by this mcp-run process: it expired/);
    assert.match(text(elsewhere.result), /Nothing was sent upstream/);
  });
});

/** Polls `probe` (a task's status) until it gives a value. */
async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Resolves once the served CLI's stderr matches `pattern` (an event, not a sleep). */
function waitFor(served: ServedCli, pattern: RegExp): Promise<void> {
  if (pattern.test(served.stderr())) return Promise.resolve();
  return new Promise((resolve) => {
    const onData = () => {
      if (!pattern.test(served.stderr())) return;
      served.child.stderr.off('data', onData);
      resolve();
    };
    served.child.stderr.on('data', onData);
  });
}
