/**
 * mcp-run's own client of one upstream MCP server, over a channel (stdio-channel.ts, http-channel.ts):
 * the 2025 handshake or the 2026-07-28 stateless era (`open`, modern.ts), requests correlated by id, a time limit per request, cancellation, progress and
 * log notifications routed to the call they belong to, and the server's own requests answered.
 *
 * Everything the upstream sends is data: it is parsed as JSON, checked for shape before use, and
 * never evaluated or written into the manifest's syntax. A message is bounded by the channel (a
 * line or an HTTP body over `maxMessageBytes` is dropped); a result over `maxResultBytes` fails its
 * request. Requests from the server (sampling, elicitation) go to the `onRequest` of the call they
 * are about: the request whose HTTP answer (SSE stream) carried them, or over stdio (which carries
 * no link) the one call in flight that has a handler; with none, or several, they are answered
 * with a JSON-RPC error, never sent to another caller. `roots/list` is answered here, with the
 * source's roots (ClientOptions.roots), never a caller's.
 */
import { escapeControls } from '../../util/escape-controls.js';
import { isObject } from '../../util/is-object.js';
import { isRequestId, JsonRpcCode, notification, type RequestId } from '../../util/jsonrpc.js';
import type { CallerIdentity, LogLevel } from '../contract/types.js';
import { discovered, type Era, enveloped, MAX_ROUNDS, MODERN_VERSION, readResult } from './modern.js';

/** The notifications that say an upstream's lists changed: these names exactly, nothing else. */
const LIST_CHANGED: ReadonlySet<string> = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
]);

/** What we ask for first; the server answers with the version it speaks. */
export const CLIENT_PROTOCOL_VERSION = '2025-11-25';
/** The versions this client speaks (the 2025 era's; 2024-11-05 differs only in what we do not use). */
export const SUPPORTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

/** One message sent, with what the HTTP channel needs to send it. */
export interface Outgoing {
  readonly message: object;
  /** For a channel whose credentials are per caller (a token exchange); stdio ignores it. */
  readonly identity?: CallerIdentity | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Headers of this request alone (2026 HTTP: `Mcp-Param-*`); stdio ignores them. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/** A way to one upstream: stdio (a process) or Streamable HTTP. */
export interface Channel {
  /** Rejects when the message could not be delivered (the request it carried then fails). */
  send(out: Outgoing): Promise<void>;
  /** Tells the channel what the handshake agreed (the HTTP channel sends it as a header). */
  negotiated(version: string): void;
  close(): Promise<void>;
}

/** What a channel reports: each parsed message with its size, and its end. */
export interface ChannelEvents {
  /**
   * `related`: the request whose answer carried the message (an HTTP POST's SSE stream), when the
   * channel knows it; its progress and logs are then that request's.
   */
  message(message: unknown, bytes: number, related?: RequestId): void;
  /** The channel is gone (the process exited, the session expired); `reason` is a sentence. */
  closed(reason: string): void;
}

/** A JSON-RPC error the upstream answered; its message is the upstream's, data to show as data. */
export class UpstreamError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

export interface RequestOptions {
  readonly signal?: AbortSignal | undefined;
  readonly timeoutMs: number;
  readonly identity?: CallerIdentity | undefined;
  /** Headers of this request alone, over HTTP (a 2026 call's `Mcp-Param-*`, modern.ts). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** Progress notifications for this request (a progressToken is sent only with it). */
  readonly onProgress?: ((progress: number, total?: number, message?: string) => void) | undefined;
  /** The upstream's log messages about this request (when the channel can tell which they are). */
  readonly onLog?: ((level: LogLevel, data: unknown, logger: string | undefined) => void) | undefined;
  /** The upstream's own requests about this call (sampling, elicitation): a result, or a throw. */
  readonly onRequest?: ((method: string, params: unknown) => Promise<unknown>) | undefined;
}

interface Pending {
  readonly onRequest: RequestOptions['onRequest'];
  readonly method: string;
  readonly resolve: (result: unknown) => void;
  readonly reject: (err: Error) => void;
  readonly onProgress: RequestOptions['onProgress'];
  readonly onLog: RequestOptions['onLog'];
}

export interface ClientOptions {
  /** The source's name, for messages. */
  readonly name: string;
  readonly maxResultBytes: number;
  /** A log notification from the upstream. */
  readonly onLog: (level: LogLevel, data: unknown, logger: string | undefined) => void;
  /** `notifications/*_list_changed`: a hook for the re-read that a later step adds. */
  readonly onListChanged?: (method: string) => void;
  /** `notifications/resources/updated` for a URI (the upstream's), for the source's followers. */
  readonly onResourceUpdated?: (uri: string) => void;
  /**
   * The source's `roots:`, answered to the upstream's `roots/list` by mcp-run itself; undefined:
   * no `roots` capability is declared. Never a caller's: one upstream session serves every caller,
   * and an upstream such as server-filesystem takes the answer as its allowed folders for all.
   */
  readonly roots?: readonly Root[];
}

/** One root as `roots/list` answers it. */
export interface Root {
  readonly uri: string;
  readonly name?: string;
}

/** How much of an upstream's error message is kept. */
const MAX_ERROR_CHARS = 2000;

const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

export class McpClient {
  private nextId = 1;
  private readonly pending = new Map<RequestId, Pending>();
  private channel: Channel | undefined;
  private closedReason: string | undefined;
  /** What the server answered to initialize (or `server/discover`: 2026-07-28). */
  protocolVersion = CLIENT_PROTOCOL_VERSION;
  capabilities: Record<string, unknown> = {};
  /** The era spoken: 2025 (initialize, a session) or 2026 (stateless, modern.ts). */
  era: '2025' | '2026' = '2025';

