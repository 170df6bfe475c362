/**
 * Every message the built CLI sends (results, errors, notifications, server→client requests) is
 * validated against the official JSON Schema of the version the client negotiated: all five
 * versions, over real stdio and real HTTP, with a raw client that calls every method the server
 * answers. The manifest is the conformance fixture plus a few entries that carry what older versions
 * lack (a resource link, audio in a prompt, titles, annotations, structured content).
 *
 * Beside the calls: every 2026 multi-round-trip call is answered and retried until it completes;
 * the HTTP transport's own refusals (400 … 415) are checked as error replies; a watched copy of the
 * manifest is edited so that list_changed, resources/updated, a failed reload's log message, a
 * cancelled outbound request and the 2026 `subscriptions/listen` stream (acknowledgement, tagged
 * changes, the result at shutdown) are checked too. The last tests hold the methods that got a
 * checked result against src/protocol/method-table.ts, so a method added there fails here until the
 * sweep calls it.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse, stringify } from 'yaml';
import { METHODS } from '../../src/protocol/method-table.js';
import { REPO } from '../helpers/demo.js';
import { RawStdioPeer } from '../helpers/raw-stdio.js';
import {
  type OpenStream,
  openStream,
  post,
  type ServedCli,
  send,
  spawnHttpCli,
} from '../transports/http-harness.js';
import { SCHEMA_VERSIONS, type SchemaVersion, schemaFor } from './mcp-schemas.js';

type Json = Record<string, any>;

const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const MODERN = '2026-07-28';
/** The versions whose schema lets an error reply leave out an `id` it cannot name. */
const ID_OPTIONAL = new Set<SchemaVersion>(['2025-11-25', '2026-07-28']);

/** The conformance fixture plus what older versions must see downgraded. */
function manifestDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-fidelity-'));
  cpSync(join(REPO, 'test/conformance'), dir, { recursive: true, filter: (src) => !src.includes('/suite') });
  const manifest = parse(readFileSync(join(dir, 'mcp.yaml'), 'utf8'));
  manifest.server.title = 'Fidelity fixture';
  manifest.tools.fidelity_link = {
    kind: 'content',
    title: 'Linked content',
    description: 'Answers with a resource link, audio and text.',
    annotations: { title: 'Linked', readOnlyHint: true },
    content: [
      { resourceLink: { uri: 'test://static-text', name: 'static_text', mimeType: 'text/plain' } },
      { audio: { path: './assets/tone.wav', mimeType: 'audio/wav' } },
      { text: 'done' },
    ],
  };
  manifest.tools.fidelity_structured = {
    kind: 'content',
    description: 'Answers with structured content beside a summary.',
    structured: { answer: 42, unit: 'things' },
    content: [{ text: 'The answer is 42.' }],
  };
  // Progress with a message, which 2024-11-05 does not define.
  manifest.tools.fidelity_progress = {
    kind: 'shell',
    description: 'Reports progress with a message, then finishes.',
    command: ['node', '-e', "console.log('1/2 halfway there'); setTimeout(() => console.log('done'), 50)"],
    progress: { pattern: '^(?<progress>\\d+)/(?<total>\\d+) (?<message>.+)$' },
    timeoutMs: 10000,
  };
  manifest.resources.static_text.title = 'Static text';
  manifest.prompts.fidelity_prompt = {
    title: 'Linked prompt',
    description: 'A prompt with a resource link and audio.',
    messages: [
      { resourceLink: { uri: 'test://static-text', name: 'static_text' } },
      { audio: { path: './assets/tone.wav', mimeType: 'audio/wav' } },
    ],
  };
  // A prompt that asks first: elicitation/create in 2025, input_required in 2026.
  manifest.prompts.fidelity_ask_prompt = {
    description: 'A prompt that asks for its topic first.',
    ask: { key: 'topic_form', message: 'What about?', fields: { topic: { type: 'string' } } },
    messages: [{ text: 'Write about {{topic}}.' }],
  };
  // The trigger tools edit the manifest (hot reload); this test wants one stable catalog.
  delete manifest.tools.test_trigger_tool_change;
  delete manifest.tools.test_trigger_prompt_change;
  writeFileSync(join(dir, 'mcp.yaml'), stringify(manifest));
  return dir;
}

/** What a client of `version` may declare: elicitation exists from 2025-06-18. */
function capabilities(version: SchemaVersion): Json {
  const caps: Json = { sampling: {}, roots: { listChanged: true } };
  if (version >= '2025-06-18') caps.elicitation = {};
  return caps;
}

