/**
 * The Streamable HTTP transport (digest §6.2, §6.3) on node:http: one endpoint serving both protocol
 * eras. A POST carrying the 2026 `_meta` envelope (or a 2026 `MCP-Protocol-Version` header) is served
 * statelessly; everything else is the 2025 era, with sessions minted by `initialize`. GET and DELETE
 * exist only for 2025 sessions.
 *
 * Every request passes, in order: shutdown (503), Host and Origin (403, DNS rebinding), the path
 * (404), CORS preflight, authentication (401), then the method's own checks (Accept 406,
 * Content-Type 415, body size 413, JSON 400). Safe by default: loopback bind, loopback Host/Origin.
 *
 * Shutdown (`close(graceMs)`): stop accepting connections, answer 503 to requests on open ones, end
 * every listen stream with its final result, let requests in flight finish within the grace period,
 * answer each one still running then with an error (the drain of ../drain.ts, shared with stdio),
 * then end the 2025 sessions and their GET streams and drop what is left.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { problems } from '../../errors.js';
import type { CallLimits } from '../../governance/limits/gate.js';
import { GovernanceRefusal } from '../../governance/refusal.js';
import { type Logger, withLogFields } from '../../log.js';
import { describeMessage, observesRequests, ops, withTraceparent } from '../../ops/hooks.js';
import { servedStatelessly } from '../../protocol/classify.js';
import { ErrorCode } from '../../protocol/jsonrpc.js';
import type { Protocol } from '../../protocol/server.js';
import type { SharedState } from '../../state/shared.js';
import { LiveSet } from '../../util/live-set.js';
import { settleWithin } from '../../util/with-timeout.js';
import { drain } from '../drain.js';
import { Authenticator, type AuthOptions, type Principal } from './auth.js';
import {
  accepts,
  answerPreflight,
  corsHeaders,
  Guards,
  isJsonContentType,
  isLoopbackHost,
  urlHost,
} from './guards.js';
import { type LegacyContext, serveLegacyDelete, serveLegacyGet, serveLegacyPost } from './legacy.js';
import { type ModernContext, serveModernPost } from './modern.js';
import { metadataPaths, metadataUrl } from './oauth/metadata.js';
import { accessOf, missingScopes, scopesNeeded } from './oauth/scopes.js';
import { ExchangeResponse } from './response.js';
import { clientKey, SessionStore } from './sessions.js';
import { SharedSessions } from './shared-sessions.js';
import { isSseStream } from './sse.js';
import { REPLAY_DEFAULTS, type ReplayLimits } from './streams.js';
import { header, ProblemError, readBody, sendError, sendJson } from './wire.js';

export { type AuthOptions, authFromEnv, type OAuthOptions, type ScopePolicy } from './auth.js';
export { ProblemError } from './wire.js';

export interface HttpOptions {
  readonly log: Logger;
  /** `server.limits.requests` of the catalog serving now (it follows reloads); undefined: none. */
  readonly requestLimit?: () => CallLimits | undefined;
  /** TCP port; 0 picks a free one (read it from `url`). Default 3000. */
  readonly port?: number;
  /** Address to bind. Default 127.0.0.1; anything beyond loopback is logged as a warning without auth. */
  readonly host?: string;
  /** The one MCP endpoint. Default /mcp. */
  readonly path?: string;
  /** Host names accepted besides the loopback names and the bind address (`name` or `name:port`). */
  readonly allowedHosts?: readonly string[];
  /** Browser origins accepted besides loopback ones, e.g. `https://app.example.com`. */
  readonly allowedOrigins?: readonly string[];
  /** Bearer tokens, API keys and/or OAuth access tokens; when any is set, every request must carry one. */
  readonly auth?: AuthOptions;
  /** Largest accepted POST body. Default 4 MiB. */
  readonly maxBodyBytes?: number;
  /** A 2025 session with no GET stream and no request in flight, unused this long, ends. Default 5 minutes. */
  readonly sessionIdleMs?: number;
  /** A 2025 session holding a GET stream or a request in flight, without a new request this long, ends. Default 30 minutes. */
  readonly heldSessionIdleMs?: number;
  /**
   * Open 2025 sessions at most. At the bound, `initialize` evicts the least recently used idle
   * session; only when none is idle does it get 503. Default 1000.
   */
  readonly maxSessions?: number;
  /**
   * Open 2025 sessions at most per client (its accepted credential with auth, else its remote
   * address); beyond it, the client's own least recently used idle session is evicted, or it gets
   * 503. Default a quarter of `maxSessions` (at least 1).
   */
  readonly maxSessionsPerClient?: number;
  /**
   * With `state`: bytes of 2025 session records one replica holds (serves from) at most; beyond
   * it the least recently used idle ones are dropped here and read again from the store when used.
   * Default 16 MiB.
   */
  readonly heldRecordBytes?: number;
  /** Interval of `: keep-alive` comments on open SSE streams. Default 15 s. */
  readonly keepAliveMs?: number;
  /** The `retry:` (ms) a 2025-11-25 session's streams announce: how soon a client resumes. Default 1 s. */
  readonly sseRetryMs?: number;
  /**
   * Polling (2025-11-25): a POST stream whose call is still running this long is closed after a
   * `retry:`, and the client resumes it with GET and `Last-Event-ID`, so no connection is held for a
   * long call. Default: the MCP_RUN_SSE_POLL_MS environment variable, else 0 (never).
   */
  readonly ssePollMs?: number;
  /** What each 2025 session keeps for resuming its streams (streams.ts). */
  readonly sseReplay?: Partial<ReplayLimits>;
  /**
   * Operational endpoints (`/healthz`, `/readyz`, `/metrics`; see ops/routes.ts): asked first, before
   * the guards and auth; it answers and returns true for a path it owns.
   */
  readonly opsRoute?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /**
   * Extra pages of this origin (`mcp-run dev`'s playground, src/dev/): asked after the Host and
   * Origin guards and before the MCP path and auth; it answers and returns true for a path it owns.
   * The plain command never sets it, so it serves no page.
   */
  readonly pageRoute?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /**
   * `--state`: 2025-era sessions, their stream events and their notifications live in this store,
   * shared with the other replicas (shared-sessions.ts); a session lasts `heldSessionIdleMs` unused.
   * Absent: one process, memory only.
   */
  readonly state?: SharedState;
  /**
   * The manifest's toolsets (docs/toolsets.md), each served on `<path>/<name>`: whether a name is
   * one now (a reload may add or remove one), and the scopes a toolset's endpoint needs (none given:
   * the default endpoint's).
   */
  readonly toolsets?: {
    has(name: string): boolean;
    scopes(toolsets: readonly string[] | undefined): readonly string[];
  };
}

