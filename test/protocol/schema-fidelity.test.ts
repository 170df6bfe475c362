/**
 * Every message the built CLI sends (results, errors, notifications, server→client requests) is
 * validated against the official JSON Schema of the version the client negotiated: all five
 * versions, over real stdio and real HTTP, with a raw client that calls every method the server
 * answers. The manifest is the conformance fixture plus a few entries that carry what older versions
 * lack (a resource link, audio in a prompt, titles, annotations, structured content).
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse, stringify } from 'yaml';
import { REPO } from '../helpers/demo.js';
import { RawStdioPeer } from '../helpers/raw-stdio.js';
import { openStream, post, type ServedCli, spawnHttpCli } from '../transports/http-harness.js';
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
};

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
  return [...schema.check(envelope, message), ...schema.check(def, message.result)];
}

function stdioPeer(dir: string): { peer: Peer; raw: RawStdioPeer } {
  const raw = new RawStdioPeer([join(dir, 'mcp.yaml'), '--no-watch'], dir);
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
  return { peer, raw };
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
        // A plain JSON answer: openStream saw no events, so read the body once more.
        stream.close();
        const res = await post(url, { jsonrpc: '2.0', id, method, params }, headers);
        const message = res.json();
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
  for (const tool of tools) {
    const reply = await call('tools/call', {
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
    await call('prompts/get', { name: prompt.name, arguments: values });
  }
  await call('completion/complete', {
    ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
    argument: { name: 'arg1', value: 'te' },
  });
  // Errors: an unknown method, an unknown tool, a resource that is not there.
  await call('no/such/method');
  await call('tools/call', { name: 'no_such_tool', arguments: {} });
  await call('resources/read', { uri: 'test://nothing-here' });
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

function assertConforms(version: SchemaVersion, received: Peer['received']): void {
  assert.ok(received.length > 40, `only ${received.length} messages`);
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
      assertConforms(version, peer.received);
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