/** The client's side of a server→client request. */
function answer(request: Json): Json {
  if (request.method === 'sampling/createMessage')
    return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' };
  if (request.method === 'roots/list') return { roots: [{ uri: 'file:///tmp/fidelity', name: 'fidelity' }] };
  if (request.method === 'elicitation/create') {
    const props: Json = request.params?.requestedSchema?.properties ?? {};
    const content: Json = {};
    for (const [name, field] of Object.entries<Json>(props)) {
      const choice =
        field.enum?.[0] ??
        field.oneOf?.[0]?.const ??
        field.items?.enum?.[0] ??
        field.items?.anyOf?.[0]?.const;
      if (field.type === 'array') content[name] = [choice];
      else if (field.type === 'boolean') content[name] = true;
      else if (field.type === 'integer' || field.type === 'number') content[name] = 1;
      else content[name] = choice ?? 'x';
    }
    return { action: 'accept', content };
  }
  return {};
}

/** One client session, whatever the transport: requests resolve with their response. */
interface Peer {
  request(method: string, params: Json): Promise<Json>;
  /** Every message the server sent this peer, with the method of the request each response answers. */
  readonly received: { message: Json; method: string | undefined }[];
}

const RESULT_DEF: Record<string, string> = {
  initialize: 'InitializeResult',
  ping: 'EmptyResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'resources/subscribe': 'EmptyResult',
  'resources/unsubscribe': 'EmptyResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'completion/complete': 'CompleteResult',
  'logging/setLevel': 'EmptyResult',
  'server/discover': 'DiscoverResult',
  'subscriptions/listen': 'SubscriptionsListenResult',
  'tasks/get': 'GetTaskResult',
  'tasks/list': 'ListTasksResult',
  'tasks/cancel': 'CancelTaskResult',
  // The schema's GetTaskPayloadResult is open ("matches the result type of the original request"):
  // the tasks here are tool calls, so their payload is held to CallToolResult.
  'tasks/result': 'CallToolResult',
};

/**
 * The 2026 tasks extension (io.modelcontextprotocol/tasks, SEP-2663) is not part of the 2026-07-28
 * core schema, so no official definition holds its methods' results: test/e2e/tasks.test.ts checks
 * them (the inlined tool result against CallToolResult). Nor is the skills extension
 * (io.modelcontextprotocol/skills, SEP-2640) in any version's: its methods are checked by
 * test/e2e/skills.test.ts and by the conformance suite's pending SEP-2640 scenarios
 * (test/conformance/run.mjs). Every other method of the table is held here.
 */
const SKILLS_METHODS = ['skills/list', 'skills/get', 'resources/directory/read'];
const OUTSIDE_THE_CORE_SCHEMA: Partial<Record<SchemaVersion, readonly string[]>> = {
  '2024-11-05': SKILLS_METHODS,
  '2025-03-26': SKILLS_METHODS,
  '2025-06-18': SKILLS_METHODS,
  '2025-11-25': SKILLS_METHODS,
  '2026-07-28': ['tasks/get', 'tasks/cancel', 'tasks/update', ...SKILLS_METHODS],
};

/**
 * Which methods got a result (not an error) validated, per `version transport`: the last test
 * holds these against the server's method table, so a method added there cannot go unchecked.
 */
const ANSWERED = new Map<string, Set<string>>();
function record(key: string, received: Peer['received']): void {
  const set = ANSWERED.get(key) ?? new Set<string>();
  for (const { message, method } of received)
    if (method !== undefined && 'result' in message) set.add(method);
  ANSWERED.set(key, set);
}

/** The member of a union (ServerRequest, ServerNotification) whose `method` is `method`. */
function memberFor(version: SchemaVersion, union: string, method: string): string | undefined {
  const { defs } = schemaFor(version);
  const members = ((defs[union] as Json).anyOf ?? (defs[union] as Json).oneOf ?? []) as Json[];
  const names = members.map((m) => String(m.$ref).split('/').pop()!);
  return names.find((name) => (defs[name] as Json)?.properties?.method?.const === method);
}

