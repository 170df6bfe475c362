/**
 * Test harness for the HTTP transport: a real server on 127.0.0.1 (port 0) over the protocol
 * fixture catalog, and a raw HTTP peer (node:http, one connection per request) that can send what
 * the official clients never would: foreign Host and Origin headers, bad bodies, wrong headers.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Catalog, CatalogTool } from '../../src/catalog/types.js';
import { createProtocol, type Protocol } from '../../src/protocol/server.js';
import { type HttpOptions, type HttpTransport, serveHttp } from '../../src/transports/http/server.js';
import { CLI } from '../helpers/demo.js';
import { type Fixture, makeFixture } from '../protocol/catalog-fixture.js';
import { type CapturedLogger, captureLogger } from '../protocol/harness.js';

// Wire messages are free-form JSON; tests read them field by field.
export type Json = any;

export const MODERN = '2026-07-28';
export const PV = 'io.modelcontextprotocol/protocolVersion';
export const CAPS = 'io.modelcontextprotocol/clientCapabilities';
export const SUB_ID = 'io.modelcontextprotocol/subscriptionId';
export const ACCEPT_BOTH = 'application/json, text/event-stream';

export interface Served {
  readonly url: string;
  readonly protocol: Protocol;
  readonly fixture: Fixture;
  readonly log: CapturedLogger;
  readonly transport: HttpTransport;
  close(graceMs?: number): Promise<void>;
}

export async function startHttp(
  options: Partial<Omit<HttpOptions, 'log'>> & { listChanged?: boolean; catalog?: Partial<Catalog> } = {},
): Promise<Served> {
  const { listChanged = true, catalog, ...http } = options;
  const fixture = makeFixture(catalog);
  const log = captureLogger();
  const protocol = createProtocol(fixture.ref, { log, listChanged });
  const transport = await serveHttp(protocol, {
    log,
    port: 0,
    ...http,
  });
  return {
    url: transport.url,
    protocol,
    fixture,
    log,
    transport,
    close: (graceMs = 1000) => transport.close(graceMs),
  };
}

export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The body as JSON (throws when it is not). */
  json(): Json;
  /** The `data:` payloads of an SSE body, parsed. */
  events(): Json[];
}

export interface RawRequest {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  /** Leaves out the default Accept / Content-Type of a POST. */
  readonly bare?: boolean;
}

/** One request on its own connection; resolves with the whole response. */
export function send(url: string, req: RawRequest = {}): Promise<RawResponse> {
  const method = req.method ?? 'POST';
  const defaults: Record<string, string> =
    method === 'POST' && !req.bare ? { accept: ACCEPT_BOTH, 'content-type': 'application/json' } : {};
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      { method, agent: false, headers: { ...defaults, ...lower(req.headers) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            json: () => JSON.parse(body),
            events: () => parseSse(body).messages,
          });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });
}

export function post(
  url: string,
  message: unknown,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return send(url, { body: JSON.stringify(message), headers });
}

/** Params with the 2026 envelope, and the routing headers that must mirror the body. */
export function modernRequest(
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
): { message: Json; headers: Record<string, string> } {
  const message = {
    jsonrpc: '2.0',
    id,
    method,
    params: { ...params, _meta: { [PV]: MODERN, [CAPS]: {}, ...meta } },
  };
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': method };
  const name = method === 'resources/read' ? params.uri : params.name;
  if (typeof name === 'string' && ['tools/call', 'prompts/get', 'resources/read'].includes(method))
    headers['mcp-name'] = name;
  return { message, headers };
}

export function postModern(
  url: string,
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  overrides: Record<string, string | undefined> = {},
): Promise<RawResponse> {
  const { message, headers } = modernRequest(id, method, params);
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete headers[name.toLowerCase()];
    else headers[name.toLowerCase()] = value;
  }
  return post(url, message, headers);
}

/**
 * One 2026 request that declares the tasks extension, with a bearer token; its (last) answer, the
 * whole JSON-RPC response. `tasks/*` name their task in `Mcp-Name`, as the official transports do.
 */
export async function taskRequest(
  url: string,
  token: string,
  id: number,
  method: string,
  params: Json,
): Promise<Json> {
  const withTasks = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
  const { message, headers } = modernRequest(id, method, params, { [CAPS]: withTasks });
  if (typeof params.taskId === 'string') headers['mcp-name'] = params.taskId;
  const res = await post(url, message, { ...headers, authorization: `Bearer ${token}` });
  return res.headers['content-type']?.includes('event-stream') ? res.events().at(-1) : res.json();
}

/** Runs the 2025 handshake; resolves with the new session's id. */
export async function initSession(url: string, version = '2025-11-25'): Promise<string> {
  const res = await post(url, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  });
  const id = res.headers['mcp-session-id'];
  if (res.status !== 200 || typeof id !== 'string')
    throw new Error(`initialize failed: ${res.status} ${res.body}`);
  const ready = await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    sessionHeaders(id, version),
  );
  if (ready.status !== 202) throw new Error(`notifications/initialized: ${ready.status}`);
  return id;
}