  constructor(private readonly options: ClientOptions) {}

  /** The events to hand the channel this client reads. */
  readonly events: ChannelEvents = {
    message: (message, bytes, related) => this.receive(message, bytes, related),
    closed: (reason) => this.closed(reason),
  };

  get alive(): boolean {
    return this.closedReason === undefined;
  }

  /**
   * The era's start: `2026` asks `server/discover` (and fails without a 2026-07-28 answer), `2025`
   * initializes, `auto` asks `server/discover` and falls back to initialize when the answer is not
   * a 2026-07-28 one (an error, an HTTP error status, anything else). Within `timeoutMs` in all.
   */
  async open(channel: Channel, era: Era, timeoutMs: number): Promise<void> {
    this.channel = channel;
    const deadline = Date.now() + timeoutMs;
    if (era !== '2025') {
      let why: string;
      try {
        // auto: half the time at most, so that a 2025 upstream that never answers the probe leaves
        // its initialize the other half.
        const probeMs = era === 'auto' ? Math.ceil(timeoutMs / 2) : timeoutMs;
        const result = await this.send('server/discover', enveloped({}, false, false), {
          timeoutMs: probeMs,
        });
        const found = discovered(result);
        if (found !== undefined) {
          this.era = '2026';
          this.protocolVersion = MODERN_VERSION;
          this.capabilities = found.capabilities;
          channel.negotiated(MODERN_VERSION);
          return;
        }
        why = `its server/discover answer does not name ${MODERN_VERSION}`;
      } catch (err) {
        why = (err as Error).message;
      }
      if (era === '2026')
        throw new Error(`${this.options.name} does not speak ${MODERN_VERSION} (era: 2026): ${why}`);
    }
    try {
      await this.initialize(channel, Math.max(1, deadline - Date.now()));
    } catch (err) {
      if (era !== '2025') throw err;
      throw new Error(
        `${(err as Error).message} (era: 2025 initializes; an upstream that speaks only ${MODERN_VERSION} refuses that: set era: auto or 2026)`,
      );
    }
  }

  /** The 2025 handshake: initialize, then notifications/initialized. */
  async initialize(channel: Channel, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    this.channel = channel;
    const result = await this.request(
      'initialize',
      {
        protocolVersion: CLIENT_PROTOCOL_VERSION,
        // Declared so that upstreams offer what needs them; each request is relayed only to a caller
        // that declared it too, and refused otherwise (source.ts). Roots only when the source
        // names them: mcp-run answers those itself.
        capabilities: {
          elicitation: {},
          sampling: {},
          ...(this.options.roots !== undefined && { roots: {} }),
        },
        clientInfo: { name: 'mcp-run', version: '1' },
      },
      { timeoutMs, signal },
    );
    const version = isObject(result) ? result.protocolVersion : undefined;
    if (typeof version !== 'string' || !(SUPPORTED_VERSIONS as readonly string[]).includes(version))
      throw new Error(
        `${this.options.name} answered initialize with protocol version ${escapeControls(String(JSON.stringify(version)).slice(0, 100))}, which mcp-run does not speak (it speaks ${SUPPORTED_VERSIONS.join(', ')})`,
      );
    this.protocolVersion = version;
    const caps = isObject(result) ? result.capabilities : undefined;
    this.capabilities = isObject(caps) ? caps : {};
    channel.negotiated(version);
    await channel.send({ message: notification('notifications/initialized') });
  }