/** Problems of one server message under `version`; empty when it conforms. */
function problemsOf(version: SchemaVersion, message: Json, method: string | undefined): string[] {
  const schema = schemaFor(version);
  const has = (name: string) => name in schema.defs;
  if ('method' in message) {
    const request = 'id' in message;
    // TaskStatusNotificationParams is allOf [NotificationParams, Task]: closed one by one, each member
    // would refuse the other's fields, so the params are held to Task (closed) on their own.
    if (message.method === 'notifications/tasks/status')
      return [...schema.check('JSONRPCNotification', message), ...schema.check('Task', message.params)];
    const def = memberFor(version, request ? 'ServerRequest' : 'ServerNotification', message.method);
    if (def === undefined) return [`${message.method} is not a server message in ${version}`];
    // Before 2025-11-25 the union members describe only method and params; later, whole messages.
    const whole = 'jsonrpc' in ((schema.defs[def] as Json).properties ?? {});
    const inner = whole
      ? message
      : message.params === undefined
        ? { method: message.method }
        : { method: message.method, params: message.params };
    return [
      ...schema.check(request ? 'JSONRPCRequest' : 'JSONRPCNotification', message),
      ...schema.check(def, inner),
    ];
  }
  if ('error' in message) {
    const envelope = has('JSONRPCErrorResponse') ? 'JSONRPCErrorResponse' : 'JSONRPCError';
    if (message.id === null && !ID_OPTIONAL.has(version)) {
      // These schemas require an id and refuse null; JSON-RPC 2.0 asks for null (docs/clients.md).
      return schema.check(envelope, { ...message, id: 0 });
    }
    return schema.check(envelope, message);
  }
  const envelope = has('JSONRPCResultResponse') ? 'JSONRPCResultResponse' : 'JSONRPCResponse';
  let def = method === undefined ? undefined : RESULT_DEF[method];
  if (def === undefined) return [`a response to ${method}, which this test does not map`];
  if (message.result?.resultType === 'input_required') def = 'InputRequiredResult';
  if (method === 'tools/call' && message.result?.task !== undefined) def = 'CreateTaskResult';
  return [...schema.check(envelope, message), ...schema.check(def, message.result)];
}

interface StdioPeer {
  peer: Peer;
  raw: RawStdioPeer;
  /** Names the method of a request sent with `raw.send`, so its response is checked against it. */
  track(id: string, method: string): void;
  /** Takes in every line read so far. */
  flush(): void;
}

function stdioPeer(dir: string, watch = false): StdioPeer {
  const raw = new RawStdioPeer([join(dir, 'mcp.yaml'), ...(watch ? [] : ['--no-watch'])], dir);
  const methods = new Map<unknown, string>();
  const received: Peer['received'] = [];
  let cursor = 0;
  const seen = (): void => {
    for (; cursor < raw.stdoutLines.length; cursor++) {
      const message = JSON.parse(raw.stdoutLines[cursor]!) as Json;
      const method = 'method' in message ? undefined : methods.get(message.id);
      received.push({ message, method });
    }
  };
  let nextId = 1;
  const peer: Peer = {
    received,
    async request(method, params) {
      const id = nextId++;
      methods.set(id, method);
      const response = raw.next((m) => (m.id === id && !('method' in m)) || ('method' in m && 'id' in m));
      raw.send({ jsonrpc: '2.0', id, method, params });
      let message = await response;
      while ('method' in message) {
        raw.send({ jsonrpc: '2.0', id: message.id, result: answer(message) });
        message = await raw.next((m) => (m.id === id && !('method' in m)) || ('method' in m && 'id' in m));
      }
      seen();
      return message;
    },
  };
  return { peer, raw, track: (id, method) => methods.set(id, method), flush: seen };
}

function httpPeer(url: string, version: SchemaVersion): Peer & { session?: string } {
  const received: Peer['received'] = [];
  let nextId = 1;
  const peer: Peer & { session?: string } = {
    received,
    async request(method, params) {
      const id = nextId++;
      const headers: Record<string, string> = { 'mcp-protocol-version': version };
      if (peer.session !== undefined) headers['mcp-session-id'] = peer.session;
      if (version === MODERN) {
        headers['mcp-method'] = method;
        const name = method === 'resources/read' ? params.uri : params.name;
        if (typeof name === 'string' && ['tools/call', 'prompts/get', 'resources/read'].includes(method))
          headers['mcp-name'] = name;
      }
      const stream = await openStream(url, {
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        headers,
      });
      const session = stream.headers['mcp-session-id'];
      if (typeof session === 'string') peer.session = session;
      if (!String(stream.headers['content-type']).includes('text/event-stream')) {
        // A plain JSON answer: one body, no events.
        const message = JSON.parse(await stream.text);
        received.push({ message, method });
        return message;
      }
      for (;;) {
        const message = await stream.next(15_000);
        if ('method' in message && 'id' in message) {
          received.push({ message, method: undefined });
          await post(url, { jsonrpc: '2.0', id: message.id, result: answer(message) }, headers);
        } else if ('method' in message) received.push({ message, method: undefined });
        else {
          received.push({ message, method });
          stream.close();
          return message;
        }
      }
    },
  };
  return peer;
}

