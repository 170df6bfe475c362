/**
 * The playground's MCP client: JSON-RPC over fetch to the endpoint of this origin, in either era.
 *
 * - 2025-11-25: `initialize` + `notifications/initialized`, the `Mcp-Session-Id` on every request,
 *   a GET stream for unsolicited notifications and requests, server → client requests (elicitation,
 *   sampling, roots) answered with a POST of the response, cancellation by `notifications/cancelled`.
 * - 2026-07-28: no handshake; the `_meta` envelope and the `MCP-Protocol-Version`, `Mcp-Method`,
 *   `Mcp-Name` (and `Mcp-Param-*`) headers on every request, change notifications on a
 *   `subscriptions/listen` stream, interaction by `input_required` results answered on a retry with
 *   `inputResponses` and the `requestState` echoed, cancellation by closing the response stream.
 *
 * Every message either way goes to the trace with its time. The first catalog is read with
 * synchronous requests (`connectSync`, `requestSync`), so the page's first paint, before its load
 * event, already lists it (`chromium --dump-dom` sees the tools); everything after is asynchronous.
 */

export type Era = '2025-11-25' | '2026-07-28';
export const ERAS: readonly Era[] = ['2025-11-25', '2026-07-28'];

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC messages are whatever JSON the peer sent
export type Json = any;

export interface TraceEntry {
  readonly seq: number;
  readonly dir: 'out' | 'in';
  /** Milliseconds since the page started. */
  readonly at: number;
  readonly message: Json;
  /** An answer: how long after its request. */
  readonly ms?: number;
  /** What carried it: `POST 200 event-stream`, `GET stream`, `listen stream`. */
  readonly via: string;
  /** A request sent: its HTTP headers (for "copy as curl"). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly era: Era;
}

export interface CallHooks {
  readonly signal?: AbortSignal;
  onProgress?(progress: number, total: number | undefined, message: string | undefined): void;
}

/** The page answers the server's questions (elicitation, sampling, roots) with these. */
export type AskUser = (method: string, params: Json) => Promise<Json>;

export interface ClientEvents {
  trace(entry: TraceEntry): void;
  /** A notification that is not about one request: list changes, resource updates, logs. */
  notification(message: Json): void;
  ask: AskUser;
}

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export class Cancelled extends Error {
  constructor() {
    super('cancelled');
  }
}

const CLIENT_INFO = { name: 'mcp-run-dev-playground', version: '1' };
const STARTED = performance.now();
const now = () => Math.round(performance.now() - STARTED);
let traceSeq = 0;

interface Sent {
  readonly at: number;
}

export class McpClient {
  private nextId = 1;
  private sessionId: string | undefined;
  private readonly sent = new Map<string | number, Sent>();
  private readonly streams = new AbortController();
  private closed = false;
  /** Tools by name: their schemas name the `Mcp-Param-*` headers (2026). */
  toolSchemas = new Map<string, Json>();
  serverInfo: Json = undefined;
  capabilities: Json = {};
  instructions: string | undefined;

  constructor(
    readonly era: Era,
    readonly endpoint: string,
    private readonly events: ClientEvents,
  ) {}

  get modern(): boolean {
    return this.era === '2026-07-28';
  }

  private capabilitiesSent(): Json {
    const elicitation = { form: {}, url: {} };
    // The page shows MCP Apps views (app-view.tsx), so it sees their _meta and the app-only tools.
    const extensions = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };
    return this.modern
      ? { roots: {}, sampling: {}, elicitation, extensions }
      : { roots: { listChanged: true }, sampling: {}, elicitation, extensions };
  }

  /** The request as sent: the envelope in 2026, a progress token where asked. */
  private build(method: string, params: Json, progressToken?: string): Json {
    const id = this.nextId++;
    const meta: Json = { ...params?._meta };
    if (progressToken !== undefined) meta.progressToken = progressToken;
    if (this.modern) {
      meta['io.modelcontextprotocol/protocolVersion'] = this.era;
      meta['io.modelcontextprotocol/clientCapabilities'] = this.capabilitiesSent();
      meta['io.modelcontextprotocol/clientInfo'] = CLIENT_INFO;
      meta['io.modelcontextprotocol/logLevel'] = 'debug';
    }
    const withMeta = Object.keys(meta).length > 0 ? { ...params, _meta: meta } : params;
    return { jsonrpc: '2.0', id, method, ...(withMeta !== undefined && { params: withMeta }) };
  }