export const sessionHeaders = (id: string, version = '2025-11-25'): Record<string, string> => ({
  'mcp-session-id': id,
  'mcp-protocol-version': version,
});

/** A long-lived SSE response read as it arrives: messages one by one, comments counted. */
export interface OpenStream {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The next message event (waits for it). */
  next(timeoutMs?: number): Promise<Json>;
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  /** The whole body as it came, once the server ended it (for a plain JSON answer). */
  readonly text: Promise<string>;
  readonly comments: string[];
  /** Every event id seen so far, the priming event's included, in order. */
  readonly ids: string[];
  /** The `retry:` values seen so far. */
  readonly retries: number[];
  close(): void;
}

export function openStream(url: string, req: RawRequest): Promise<OpenStream> {
  const method = req.method ?? 'POST';
  const defaults: Record<string, string> =
    method === 'POST'
      ? { accept: ACCEPT_BOTH, 'content-type': 'application/json' }
      : { accept: 'text/event-stream' };
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      { method, agent: false, headers: { ...defaults, ...lower(req.headers) } },
      (res) => {
        const queue: Json[] = [];
        const waiters: ((m: Json) => void)[] = [];
        const comments: string[] = [];
        const ids: string[] = [];
        const retries: number[] = [];
        let buffered = '';
        let whole = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          whole += chunk;
          buffered += chunk;
          const cut = buffered.lastIndexOf('\n\n');
          if (cut === -1) return;
          const parsed = parseSse(buffered.slice(0, cut + 2));
          buffered = buffered.slice(cut + 2);
          comments.push(...parsed.comments);
          ids.push(...parsed.ids);
          retries.push(...parsed.retries);
          for (const m of parsed.messages) {
            const waiter = waiters.shift();
            if (waiter) waiter(m);
            else queue.push(m);
          }
        });
        const ended = new Promise<void>((done) => {
          res.on('end', done);
          res.on('close', done);
          res.on('error', () => done());
        });
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          ended,
          text: ended.then(() => whole),
          comments,
          ids,
          retries,
          next: (timeoutMs = 5000) => {
            const queued = queue.shift();
            if (queued !== undefined) return Promise.resolve(queued);
            return new Promise((ok, fail) => {
              const timer = setTimeout(
                () => fail(new Error(`no SSE message within ${timeoutMs} ms`)),
                timeoutMs,
              );
              waiters.push((m) => {
                clearTimeout(timer);
                ok(m);
              });
            });
          },
          close: () => outgoing.destroy(),
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });
}

/** SSE frames: an event whose data is empty (the priming event) carries only its id, as in EventSource. */
export function parseSse(text: string): {
  messages: Json[];
  comments: string[];
  ids: string[];
  retries: number[];
} {
  const messages: Json[] = [];
  const comments: string[] = [];
  const ids: string[] = [];
  const retries: number[] = [];
  for (const block of text.split('\n\n')) {
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) comments.push(line.slice(1).trim());
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      else if (line.startsWith('id:')) ids.push(line.slice(3).trimStart());
      else if (line.startsWith('retry:')) retries.push(Number(line.slice(6)));
    }
    if (data.join('\n') !== '') messages.push(JSON.parse(data.join('\n')));
  }
  return { messages, comments, ids, retries };
}

function lower(headers: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** The built CLI serving over HTTP as a child process, with the URL it printed on stderr. */
export interface ServedCli {
  readonly url: string;
  readonly child: ChildProcessWithoutNullStreams;
  stderr(): string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The listening line, as text or as a `--log-format json` line. */
export const LISTENING =
  /^(?:mcp-run: listening on (http:\/\/\S+)|\{.*"msg":"listening on (http:\/\/[^"\s]+)".*\})$/m;

export async function spawnHttpCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ServedCli> {
  const child = spawn(process.execPath, [CLI, ...args, '--http', '--port', '0'], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: 'pipe',
  });
  let stderr = '';
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 15 s; stderr:\n${stderr}`)), 15_000);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = LISTENING.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve((match[1] ?? match[2])!);
      }
    });
    void exited.then((code) => reject(new Error(`exited with ${code} before listening; stderr:\n${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** A tool whose arguments are mirrored into `Mcp-Param-*` headers; it echoes its arguments. */
export const ROUTED_TOOL: CatalogTool = {
  descriptor: {
    name: 'routed',
    description: 'Echoes its arguments.',
    inputSchema: {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        count: { type: 'integer', 'x-mcp-header': 'Count' },
        options: { type: 'object', properties: { fast: { type: 'boolean', 'x-mcp-header': 'Fast' } } },
      },
    },
  },
  call: async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
};