/** Calls every method the server answers, for one version. */
async function exercise(
  peer: Peer,
  version: SchemaVersion,
  notify: (m: Json) => Promise<void>,
): Promise<void> {
  const modern = version === MODERN;
  const envelope = (params: Json = {}): Json =>
    modern ? { ...params, _meta: { ...params._meta, [PV]: MODERN, [CAPS]: capabilities(version) } } : params;
  const call = (method: string, params: Json = {}) => peer.request(method, envelope(params));
  if (modern) await call('server/discover');
  else {
    const init = await call('initialize', {
      protocolVersion: version,
      capabilities: capabilities(version),
      clientInfo: { name: 'fidelity', version: '1' },
    });
    assert.equal(init.result.protocolVersion, version);
    await notify({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await call('ping');
    await call('logging/setLevel', { level: 'debug' });
    await call('resources/subscribe', { uri: 'test://watched-resource' });
    await call('resources/unsubscribe', { uri: 'test://watched-resource' });
  }
  const tools = (await call('tools/list')).result.tools as Json[];
  const args: Json = { test_sampling: { prompt: 'Capital?' }, test_elicitation: { message: 'Who?' } };
  const meta = modern ? { 'io.modelcontextprotocol/logLevel': 'debug' } : {};
  let retries = 0;
  // 2026 (MRTR): answer each round's input requests and retry with the signed state until the
  // request completes, so every round's InputRequiredResult and the final result are checked.
  const complete = async (method: string, params: Json): Promise<Json> => {
    let reply = await call(method, params);
    for (let round = 1; modern && reply.result?.resultType === 'input_required'; round++) {
      assert.ok(round <= 3, `${params.name}: still input_required after ${round} rounds`);
      const requests = Object.entries<Json>(reply.result.inputRequests ?? {});
      const inputResponses = Object.fromEntries(requests.map(([key, request]) => [key, answer(request)]));
      reply = await call(method, { ...params, inputResponses, requestState: reply.result.requestState });
      retries++;
    }
    if (modern) assert.notEqual(reply.result?.resultType, 'input_required', params.name);
    return reply;
  };
  for (const tool of tools) {
    const reply = await complete('tools/call', {
      name: tool.name,
      arguments: args[tool.name] ?? {},
      _meta: { progressToken: `p-${tool.name}`, ...meta },
    });
    // A 2025-06-18 client sees each multi-select as a single-select and answers with one string,
    // which the form takes as a one-item list.
    if (tool.name === 'test_elicitation_sep1330_enums' && version !== MODERN && version >= '2025-06-18')
      assert.match(reply.result.content[0].text, /untitledMulti=\[option1\]/, JSON.stringify(reply));
  }
  await call('resources/list');
  await call('resources/templates/list');
  for (const uri of ['test://static-text', 'test://static-binary', 'test://template/7/data'])
    await call('resources/read', { uri });
  const prompts = (await call('prompts/list')).result.prompts as Json[];
  for (const prompt of prompts) {
    const values = Object.fromEntries(
      (prompt.arguments ?? []).map((a: Json) => [a.name, 'test://static-text']),
    );
    const reply = await complete('prompts/get', { name: prompt.name, arguments: values });
    if (prompt.name === 'fidelity_ask_prompt' && version >= '2025-06-18')
      assert.match(JSON.stringify(reply.result?.messages), /Write about x/, JSON.stringify(reply));
  }
  await call('completion/complete', {
    ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
    argument: { name: 'arg1', value: 'te' },
  });
  // Errors: an unknown method, an unknown tool, a resource that is not there.
  await call('no/such/method');
  await call('tools/call', { name: 'no_such_tool', arguments: {} });
  await call('resources/read', { uri: 'test://nothing-here' });
  if (!modern && version < '2025-11-25') {
    // Tasks came with 2025-11-25: an older session does not have the methods.
    const refused = await call('tasks/list');
    assert.equal(refused.error?.code, -32601, JSON.stringify(refused));
  }
  if (version === '2025-11-25') {
    // Tasks (the 2025-11-25 core): a call made a task, each tasks method on it, and a cancel.
    const started = await call('tools/call', { name: 'slow_compute', arguments: { seconds: 0 }, task: {} });
    const taskId = started.result?.task?.taskId;
    assert.equal(typeof taskId, 'string', JSON.stringify(started));
    await call('tasks/get', { taskId });
    await call('tasks/list');
    const payload = await call('tasks/result', { taskId });
    assert.match(JSON.stringify(payload.result?.content), /computed job after 0 s/, JSON.stringify(payload));
    const slow = await call('tools/call', { name: 'slow_compute', arguments: { seconds: 60 }, task: {} });
    const cancelled = await call('tasks/cancel', { taskId: slow.result?.task?.taskId });
    assert.equal(cancelled.result?.status, 'cancelled', JSON.stringify(cancelled));
    await call('tasks/get', { taskId: 'no-such-task' });
  }
  if (modern) {
    // The MRTR tools of the fixture really went through retries, and a tampered state is an error.
    assert.ok(retries >= 8, `only ${retries} MRTR retries`);
    await call('tools/call', {
      name: 'test_input_required_result_tampered_state',
      arguments: {},
      inputResponses: { confirm: { action: 'accept', content: { confirmed: true } } },
      requestState: 'tampered',
    });
  }
}

/**
 * What the HTTP transport refuses before any method runs: each answer is an HTTP error status whose
 * body is a JSON-RPC error, held to the negotiated version's schema like any other reply.
 */
async function httpRefusals(
  url: string,
  version: SchemaVersion,
  session: string | undefined,
): Promise<Peer['received']> {
  const modern = version === MODERN;
  const base: Record<string, string> = { 'mcp-protocol-version': version };
  if (session !== undefined) base['mcp-session-id'] = session;
  const list = (id: number): string =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/list',
      params: modern ? { _meta: { [PV]: MODERN, [CAPS]: {} } } : {},
    });
  const listHeaders = modern ? { ...base, 'mcp-method': 'tools/list' } : base;
  const cases: [string, number, Parameters<typeof send>[1], string?][] = [
    ['a body that is not JSON', 400, { body: '{"jsonrpc": "2.0", "id": 1,', headers: listHeaders }],
    ['a foreign Host', 403, { body: list(2), headers: { ...listHeaders, host: 'evil.example.com' } }],
    ['another path', 404, { body: list(3), headers: listHeaders }, '/elsewhere'],
    ['a PUT', 405, { method: 'PUT', body: list(4), headers: listHeaders }],
    [
      'Accept without event streams',
      406,
      { body: list(5), headers: { ...listHeaders, accept: 'application/json' } },
    ],
    ['a text body', 415, { body: list(6), headers: { ...listHeaders, 'content-type': 'text/plain' } }],
  ];
  if (modern) {
    cases.push([
      'Mcp-Method that is not the method',
      400,
      { body: list(7), headers: { ...base, 'mcp-method': 'prompts/list' } },
    ]);
  } else {
    const { 'mcp-session-id': _, ...bare } = base;
    cases.push(
      ['no Mcp-Session-Id', 400, { body: list(8), headers: bare }],
      [
        'an unknown Mcp-Session-Id',
        404,
        { body: list(9), headers: { ...base, 'mcp-session-id': 'no-such-session' } },
      ],
      [
        'a GET without Accept: text/event-stream',
        406,
        { method: 'GET', headers: { ...base, accept: 'application/json' } },
      ],
    );
  }
  const received: Peer['received'] = [];
  for (const [why, status, req, path] of cases) {
    const res = await send(path === undefined ? url : new URL(path, url).href, req);
    assert.equal(res.status, status, `${why}: ${res.status} ${res.body}`);
    const message = res.json();
    assert.ok('error' in message, `${why}: ${res.body}`);
    received.push({ message, method: undefined });
  }
  return received;
}