  /** The headers of one POST. */
  private headersFor(message: Json): Record<string, string> {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    };
    if (this.modern) {
      headers['MCP-Protocol-Version'] = this.era;
      if (message.method !== undefined) headers['Mcp-Method'] = message.method;
      const p = message.params ?? {};
      if (['tools/call', 'prompts/get'].includes(message.method) && typeof p.name === 'string')
        headers['Mcp-Name'] = headerValue(p.name);
      if (message.method === 'resources/read' && typeof p.uri === 'string')
        headers['Mcp-Name'] = headerValue(p.uri);
      if (message.method === 'tools/call')
        Object.assign(headers, paramHeaders(this.toolSchemas.get(p.name), p.arguments));
    } else if (message.method !== 'initialize') {
      headers['MCP-Protocol-Version'] = this.era;
      if (this.sessionId !== undefined) headers['Mcp-Session-Id'] = this.sessionId;
    }
    return headers;
  }

  private traceOut(message: Json, headers: Record<string, string>, via: string): void {
    if (message.id !== undefined && message.method !== undefined) this.sent.set(message.id, { at: now() });
    this.events.trace({ seq: ++traceSeq, dir: 'out', at: now(), message, via, headers, era: this.era });
  }

  private traceIn(message: Json, via: string): void {
    const request = message.method === undefined ? this.sent.get(message.id) : undefined;
    if (request) this.sent.delete(message.id);
    this.events.trace({
      seq: ++traceSeq,
      dir: 'in',
      at: now(),
      message,
      via,
      era: this.era,
      ...(request && { ms: now() - request.at }),
    });
  }

  // ---- synchronous: the first paint ----

  /** The handshake (2025) or `server/discover` (2026), synchronously. */
  connectSync(): void {
    if (this.modern) {
      const discovered = this.requestSync('server/discover', {});
      this.capabilities = discovered.capabilities ?? {};
      this.instructions = discovered.instructions;
      this.serverInfo = discovered._meta?.['io.modelcontextprotocol/serverInfo'];
      return;
    }
    const init = this.requestSync('initialize', {
      protocolVersion: this.era,
      capabilities: this.capabilitiesSent(),
      clientInfo: CLIENT_INFO,
    });
    this.capabilities = init.capabilities ?? {};
    this.serverInfo = init.serverInfo;
    this.instructions = init.instructions;
    this.notifySync('notifications/initialized');
    if (this.capabilities.logging) this.requestSync('logging/setLevel', { level: 'debug' });
  }

  requestSync(method: string, params: Json): Json {
    const message = this.build(method, params);
    const answer = this.postSync(message).find((m) => m.id === message.id && m.method === undefined);
    if (answer === undefined) throw new Error(`no answer to ${method}`);
    if (answer.error) throw new RpcError(answer.error.code, answer.error.message, answer.error.data);
    return answer.result;
  }

  private notifySync(method: string): void {
    this.postSync({ jsonrpc: '2.0', method });
  }

  private postSync(message: Json): Json[] {
    const headers = this.headersFor(message);
    this.traceOut(message, headers, 'POST');
    const xhr = new XMLHttpRequest();
    xhr.open('POST', this.endpoint, false);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.send(JSON.stringify(message));
    const session = xhr.getResponseHeader('mcp-session-id');
    if (session && message.method === 'initialize') this.sessionId = session;
    const type = xhr.getResponseHeader('content-type') ?? '';
    const via = `POST ${xhr.status}${type ? ` ${shortType(type)}` : ''}`;
    if (xhr.status === 202 || xhr.responseText === '') return [];
    const messages = type.startsWith('text/event-stream')
      ? parseSseText(xhr.responseText)
          .map((e) => e.data)
          .filter(Boolean)
          .map((d) => JSON.parse(d))
      : [JSON.parse(xhr.responseText)];
    for (const m of messages) this.traceIn(m, via);
    return messages;
  }

  // ---- asynchronous ----

  /**
   * One request and its final answer. Server requests on its stream are answered through `ask`;
   * a 2026 `input_required` result is answered the same way and the request retried.
   */
  async request(method: string, params: Json, hooks: CallHooks = {}): Promise<Json> {
    let current = params;
    for (let round = 0; round < 10; round++) {
      const result = await this.requestOnce(method, current, hooks);
      if (!this.modern || result?.resultType !== 'input_required') return result;
      const inputResponses: Json = {};
      for (const [key, ask] of Object.entries<Json>(result.inputRequests ?? {})) {
        inputResponses[key] = await this.events.ask(ask.method, ask.params);
        if (hooks.signal?.aborted) throw new Cancelled();
      }
      const { inputResponses: _r, requestState: _s, ...rest } = current;
      current = {
        ...rest,
        ...(Object.keys(inputResponses).length > 0 && { inputResponses }),
        ...(result.requestState !== undefined && { requestState: result.requestState }),
      };
    }
    throw new Error(`${method}: more than 10 rounds of input_required`);
  }

  private async requestOnce(method: string, params: Json, hooks: CallHooks): Promise<Json> {
    const token = hooks.onProgress ? `progress-${this.nextId}` : undefined;
    const message = this.build(method, params, token);
    const headers = this.headersFor(message);
    const abort = new AbortController();
    const onAbort = () => {
      // 2025: the client says so; 2026 over HTTP: closing the stream is the cancellation.
      if (!this.modern)
        void this.notify('notifications/cancelled', {
          requestId: message.id,
          reason: 'cancelled in the playground',
        });
      abort.abort();
    };
    if (hooks.signal?.aborted) throw new Cancelled();
    hooks.signal?.addEventListener('abort', onAbort, { once: true });
    this.traceOut(message, headers, 'POST');
    try {
      const res = await fetch(this.endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify(message),
        signal: abort.signal,
      });
      const type = res.headers.get('content-type') ?? '';
      const via = `POST ${res.status}${type ? ` ${shortType(type)}` : ''}`;
      let answer: Json;
      const take = (m: Json) => {
        this.traceIn(m, via);
        if (m.method === undefined && m.id === message.id) answer = m;
        else if (m.method !== undefined && m.id !== undefined) void this.answerServer(m);
        else if (m.method === 'notifications/progress' && m.params?.progressToken === token)
          hooks.onProgress?.(m.params.progress, m.params.total, m.params.message);
        else if (m.method !== undefined) this.events.notification(m);
      };
      if (type.startsWith('text/event-stream') && res.body) {
        await readSse(res.body, (e) => {
          if (e.data) take(JSON.parse(e.data));
          return answer !== undefined;
        });
      } else {
        const text = await res.text();
        if (text) take(JSON.parse(text));
      }
      if (answer === undefined) {
        if (hooks.signal?.aborted) throw new Cancelled();
        throw new Error(`${method}: HTTP ${res.status} without an answer`);
      }
      if (answer.error) throw new RpcError(answer.error.code, answer.error.message, answer.error.data);
      return answer.result;
    } catch (err) {
      if (hooks.signal?.aborted) throw new Cancelled();
      throw err;
    } finally {
      hooks.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** A server → client request (2025): ask the page, POST the answer. */
  private async answerServer(request: Json): Promise<void> {
    let reply: Json;
    try {
      reply = {
        jsonrpc: '2.0',
        id: request.id,
        result: await this.events.ask(request.method, request.params),
      };
    } catch (err) {
      reply = { jsonrpc: '2.0', id: request.id, error: { code: -32603, message: (err as Error).message } };
    }
    await this.postQuietly(reply);
  }

  async notify(method: string, params?: Json): Promise<void> {
    await this.postQuietly({ jsonrpc: '2.0', method, ...(params !== undefined && { params }) });
  }

  private async postQuietly(message: Json): Promise<void> {
    const headers = this.headersFor(message);
    this.traceOut(message, headers, 'POST');
    await fetch(this.endpoint, { method: 'POST', headers, body: JSON.stringify(message) }).catch(
      () => undefined,
    );
  }

  /** The stream of unsolicited messages: the GET stream (2025) or `subscriptions/listen` (2026). */
  startStreams(): void {
    void this.keepStreaming();
  }

  private async keepStreaming(): Promise<void> {
    while (!this.closed) {
      try {
        if (this.modern) await this.listen();
        else await this.getStream();
      } catch {
        // Dropped (a restart, a closed laptop lid): open it again below.
      }
      if (this.closed) return;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  private async getStream(): Promise<void> {
    const headers: Record<string, string> = {
      Accept: 'text/event-stream',
      'MCP-Protocol-Version': this.era,
      ...(this.sessionId !== undefined && { 'Mcp-Session-Id': this.sessionId }),
    };
    const res = await fetch(this.endpoint, { method: 'GET', headers, signal: this.streams.signal });
    if (!res.ok || !res.body) throw new Error(`GET stream: HTTP ${res.status}`);
    await readSse(res.body, (e) => {
      if (!e.data) return false;
      const m = JSON.parse(e.data);
      this.traceIn(m, 'GET stream');
      if (m.method !== undefined && m.id !== undefined) void this.answerServer(m);
      else if (m.method !== undefined) this.events.notification(m);
      return false;
    });
  }

  private async listen(): Promise<void> {
    const message = this.build('subscriptions/listen', {
      notifications: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
    });
    const headers = this.headersFor(message);
    this.traceOut(message, headers, 'POST');
    const res = await fetch(this.endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify(message),
      signal: this.streams.signal,
    });
    if (!res.ok || !res.body) throw new Error(`listen: HTTP ${res.status}`);
    await readSse(res.body, (e) => {
      if (!e.data) return false;
      const m = JSON.parse(e.data);
      this.traceIn(m, 'listen stream');
      if (m.method !== undefined) this.events.notification(m);
      return m.method === undefined;
    });
  }

  /** Ends the streams and, in 2025, the session (DELETE). */
  async close(): Promise<void> {
    this.closed = true;
    this.streams.abort();
    if (!this.modern && this.sessionId !== undefined) {
      await fetch(this.endpoint, {
        method: 'DELETE',
        headers: { 'Mcp-Session-Id': this.sessionId, 'MCP-Protocol-Version': this.era },
      }).catch(() => undefined);
    }
  }
}

// ---- SSE ----

interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

export function parseSseText(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const e = parseBlock(block);
    if (e) events.push(e);
  }
  return events;
}