export interface HttpTransport {
  /** Where the endpoint listens, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  /** Graceful shutdown (see the file comment); resolves once the server is closed. Default grace 10 s. */
  close(graceMs?: number): Promise<void>;
  /** Figures for metrics: open 2025 sessions, open SSE streams, bytes written since start. */
  stats(): { sessions: number; streams: number; bytesOut: number };
  /** With `state`: the fan-out of unsolicited 2025 notifications to every replica's sessions. */
  readonly shared?: SharedSessions;
}

export const HTTP_DEFAULTS = {
  port: 3000,
  host: '127.0.0.1',
  path: '/mcp',
  maxBodyBytes: 4 * 1024 * 1024,
  sessionIdleMs: 5 * 60 * 1000,
  heldSessionIdleMs: 30 * 60 * 1000,
  maxSessions: 1000,
  heldRecordBytes: 16 * 1024 * 1024,
  /** The share of `maxSessions` one client may hold. */
  clientShare: 1 / 4,
  keepAliveMs: 15_000,
  sseRetryMs: 1000,
  graceMs: 10_000,
} as const;

/** How long shutdown waits for the last responses to flush before dropping connections. */
const FLUSH_MS = 1000;

export async function serveHttp(protocol: Protocol, options: HttpOptions): Promise<HttpTransport> {
  const { log } = options;
  const host = options.host ?? HTTP_DEFAULTS.host;
  const path = options.path ?? HTTP_DEFAULTS.path;
  const maxBodyBytes = options.maxBodyBytes ?? HTTP_DEFAULTS.maxBodyBytes;
  const keepAliveMs = options.keepAliveMs ?? HTTP_DEFAULTS.keepAliveMs;
  const guards = new Guards({
    bindHost: host,
    allowedHosts: options.allowedHosts ?? [],
    allowedOrigins: options.allowedOrigins ?? [],
  });
  const auth = new Authenticator(options.auth ?? {});
  const maxSessions = options.maxSessions ?? HTTP_DEFAULTS.maxSessions;
  const heldIdleMs = options.heldSessionIdleMs ?? HTTP_DEFAULTS.heldSessionIdleMs;
  const limits = { ...REPLAY_DEFAULTS, ...options.sseReplay };
  const shared =
    options.state === undefined ? undefined : new SharedSessions(options.state, heldIdleMs, limits, log);
  const sessions = new SessionStore(
    protocol,
    {
      idleMs: options.sessionIdleMs ?? HTTP_DEFAULTS.sessionIdleMs,
      heldIdleMs,
      max: maxSessions,
      perClient: Math.min(
        maxSessions,
        options.maxSessionsPerClient ?? Math.max(1, Math.floor(maxSessions * HTTP_DEFAULTS.clientShare)),
      ),
      heldRecordBytes: options.heldRecordBytes ?? HTTP_DEFAULTS.heldRecordBytes,
    },
    log,
    {
      keepAliveMs,
      retryMs: options.sseRetryMs ?? HTTP_DEFAULTS.sseRetryMs,
      pollMs: options.ssePollMs ?? pollFromEnv(process.env.MCP_RUN_SSE_POLL_MS),
      limits,
    },
    shared,
  );
  await shared?.start({
    stale: (id) => sessions.invalidate(id),
    poke: (id, stream, seq) => sessions.local(id)?.streams.poke(stream, seq),
    resync: () => sessions.resync(),
    deliver: (id, message) => void sessions.local(id)?.connection.receive(message),
    ended: (id) => sessions.drop(id),
  });
  // Who each admitted request is: set once by the authenticator, read by the session share and the
  // list filter, so no other part parses credentials.
  const principals = new WeakMap<IncomingMessage, Principal>();
  const listAccess = (req: IncomingMessage) => accessOf(principals.get(req), auth.scopes);
  const identityOf = (req: IncomingMessage) => principals.get(req)?.identity;
  // The toolset of each request's path; one array per name, so equal selections are the same.
  const toolsetOfRequest = new WeakMap<IncomingMessage, readonly string[]>();
  const selections = new Map<string, readonly string[]>();
  const toolsetOf = (req: IncomingMessage) => toolsetOfRequest.get(req);
  const legacy: LegacyContext = {
    sessions,
    keepAliveMs,
    clientOf: (req) => clientKey(principals.get(req), req),
    log,
    toolsetOf,
    ...(auth.oauth ? { accessOf: listAccess, identityOf } : {}),
  };
  const modern: ModernContext = {
    protocol,
    keepAliveMs,
    callerOf: (req) => principals.get(req)?.label,
    clientOf: (req) => clientKey(principals.get(req), req),
    toolsetOf,
    ...(auth.oauth ? { accessOf: listAccess, identityOf } : {}),
  };
  let closing = false;

  // Clients send the same Accept header on every POST: its verdict is kept for the last one seen.
  let lastAccept: string | undefined;
  let lastAcceptOk = false;
  const acceptsBoth = (accept: string | undefined): boolean => {
    if (accept === undefined || accept !== lastAccept) {
      lastAcceptOk = accepts(accept, 'application/json') && accepts(accept, 'text/event-stream');
      lastAccept = accept;
    }
    return lastAcceptOk;
  };

  async function post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!acceptsBoth(req.headers.accept)) {
      sendError(res, 406, 'Not Acceptable: a POST must accept both application/json and text/event-stream');
      return;
    }
    if (!isJsonContentType(req.headers['content-type'])) {
      sendError(res, 415, 'Unsupported Media Type: the body must be Content-Type: application/json');
      return;
    }
    const body = await readBody(req, maxBodyBytes);
    if (!body.ok) {
      if (body.tooLarge) {
        res.setHeader('Connection', 'close');
        sendError(res, 413, `Payload Too Large: a message may hold at most ${maxBodyBytes} bytes`);
      }
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(body.text);
    } catch {
      sendError(res, 400, 'Parse error: the body is not valid JSON', { code: ErrorCode.ParseError });
      return;
    }
    if (auth.oauth) {
      // A call names its tool, prompt or resource, so what it needs is known before dispatch: all of
      // it goes into one challenge.
      const endpoint = options.toolsets?.scopes(toolsetOf(req)) ?? [];
      const needed = [...new Set([...scopesNeeded(message, auth.scopes), ...endpoint])].sort();
      if (missingScopes(principals.get(req), needed).length > 0) {
        const refusal = auth.insufficient(needed, toolsetOf(req)?.[0]);
        sendError(res, refusal.status, refusal.message, { headers: { ...refusal.headers } });
        return;
      }
    }
    const stateless = servedStatelessly(
      message,
      header(req, 'mcp-protocol-version'),
      header(req, 'mcp-session-id') !== undefined,
    );
    const serve = () =>
      stateless ? serveModernPost(modern, req, res, message) : serveLegacyPost(legacy, req, res, message);
    if (!observesRequests()) return serve();
    const { method, tool } = describeMessage(message);
    await ops.request(method, tool, serve);
  }

  /**
   * Whether a path is an RFC 9728 metadata document's: the server's (at the well-known path with or
   * without the resource's path), or a toolset endpoint's (§3.1: the well-known prefix inserted
   * before that endpoint's path, `/.well-known/oauth-protected-resource/mcp/<name>`).
   */
  function metadataRequest(reqPath: string): { readonly toolset: string | undefined } | undefined {
    if (metadataPaths(auth.resourceId).includes(reqPath)) return { toolset: undefined };
    const prefix = `${new URL(metadataUrl(auth.resourceId)).pathname}/`;
    if (!reqPath.startsWith(prefix)) return undefined;
    const name = reqPath.slice(prefix.length);
    return options.toolsets?.has(name) ? { toolset: name } : undefined;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (closing) {
      res.setHeader('Connection', 'close');
      sendError(res, 503, 'Service Unavailable: the server is shutting down');
      return;
    }
    if (options.opsRoute?.(req, res)) return;
    const forbidden = guards.hostFault(req) ?? guards.originFault(req);
    if (forbidden !== undefined) {
      sendError(res, 403, `Forbidden: ${forbidden}`);
      return;
    }
    if (options.pageRoute?.(req, res)) return;
    const reqPath = pathOf(req.url);
    const metadataOf = auth.oauth ? metadataRequest(reqPath) : undefined;
    if (metadataOf !== undefined) {
      if (req.method === 'GET' || req.method === 'HEAD') {
        const toolset = metadataOf.toolset;
        const scopes = toolset === undefined ? [] : (options.toolsets?.scopes([toolset]) ?? []);
        sendJson(res, 200, auth.metadata(toolset, scopes) ?? {}, {
          'Access-Control-Allow-Origin': '*',
          'Cache-Control': 'max-age=300',
        });
      } else sendError(res, 405, `Method Not Allowed: ${req.method}`, { headers: { Allow: 'GET, HEAD' } });
      return;
    }
    if (reqPath !== path) {
      // `<path>/<toolset>`: the endpoint of one toolset of the manifest.
      const name = reqPath.startsWith(`${path}/`) ? reqPath.slice(path.length + 1) : undefined;
      if (name === undefined || !options.toolsets?.has(name)) {
        sendError(
          res,
          404,
          `Not Found: the MCP endpoint is ${path}${options.toolsets ? ` (or ${path}/<toolset>)` : ''}`,
        );
        return;
      }
      let selection = selections.get(name);
      if (selection === undefined) {
        selection = Object.freeze([name]);
        selections.set(name, selection);
      }
      toolsetOfRequest.set(req, selection);
    }
    if (req.headers.origin !== undefined)
      for (const [name, value] of Object.entries(corsHeaders(req))) res.setHeader(name, value);
    if (req.method === 'OPTIONS') {
      answerPreflight(req, res);
      return;
    }
    if (auth.enabled) {
      const endpoint = auth.oauth ? (options.toolsets?.scopes(toolsetOf(req)) ?? []) : [];
      const admitted = await auth.authenticate(req, toolsetOf(req)?.[0], endpoint);
      if (!admitted.ok) {
        sendError(res, admitted.status, admitted.message, { headers: { ...admitted.headers } });
        return;
      }
      if (admitted.principal !== undefined) principals.set(req, admitted.principal);
    }
    const requestLimit = options.requestLimit?.();
    if (requestLimit !== undefined && !(await admitRequest(requestLimit, req, res))) return;
    if (req.method === 'POST') await post(req, res);
    else if (req.method === 'GET') await serveLegacyGet(legacy, req, res);
    else if (req.method === 'DELETE') await serveLegacyDelete(legacy, req, res);
    else
      sendError(res, 405, `Method Not Allowed: ${req.method}`, {
        headers: { Allow: 'GET, POST, DELETE, OPTIONS' },
      });
  }

  /**
   * `server.limits.requests`: a caller over its rate gets 429 with Retry-After, before its body is
   * read; the JSON-RPC error in the body carries the same as a refused call (-32041).
   */
  async function admitRequest(
    limit: CallLimits,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<boolean> {
    try {
      // A rate alone: nothing is held, so there is no lease to release.
      await limit.admit(clientKey(principals.get(req), req));
      return true;
    } catch (err) {
      if (!(err instanceof GovernanceRefusal)) throw err;
      const retryAfterMs = err.retryAfterMs ?? 1000;
      const retryAfter = Math.max(1, Math.ceil(retryAfterMs / 1000));
      sendError(res, 429, `Too Many Requests: ${err.message}`, {
        code: ErrorCode.LimitReached,
        data: { rule: err.rule, retryAfterMs, retryAfter },
        headers: { 'Retry-After': String(retryAfter) },
      });
      return false;
    }
  }

  // Requests being handled, for the grace period of shutdown: a count, and who waits for it to
  // reach zero (a set of promises cost two more promises per request).
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const settled = (): void => {
    if (--inFlight === 0) drained?.();
  };
  // A LiveSet, not a Set: a Set's churn kept every request's objects past the young generation.
  // (Its place makes a closure per request; a young one, far cheaper than what the Set kept.)
  const responses = new LiveSet<ServerResponse>();
  const server = createServer({ ServerResponse: ExchangeResponse }, (req, res) => {
    const at = responses.add(res);
    res.on('close', () => responses.delete(at, res));
    // Every line logged while serving this request carries its id (the client's X-Request-Id when
    // it is a sane token, else a fresh one), and the answer echoes it.
    const requestId = requestIdOf(req);
    res.carry(
      shared === undefined
        ? { 'X-Request-Id': requestId }
        : { 'X-Request-Id': requestId, 'X-Mcp-Run-Replica': shared.replica },
    );
    const traceparent = header(req, 'traceparent');
    inFlight++;
    withLogFields({ requestId }, () => withTraceparent(traceparent, () => handle(req, res))).then(
      settled,
      (err: unknown) => {
        settled();
        log.error(`http: unexpected failure: ${err instanceof Error ? err.message : String(err)}`);
        if (!res.headersSent) sendError(res, 500, 'Internal error', { code: ErrorCode.InternalError });
        else res.end();
      },
    );
  });
  const wantedPort = options.port ?? HTTP_DEFAULTS.port;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => {
      sessions.closeAll();
      reject(new ProblemError(problems.HTTP_LISTEN_FAILED(`${urlHost(host)}:${wantedPort}`, err.message)));
    });
    server.listen(wantedPort, host, () => {
      server.removeAllListeners('error');
      resolve();
    });
  });
  server.on('error', (err) => log.error(`http: server error: ${err.message}`));
  let bytesOfClosed = 0;
  // One per connection, which is one per request for clients that do not keep connections alive.
  const sockets = new LiveSet<Socket>();
  server.on('connection', (socket) => {
    const at = sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(at, socket);
      bytesOfClosed += socket.bytesWritten;
    });
  });
  const stats = () => {
    let bytesOut = bytesOfClosed;
    for (const socket of sockets) bytesOut += socket.bytesWritten;
    let streams = 0;
    for (const res of responses) if (isSseStream(res)) streams++;
    return { sessions: sessions.size, streams, bytesOut };
  };
  const { port } = server.address() as AddressInfo;
  const url = `http://${urlHost(host)}:${port}${path}`;
  auth.listening(url);
  if (!isLoopbackHost(host) && !auth.enabled) {
    log.warn(
      `listening on ${host}, beyond loopback, without authentication: anyone who can reach this port can call every tool; ` +
        'set --auth-token-env or --api-key-env',
    );
  }

  let closed: Promise<void> | undefined;
  const close = (graceMs: number = HTTP_DEFAULTS.graceMs): Promise<void> => {
    closed ??= (async () => {
      closing = true;
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Answers still to come close their connection behind them, so keep-alive cannot hold it open.
      for (const res of responses) if (!res.headersSent) res.setHeader('Connection', 'close');
      protocol.close();
      const idle = inFlight === 0 ? undefined : new Promise<void>((resolve) => (drained = resolve));
      await drain(idle ?? Promise.resolve(), graceMs, (error) => protocol.abandon(error), log);
      sessions.closeAll();
      // Let the last answers (and 503s queued behind them) flush before cutting what remains.
      await settleWithin(serverClosed, FLUSH_MS);
      server.closeAllConnections();
      await serverClosed;
    })();
    return closed;
  };
  return { url, close, stats, ...(shared !== undefined && { shared }) };
}

/** MCP_RUN_SSE_POLL_MS: a whole number of milliseconds; anything else means no polling. */
function pollFromEnv(value: string | undefined): number {
  const ms = Number(value);
  return Number.isSafeInteger(ms) && ms > 0 ? ms : 0;
}

function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  const query = raw.indexOf('?');
  return query === -1 ? raw : raw.slice(0, query);
}

function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}