/**
 * The one conflict between a vendored schema and the official conformance suite: the 2025-11-25
 * schema types NumberSchema's `default` as an integer, while SEP-1034 and the conformance scenario
 * elicitation-sep1034-defaults (2025-11-25) require `default: 95.5` (src/protocol/downgrade.ts keeps
 * it, docs/clients.md says why). Checked here with that one value made whole, so every other part
 * of the form, and every other message, is held to the schema.
 */
function conformanceDefaults(version: SchemaVersion, message: Json): Json {
  if (version !== '2025-11-25' || message.method !== 'elicitation/create') return message;
  const properties: Json = message.params?.requestedSchema?.properties ?? {};
  const whole = Object.fromEntries(
    Object.entries<Json>(properties).map(([name, field]) =>
      field.type === 'number' && typeof field.default === 'number' && !Number.isInteger(field.default)
        ? [name, { ...field, default: Math.trunc(field.default) }]
        : [name, field],
    ),
  );
  const requestedSchema = { ...message.params.requestedSchema, properties: whole };
  return { ...message, params: { ...message.params, requestedSchema } };
}

function assertConforms(version: SchemaVersion, received: Peer['received'], least = 40): void {
  assert.ok(received.length > least, `only ${received.length} messages`);
  const problems = received.flatMap(({ message, method }) =>
    problemsOf(version, conformanceDefaults(version, message), method).map(
      (p) => `${method ?? message.method}: ${p}`,
    ),
  );
  assert.deepEqual([...new Set(problems)], []);
}