  /**
   * One request and its result. In the 2026 era it carries the envelope, and an `input_required`
   * result is answered through `onRequest` and the request sent again (modern.ts), within
   * `timeoutMs` for all its rounds.
   */
  async request(method: string, params: object, options: RequestOptions): Promise<unknown> {
    if (this.era !== '2026') return this.send(method, params, options);
    const deadline = Date.now() + options.timeoutMs;
    const relays = options.onRequest !== undefined;
    let retry: Record<string, unknown> = {};
    for (let round = 1; ; round++) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`${this.options.name} did not answer ${method} within ${options.timeoutMs} ms`);
      const result = await this.send(
        method,
        enveloped(
          { ...(params as Record<string, unknown>), ...retry },
          relays,
          options.onLog !== undefined,
          this.options.roots !== undefined,
        ),
        { ...options, timeoutMs: left },
      );
      const read = readResult(result, `${this.options.name}'s answer to ${method}`);
      if (read.kind === 'complete') return result;
      if (read.kind === 'invalid') throw new Error(read.reason);
      if (round >= MAX_ROUNDS)
        throw new Error(
          `${this.options.name} asked for input on ${method} ${MAX_ROUNDS} times; mcp-run stopped there`,
        );
      const answers: Record<string, unknown> = {};
      for (const question of read.questions) {
        if (question.method === 'roots/list') {
          // The source's roots, never a caller's (rootsAnswer); without `roots:`, the call ends.
          try {
            answers[question.key] = this.rootsAnswer();
          } catch (err) {
            throw new Error(
              `${this.options.name} asked for roots/list, which could not be answered: ${(err as Error).message}`,
            );
          }
          continue;
        }
        if (options.onRequest === undefined)
          throw new Error(
            `${this.options.name} asked for input (${escapeControls(question.method.slice(0, 100))}) on ${method}, which mcp-run relays only during a tool call`,
          );
        try {
          answers[question.key] = await options.onRequest(question.method, question.params);
        } catch (err) {
          // MRTR has no error answer: the call ends with the reason.
          throw new Error(
            `${this.options.name} asked for ${escapeControls(question.method.slice(0, 100))}, which could not be answered: ${(err as Error).message}`,
          );
        }
      }
      retry = {
        ...(read.questions.length > 0 && { inputResponses: answers }),
        ...(read.requestState !== undefined && { requestState: read.requestState }),
      };
    }
  }

  /** One JSON-RPC request on the channel, correlated by id, within its time limit. */
  private send(method: string, params: object, options: RequestOptions): Promise<unknown> {
    const channel = this.channel;
    if (this.closedReason !== undefined || channel === undefined)
      return Promise.reject(new Error(this.closedReason ?? `${this.options.name} is not connected`));
    if (options.signal?.aborted) return Promise.reject(cancelled(method));
    const id = this.nextId++;
    const meta = (params as { _meta?: unknown })._meta;
    const withToken =
      options.onProgress === undefined
        ? params
        : { ...params, _meta: { ...(isObject(meta) ? meta : {}), progressToken: `mcp-run-${id}` } };
    // 2026 over HTTP: closing the answer's stream is the cancellation (no notifications/cancelled).
    const modern = isObject(meta) && this.era === '2026';
    const streamEnd = modern ? new AbortController() : undefined;
    return new Promise<unknown>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
      };
      const stop = (err: Error, reason: string) => {
        if (!this.pending.has(id)) return;
        done();
        // The upstream is told, so that it stops the work (notifications/cancelled; 2026: the stream closed).
        if (streamEnd !== undefined) streamEnd.abort();
        else
          void channel
            .send({ message: notification('notifications/cancelled', { requestId: id, reason }) })
            .catch(() => {});
        reject(err);
      };
      const onAbort = () => stop(cancelled(method), 'The caller cancelled the request.');
      this.pending.set(id, {
        method,
        resolve: (result) => {
          done();
          resolve(result);
        },
        reject: (err) => {
          done();
          reject(err);
        },
        onProgress: options.onProgress,
        onLog: options.onLog,
        onRequest: options.onRequest,
      });
      timer = setTimeout(
        () =>
          stop(
            new Error(`${this.options.name} did not answer ${method} within ${options.timeoutMs} ms`),
            'Timed out.',
          ),
        options.timeoutMs,
      );
      options.signal?.addEventListener('abort', onAbort, { once: true });
      channel
        .send({
          message: { jsonrpc: '2.0', id, method, params: withToken },
          identity: options.identity,
          headers: options.headers,
          signal:
            streamEnd === undefined
              ? options.signal
              : options.signal
                ? AbortSignal.any([options.signal, streamEnd.signal])
                : streamEnd.signal,
        })
        .catch((err: Error) => this.pending.get(id)?.reject(err));
    });
  }

  /** Fails every request in flight: the channel is gone. */
  private closed(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    for (const pending of [...this.pending.values()]) pending.reject(new Error(reason));
  }

  /** Whether it answers now (for /readyz): `ping`, or in the 2026 era (no ping) `server/discover`. */
  async ping(signal: AbortSignal): Promise<void> {
    await this.request(this.era === '2026' ? 'server/discover' : 'ping', {}, { signal, timeoutMs: 2000 });
  }

  async close(reason: string): Promise<void> {
    this.closed(reason);
    await this.channel?.close();
  }

  private receive(message: unknown, bytes: number, related?: RequestId): void {
    if (!isObject(message)) return;
    const { id, method } = message;
    if (typeof method === 'string') {
      if (id === undefined) this.notified(method, message.params, related);
      else if (isRequestId(id)) void this.answer(id, method, message.params, related);
      return;
    }
    if (!isRequestId(id)) return;
    const pending = this.pending.get(id);
    if (!pending) return; // late (cancelled, timed out): dropped
    const error = message.error;
    if (isObject(error)) {
      const code = typeof error.code === 'number' ? error.code : JsonRpcCode.InternalError;
      // Shown to the model as data and written into logs: a long one is cut (the whole answer was
      // already bounded), its control characters escaped.
      const text =
        typeof error.message === 'string'
          ? escapeControls(error.message.slice(0, MAX_ERROR_CHARS))
          : 'no message';
      pending.reject(new UpstreamError(code, text));
    } else if (bytes > this.options.maxResultBytes)
      pending.reject(
        new Error(
          `${this.options.name} answered ${pending.method} with ${bytes} bytes, over this source's maxResultBytes (${this.options.maxResultBytes})`,
        ),
      );
    else pending.resolve(message.result);
  }

  private notified(method: string, params: unknown, related: RequestId | undefined): void {
    const p = isObject(params) ? params : {};
    if (method === 'notifications/progress') {
      const token = p.progressToken;
      const id =
        typeof token === 'string' && token.startsWith('mcp-run-') ? Number(token.slice(8)) : Number.NaN;
      const pending = this.pending.get(id);
      if (pending?.onProgress && typeof p.progress === 'number')
        pending.onProgress(
          p.progress,
          typeof p.total === 'number' ? p.total : undefined,
          typeof p.message === 'string' ? p.message : undefined,
        );
    } else if (method === 'notifications/message') {
      const level = typeof p.level === 'string' && LOG_LEVELS.has(p.level) ? (p.level as LogLevel) : 'info';
      const logger = typeof p.logger === 'string' ? p.logger : undefined;
      const onLog = related === undefined ? undefined : this.pending.get(related)?.onLog;
      (onLog ?? this.options.onLog)(level, p.data, logger);
    } else if (LIST_CHANGED.has(method)) this.options.onListChanged?.(method);
    else if (method === 'notifications/resources/updated' && typeof p.uri === 'string')
      this.options.onResourceUpdated?.(p.uri);
  }

  /** A request from the server: `ping` is answered here, the rest by the call it is about. */
  private async answer(id: RequestId, method: string, params: unknown, related?: RequestId): Promise<void> {
    let reply: object;
    try {
      const result =
        method === 'ping'
          ? {}
          : method === 'roots/list'
            ? this.rootsAnswer()
            : await this.handlerFor(method, related)(method, params);
      reply = { jsonrpc: '2.0', id, result };
    } catch (err) {
      const code = err instanceof UpstreamError ? err.code : JsonRpcCode.InternalError;
      reply = { jsonrpc: '2.0', id, error: { code, message: (err as Error).message } };
    }
    await this.channel?.send({ message: reply }).catch(() => {});
  }

  /** `roots/list`: the source's roots, never a caller's; -32601 when the source names none. */
  private rootsAnswer(): { roots: Root[] } {
    const roots = this.options.roots;
    if (roots === undefined)
      throw new UpstreamError(
        JsonRpcCode.MethodNotFound,
        'mcp-run declared no roots to this upstream (the source has no `roots:`)',
      );
    return { roots: roots.map((root) => ({ ...root })) };
  }

  private handlerFor(
    method: string,
    related: RequestId | undefined,
  ): (method: string, params: unknown) => Promise<unknown> {
    const refuse = (message: string) => () =>
      Promise.reject(new UpstreamError(JsonRpcCode.MethodNotFound, message));
    if (related !== undefined)
      return this.pending.get(related)?.onRequest ?? refuse(`mcp-run does not relay ${method} here`);
    // Not tied to a request (stdio never is): relayed only when it can be about one thing, the one
    // request in flight, and that is a call that relays. A read or a get in flight beside a call
    // (they relay nothing) makes it another caller's question as likely as that call's.
    const inFlight = [...this.pending.values()];
    const only = inFlight.length === 1 ? inFlight[0]!.onRequest : undefined;
    if (only !== undefined) return only;
    return refuse(
      inFlight.length <= 1
        ? `mcp-run relays ${method} only during a tool call`
        : `mcp-run cannot tell which of its ${inFlight.length} requests in flight ${method} is about, so it relays it to none`,
    );
  }
}

function cancelled(method: string): Error {
  const err = new Error(`${method} was cancelled`);
  err.name = 'AbortError';
  return err;
}