function parseBlock(block: string): SseEvent | undefined {
  const data: string[] = [];
  const e: SseEvent = { data: '' };
  let any = false;
  for (const line of block.split(/\r?\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    any = true;
    if (field === 'data') data.push(value);
    else if (field === 'event') e.event = value;
    else if (field === 'id') e.id = value;
  }
  e.data = data.join('\n');
  return any ? e : undefined;
}

/** Reads an SSE body, event by event, until it ends or `onEvent` returns true. */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  onEvent: (e: SseEvent) => boolean,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let end = boundary(buffer); end !== undefined; end = boundary(buffer)) {
        const block = buffer.slice(0, end.at);
        buffer = buffer.slice(end.at + end.length);
        const e = parseBlock(block);
        if (e && onEvent(e)) return;
      }
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

function boundary(text: string): { at: number; length: number } | undefined {
  const match = /\r?\n\r?\n/.exec(text);
  return match ? { at: match.index, length: match[0].length } : undefined;
}

const shortType = (type: string) =>
  type.startsWith('text/event-stream') ? 'event-stream' : type.split(';')[0];

// ---- 2026 headers ----

/** A header value as the 2026 transport wants it: safe ASCII as is, anything else base64 in the sentinel. */
export function headerValue(value: string): string {
  if (/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !value.startsWith('=?base64?')) return value;
  const bytes = new TextEncoder().encode(value);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return `=?base64?${btoa(binary)}?=`;
}

/** `Mcp-Param-X` for each top-level argument whose schema says `x-mcp-header: X`. */
function paramHeaders(schema: Json, args: Json): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, property] of Object.entries<Json>(schema?.properties ?? {})) {
    const header = property?.['x-mcp-header'];
    const value = args?.[name];
    if (typeof header === 'string' && value !== undefined && value !== null)
      out[`Mcp-Param-${header}`] = headerValue(String(value));
  }
  return out;
}