describe('every server message validates against the negotiated version’s official schema', () => {
  let dir: string;
  let served: ServedCli;
  before(async () => {
    dir = manifestDir();
    served = await spawnHttpCli([join(dir, 'mcp.yaml'), '--no-watch'], { cwd: dir });
  });
  after(async () => {
    await served.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const version of SCHEMA_VERSIONS) {
    test(`${version} over stdio`, async () => {
      const { peer, raw } = stdioPeer(dir);
      try {
        await exercise(peer, version, async (m) => raw.send(m));
        const kinds = new Set(
          peer.received.map(({ message }) =>
            'method' in message ? message.method : 'id' in message ? 'response' : '?',
          ),
        );
        // The forms and the progress message are really sent, each as the version defines it (2026
        // puts its forms in input_required results, checked with InputRequiredResult).
        const forms = version >= '2025-06-18' && version !== MODERN;
        assert.equal(kinds.has('elicitation/create'), forms, [...kinds].join());
        const progress = peer.received
          .map(({ message }) => message)
          .filter(
            (m) => m.method === 'notifications/progress' && m.params.progressToken === 'p-fidelity_progress',
          );
        assert.equal(progress.length, 1, JSON.stringify(progress));
        assert.equal(progress[0]!.params.message, version >= '2025-03-26' ? 'halfway there' : undefined);
        assert.ok(
          kinds.has('notifications/progress') && kinds.has('notifications/message'),
          [...kinds].join(),
        );
        if (version !== MODERN) assert.ok(kinds.has('sampling/createMessage') && kinds.has('roots/list'));
        assertConforms(version, peer.received);
        record(`${version} stdio`, peer.received);
      } finally {
        raw.kill();
      }
    });

    test(`${version} over HTTP`, async () => {
      const peer = httpPeer(served.url, version);
      await exercise(peer, version, async (m) => {
        const headers: Record<string, string> = { 'mcp-protocol-version': version };
        if (peer.session !== undefined) headers['mcp-session-id'] = peer.session;
        await post(served.url, m, headers);
      });
      const refusals = await httpRefusals(served.url, version, peer.session);
      assertConforms(version, [...peer.received, ...refusals]);
      record(`${version} HTTP`, peer.received);
    });
  }
});

describe('an error reply that cannot name its request (docs/clients.md)', () => {
  const badLine = (raw: RawStdioPeer): Promise<Json> => {
    const reply = raw.next((m) => 'error' in m && m.error.code === -32700);
    raw.sendLine('{not json');
    return reply;
  };

  for (const [version, expected] of [
    [undefined, 'absent'],
    ['2024-11-05', null],
    ['2025-06-18', null],
    ['2025-11-25', 'absent'],
  ] as const) {
    test(`${version ?? 'before initialize'}: the id is ${expected === null ? 'null' : 'left out'}`, async () => {
      const raw = new RawStdioPeer([join(REPO, 'test/conformance/mcp.yaml'), '--no-watch']);
      try {
        if (version !== undefined) {
          const init = await raw.request({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'ids', version: '1' } },
          });
          assert.equal(init.result.protocolVersion, version);
        }
        const reply = await badLine(raw);
        if (expected === null) assert.equal(reply.id, null);
        else assert.equal('id' in reply, false, JSON.stringify(reply));
        for (const v of version === undefined ? (['2025-11-25', MODERN] as const) : ([version] as const))
          assert.deepEqual(problemsOf(v, reply, undefined), []);
      } finally {
        raw.kill();
      }
    });
  }
});

