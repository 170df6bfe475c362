/**
 * Test harness for the interactive steps: a manifest written to a temp folder and compiled by the
 * real pipeline (kinds, steps, guard), served by the real protocol core, and a client that records
 * what the server sends, answers the server's own requests, and speaks either era.
 */
import { join } from 'node:path';
import { loadCatalog } from '../../src/catalog/load.js';
import { CatalogRef } from '../../src/catalog/types.js';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { StderrLogger } from '../../src/log.js';
import type { Connection, Protocol, RequestRoute } from '../../src/protocol/server.js';
import { createProtocol } from '../../src/protocol/server.js';
import { tempFiles } from '../helpers/demo.js';
import { type CapturedLogger, captureLogger, recordingRoute } from '../protocol/harness.js';

// Wire messages are free-form JSON; tests read them field by field.
export type Json = any;

export const MODERN = '2026-07-28';
export const PV = 'io.modelcontextprotocol/protocolVersion';
export const CAPS = 'io.modelcontextprotocol/clientCapabilities';
export const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const ALL_CAPS = { elicitation: {}, sampling: {}, roots: {} };
export const STATE_SECRET = 'a test secret that is long enough to be a key, 0123456789';

export interface Served {
  readonly dir: string;
  readonly protocol: Protocol;
  readonly log: CapturedLogger;
  client(): TestPeer;
  close(): Promise<void>;
}

/** Compiles `manifest` (plus `files`) from a temp folder and serves it; `close` removes it all. */
export async function serve(
  manifest: string,
  files: Record<string, string> = {},
  stateKey = STATE_SECRET,
): Promise<Served> {
  const temp = tempFiles({ 'mcp.yaml': manifest, ...files });
  const { catalog } = await loadCatalog(
    join(temp.dir, 'mcp.yaml'),
    builtinKinds(),
    new StderrLogger('error'),
  );
  const log = captureLogger();
  const protocol = createProtocol(new CatalogRef(catalog), { log, listChanged: false, stateKey });
  const peers: TestPeer[] = [];
  const client = () => {
    const peer = new TestPeer(protocol);
    peers.push(peer);
    return peer;
  };
  const close = async () => {
    for (const peer of peers) peer.connection.close();
    protocol.close();
    await catalog.dispose();
    temp.cleanup();
  };
  return { dir: temp.dir, protocol, log, client, close };
}

/** Polls (bounded: 10 s) until `find` returns something. */
export async function waitFor<T>(find: () => T | undefined, what = 'the condition'): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${what} did not happen within 10 s`);
}

export class TestPeer {
  /** Everything the server sent on the connection's standing channel. */
  readonly sent: Json[] = [];
  readonly connection: Connection;
  private nextId = 1;

  constructor(protocol: Protocol) {
    this.connection = protocol.connect((message) => this.sent.push(structuredClone(message)));
  }

  /** 2025: initialize with these capabilities, then notifications/initialized. */
  async initialize(capabilities: Json = {}): Promise<void> {
    await this.legacy('initialize', {
      protocolVersion: '2025-11-25',
      capabilities,
      clientInfo: { name: 'interactive-test', version: '1' },
    });
    await this.connection.receive({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  /** 2025: starts a request on the standing channel; `response` resolves once it is answered. */
  start(method: string, params: Json = {}): { id: number; response: Promise<Json> } {
    const id = this.nextId++;
    const done = this.connection.receive({ jsonrpc: '2.0', id, method, params });
    return { id, response: done.then(() => this.sent.find((m) => m.id === id && m.method === undefined)) };
  }

  async legacy(method: string, params: Json = {}): Promise<Json> {
    return this.start(method, params).response;
  }

  /** The next server→client request of `method` not yet answered by this peer. */
  request(method: string): Promise<Json> {
    return waitFor(
      () => this.sent.find((m) => m.method === method && m.id !== undefined && !m.answered),
      `a ${method} request`,
    );
  }

  /** Answers a server→client request (marks it answered so `request` moves on to the next one). */
  async answer(request: Json, result: Json): Promise<void> {
    request.answered = true;
    await this.connection.receive({ jsonrpc: '2.0', id: request.id, result });
  }

  async refuse(request: Json, code: number, message: string): Promise<void> {
    request.answered = true;
    await this.connection.receive({ jsonrpc: '2.0', id: request.id, error: { code, message } });
  }

  /** 2026: one request with the envelope, on its own route; resolves with the response and its status. */
  async modern(
    method: string,
    params: Json,
    options: { capabilities?: Json; meta?: Json } = {},
  ): Promise<{ response: Json; status: number; notes: Json[] }> {
    const route: RequestRoute & { notes: Json[]; responses: { message: Json; status: number }[] } =
      recordingRoute({ protocolVersion: MODERN });
    const meta = { [PV]: MODERN, [CAPS]: options.capabilities ?? ALL_CAPS, ...options.meta };
    const id = this.nextId++;
    await this.connection.receive({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }, route);
    const [answer] = route.responses;
    return { response: answer?.message, status: answer?.status ?? 0, notes: route.notes };
  }

  /** 2026 tools/call, answering each round with `answer(key, request)` until the result is complete. */
  async callThrough(
    name: string,
    args: Json,
    answer: (key: string, request: Json) => Json | undefined,
    options: { capabilities?: Json; maxRounds?: number } = {},
  ): Promise<{ result: Json; rounds: Json[] }> {
    const rounds: Json[] = [];
    let extra: Json = {};
    for (let i = 0; i < (options.maxRounds ?? 5); i++) {
      const { response } = await this.modern('tools/call', { name, arguments: args, ...extra }, options);
      if (response.error) throw Object.assign(new Error(response.error.message), response.error);
      const result = response.result;
      if (result.resultType !== 'input_required') return { result, rounds };
      rounds.push(result);
      const inputResponses: Json = {};
      for (const [key, request] of Object.entries(result.inputRequests ?? {})) {
        const value = answer(key, request);
        if (value !== undefined) inputResponses[key] = value;
      }
      extra = { inputResponses, requestState: result.requestState };
    }
    throw new Error(`no complete result within ${options.maxRounds ?? 5} rounds`);
  }
}

export const accept = (content: Json = {}): Json => ({ action: 'accept', content });
export const reply = (text: string): Json => ({
  role: 'assistant',
  content: { type: 'text', text },
  model: 'test-model',
  stopReason: 'endTurn',
});