/** What one edit of the watched manifest makes the server announce. */
const CHANGES = [
  'notifications/resources/updated',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
];
const WATCHED = 'test://watched-resource';

/** Edit `n` of the watched fixture: the watched text, a tool, a prompt and a new resource change. */
function edit(dir: string, base: string, n: number | 'broken'): void {
  const file = join(dir, 'mcp.yaml');
  if (n === 'broken') {
    writeFileSync(file, 'server: 5\n');
    return;
  }
  const manifest = parse(base);
  manifest.resources.watched_resource.text = `Watched resource content, version ${n}.`;
  manifest.tools.test_simple_text.description = `Answers with one text item (version ${n}).`;
  manifest.prompts.test_simple_prompt.description = `A prompt without arguments (version ${n}).`;
  manifest.resources[`added_${n}`] = { kind: 'text', uri: `test://added-${n}`, text: 'Added.' };
  writeFileSync(file, stringify(manifest));
}

/** Reads `stream` until one message of each of `methods` came, keeping all it read. */
async function collect(
  stream: OpenStream,
  methods: readonly string[],
  into: Peer['received'],
): Promise<Json[]> {
  const missing = new Set(methods);
  const got: Json[] = [];
  while (missing.size > 0) {
    const message = await stream.next(15_000);
    into.push({ message, method: undefined });
    got.push(message);
    missing.delete(message.method);
  }
  return got;
}

function legacyInit(version: SchemaVersion): Json {
  return {
    protocolVersion: version,
    capabilities: capabilities(version),
    clientInfo: { name: 'fidelity', version: '1' },
  };
}

function listenParams(): Json {
  return {
    notifications: {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: [WATCHED, 'test://nothing-here'],
    },
    _meta: { [PV]: MODERN, [CAPS]: capabilities(MODERN) },
  };
}

/** The acknowledgement holds what will be honoured: the watched URI, not the unknown one. */
function assertAcknowledged(ack: Json): void {
  assert.equal(ack.method, 'notifications/subscriptions/acknowledged', JSON.stringify(ack));
  assert.deepEqual(ack.params.notifications, {
    toolsListChanged: true,
    promptsListChanged: true,
    resourcesListChanged: true,
    resourceSubscriptions: [WATCHED],
  });
}

describe('change notifications, the 2026 listen stream and a failed reload, on a watched manifest', () => {
  let base: string;
  let template: string;
  before(() => {
    template = manifestDir();
    base = readFileSync(join(template, 'mcp.yaml'), 'utf8');
  });
  after(() => rmSync(template, { recursive: true, force: true }));
  const fresh = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-run-fidelity-live-'));
    cpSync(template, dir, { recursive: true });
    return dir;
  };

  for (const version of SCHEMA_VERSIONS) {
    const modern = version === MODERN;
    test(`${version} over stdio`, async () => {
      const dir = fresh();
      const { peer, raw, track, flush } = stdioPeer(dir, true);
      try {
        if (modern) {
          // subscriptions/listen: the acknowledgement, each change tagged, the result at shutdown.
          const acked = raw.next((m) => m.method === 'notifications/subscriptions/acknowledged');
          track('listen', 'subscriptions/listen');
          raw.send({ jsonrpc: '2.0', id: 'listen', method: 'subscriptions/listen', params: listenParams() });
          assertAcknowledged(await acked);
          const changes = Promise.all(CHANGES.map((m) => raw.next((x) => x.method === m, 15_000)));
          edit(dir, base, 1);
          for (const change of await changes)
            assert.equal(change.params._meta['io.modelcontextprotocol/subscriptionId'], 'listen');
          const ended = raw.next((m) => m.id === 'listen' && 'result' in m, 15_000);
          raw.child.kill('SIGTERM');
          await ended;
        } else {
          await peer.request('initialize', legacyInit(version));
          raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          await peer.request('logging/setLevel', { level: 'debug' });
          const subscribed = await peer.request('resources/subscribe', { uri: WATCHED });
          assert.deepEqual(subscribed.result, {}, JSON.stringify(subscribed));
          const changes = Promise.all(CHANGES.map((m) => raw.next((x) => x.method === m, 15_000)));
          edit(dir, base, 1);
          assert.equal((await changes)[0]!.params.uri, WATCHED);
          // A failed reload is told to the client at level error; the next good edit is announced.
          const failed = raw.next(
            (m) => m.method === 'notifications/message' && m.params.level === 'error',
            15_000,
          );
          edit(dir, base, 'broken');
          await failed;
          const recovered = raw.next((m) => m.method === 'notifications/tools/list_changed', 15_000);
          edit(dir, base, 2);
          await recovered;
          await peer.request('resources/unsubscribe', { uri: WATCHED });
          // A call cancelled while it waits on the client: the server cancels its own request too.
          track('cancel-me', 'tools/call');
          const asked = raw.next((m) => m.method === 'sampling/createMessage');
          raw.send({
            jsonrpc: '2.0',
            id: 'cancel-me',
            method: 'tools/call',
            params: { name: 'test_sampling', arguments: { prompt: 'Capital?' } },
          });
          const request = await asked;
          const withdrawn = raw.next((m) => m.method === 'notifications/cancelled', 15_000);
          raw.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'cancel-me' } });
          assert.equal((await withdrawn).params.requestId, request.id);
          await peer.request('ping', {});
        }
        flush();
        assertConforms(version, peer.received, 4);
        record(`${version} stdio`, peer.received);
      } finally {
        raw.kill();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    test(`${version} over HTTP`, async () => {
      const dir = fresh();
      const served = await spawnHttpCli([join(dir, 'mcp.yaml')], { cwd: dir });
      const received: Peer['received'] = [];
      try {
        if (modern) {
          const stream = await openStream(served.url, {
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 'listen',
              method: 'subscriptions/listen',
              params: listenParams(),
            }),
            headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' },
          });
          const ack = await stream.next(15_000);
          received.push({ message: ack, method: undefined });
          assertAcknowledged(ack);
          edit(dir, base, 1);
          await collect(stream, CHANGES, received);
          const stopped = served.stop();
          received.push({ message: await stream.next(15_000), method: 'subscriptions/listen' });
          await stopped;
        } else {
          const peer = httpPeer(served.url, version);
          await peer.request('initialize', legacyInit(version));
          const headers = (): Record<string, string> => ({
            'mcp-protocol-version': version,
            'mcp-session-id': peer.session!,
          });
          await post(served.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers());
          await peer.request('logging/setLevel', { level: 'debug' });
          // Unsolicited notifications go on a GET stream of the session.
          const standing = await openStream(served.url, { method: 'GET', headers: headers() });
          assert.equal(standing.status, 200);
          await peer.request('resources/subscribe', { uri: WATCHED });
          edit(dir, base, 1);
          await collect(standing, CHANGES, received);
          edit(dir, base, 'broken');
          await collect(standing, ['notifications/message'], received);
          edit(dir, base, 2);
          await collect(standing, ['notifications/tools/list_changed'], received);
          await peer.request('resources/unsubscribe', { uri: WATCHED });
          // A call cancelled while it waits on the client: the server withdraws its own request.
          const pending = await openStream(served.url, {
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 'cancel-me',
              method: 'tools/call',
              params: { name: 'test_sampling', arguments: { prompt: 'Capital?' } },
            }),
            headers: headers(),
          });
          const [asked] = await collect(pending, ['sampling/createMessage'], received);
          await post(
            served.url,
            { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'cancel-me' } },
            headers(),
          );
          const [withdrawn] = await collect(pending, ['notifications/cancelled'], received);
          assert.equal(withdrawn!.params.requestId, asked!.id);
          pending.close();
          standing.close();
          received.push(...peer.received);
        }
        assertConforms(version, received, 4);
        record(`${version} HTTP`, received);
      } finally {
        await served.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('the sweep keeps up with the method table', () => {
  for (const version of SCHEMA_VERSIONS) {
    const era = version === MODERN ? 'modern' : 'legacy';
    const expected = [...METHODS]
      .filter(([, spec]) => spec.era === 'both' || spec.era === era)
      .filter(([, spec]) => era === 'modern' || spec.legacySince === undefined || version >= spec.legacySince)
      .map(([m]) => m)
      .filter((m) => !OUTSIDE_THE_CORE_SCHEMA[version]?.includes(m));
    for (const transport of ['stdio', 'HTTP']) {
      test(`${version} over ${transport}: every method of src/protocol/method-table.ts got a checked result`, () => {
        const answered = ANSWERED.get(`${version} ${transport}`) ?? new Set<string>();
        assert.deepEqual(
          expected.filter((m) => !answered.has(m)),
          [],
          'methods the server answers that the sweep never validated a result of (add them to exercise())',
        );
      });
    }
  }
});
