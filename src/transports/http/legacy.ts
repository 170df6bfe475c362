/**
 * The 2025-era Streamable HTTP endpoint (digest §6.2): `initialize` mints a session; every later
 * POST, GET and DELETE names it in `Mcp-Session-Id`. A POST's related notifications and response go
 * on its own response; unsolicited notifications go on one of the session's GET streams (a client
 * may hold several); each message goes on exactly one stream. Every stream is resumable
 * (streams.ts): a GET with `Last-Event-ID` continues the stream that id names. A `tools/call` of a
 * session at 2025-11-25 that is still running RESUMABLE_AFTER_MS after it came answers as a primed
 * stream from then on, so a long call dropped before it emitted anything can still be resumed; one
 * answered sooner is one JSON body (a stream for every call cut a one-row SQL call's throughput by a
 * quarter). A dropped POST stream is not a cancellation in this era (the client sends
 * notifications/cancelled), so legacy routes carry no abort signal.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallerIdentity } from '../../catalog/types.js';
import type { Logger } from '../../log.js';
import {
  ErrorCode,
  errorResponse,
  isObject,
  isRequestId,
  ProtocolError,
  type RequestId,
} from '../../protocol/jsonrpc.js';
import type { Access } from '../../protocol/server.js';
import { isLegacyVersion, LEGACY_VERSIONS } from '../../protocol/versions.js';
import { StateError } from '../../state/shared.js';
import { accepts } from './guards.js';
import { HttpReply } from './reply.js';
import { type Session, type SessionStore, shortId } from './sessions.js';
import type { ResumableStream } from './streams.js';
import { header, sendEmpty, sendError } from './wire.js';

export interface LegacyContext {
  readonly sessions: SessionStore;
  readonly keepAliveMs: number;
  /** Who a request comes from, for the per-client share of sessions (sessions.ts) and the limits per caller. */
  readonly clientOf: (req: IncomingMessage) => string;
  readonly log: Logger;
  /** The authenticated caller's view of lists, per request (each POST carries its own token). */
  readonly accessOf?: (req: IncomingMessage) => Access | undefined;
  /**
   * The toolset of the path the request came to (`<path>/<toolset>`); undefined: the default
   * endpoint. A session belongs to the path it was created on.
   */
  readonly toolsetOf?: (req: IncomingMessage) => readonly string[] | undefined;
  /** The verified caller of a request (OAuth), for tool calls: each POST's own token, not the session's. */
  readonly identityOf?: (req: IncomingMessage) => CallerIdentity | undefined;
}

const SESSION_HEADER = 'Mcp-Session-Id';
/** How long a 2025-11-25 tools/call may run before its reply becomes a primed, resumable stream. */
const RESUMABLE_AFTER_MS = 100;
/** For 405s: a request without a 2025 session can only be a 2026 POST. */
const POST_ONLY = { Allow: 'POST' };

export async function serveLegacyPost(
  ctx: LegacyContext,
  req: IncomingMessage,
  res: ServerResponse,
  message: unknown,
): Promise<void> {
  const id = isObject(message) && isRequestId(message.id) ? message.id : null;
  if (isObject(message) && message.method === 'initialize' && id !== null)
    return initialize(ctx, req, res, message, id);
  const finding = findSession(ctx, req, res, id);
  const session = finding instanceof Promise ? await finding : finding;
  if (session === undefined) return;
  const shared = ctx.sessions.shared;
  if (shared !== undefined && isObject(message)) {
    // An answer to another replica's server→client request goes to it; a cancellation to every one.
    try {
      if (await shared.forward(session.id, message)) {
        sendEmpty(res, 202);
        return;
      }
      if (message.method === 'notifications/cancelled') await shared.cancel(session.id, message);
    } catch (err) {
      unavailable(res, id, err);
      return;
    }
  }
  session.busy++;
  try {
    const access = ctx.accessOf?.(req);
    const identity = ctx.identityOf?.(req);
    const reply = new HttpReply(res, {
      keepAliveMs: ctx.keepAliveMs,
      open: (out) => session.streams.openPost(out, id ?? undefined),
      ...(session.streams.priming &&
        isObject(message) &&
        message.method === 'tools/call' &&
        id !== null && { openAfterMs: RESUMABLE_AFTER_MS }),
      ...(access === undefined ? {} : { access }),
      ...(identity === undefined ? {} : { identity }),
      client: ctx.clientOf(req),
      ...(shared !== undefined && { hold: () => save(ctx, session).then(() => undefined) }),
    });
    const outcome = await session.connection.receive(message, reply);
    if (shared !== undefined && outcome.kind === 'accepted') await save(ctx, session);
    reply.settle(outcome);
  } finally {
    session.busy--;
    ctx.sessions.touch(session);
  }
}

async function initialize(
  ctx: LegacyContext,
  req: IncomingMessage,
  res: ServerResponse,
  message: object,
  id: string | number,
): Promise<void> {
  if (ctx.sessions.shared !== undefined && !ctx.sessions.shared.state.healthy) {
    unavailable(res, id, new StateError(ctx.sessions.shared.state.fault ?? 'unreachable'));
    return;
  }
  const session = ctx.sessions.create(ctx.clientOf(req), ctx.toolsetOf?.(req));
  if (session === 'client' || session === 'server') {
    const { max, perClient } = ctx.sessions.limits;
    const why =
      session === 'client'
        ? `this client already holds its share of ${perClient} open sessions, each with a GET stream or a request in flight`
        : `the server holds its ${max} open sessions, each with a GET stream or a request in flight`;
    sendError(res, 503, `Service Unavailable: ${why}; end unused sessions with DELETE, or try again later`, {
      id,
      headers: { 'Retry-After': '10' },
    });
    return;
  }
  res.setHeader(SESSION_HEADER, session.id);
  const reply = new HttpReply(res, {
    keepAliveMs: ctx.keepAliveMs,
    beforeRespond: (response) => {
      const result = (response as { result?: { protocolVersion?: unknown } }).result;
      if (typeof result?.protocolVersion === 'string') {
        session.version = result.protocolVersion;
        session.streams.negotiated(result.protocolVersion);
        return;
      }
      // A failed initialize leaves no session behind.
      res.removeHeader(SESSION_HEADER);
      ctx.sessions.drop(session.id);
    },
    ...(ctx.sessions.shared !== undefined && {
      // A session the other replicas cannot find would fail on the client's next request: an
      // initialize whose session was not stored is answered with the error, and leaves nothing.
      hold: async (response: object) => {
        if (session.version === undefined) return undefined;
        const stored = await save(ctx, session);
        if (stored === undefined) return undefined;
        res.removeHeader(SESSION_HEADER);
        ctx.sessions.drop(session.id);
        const error = new ProtocolError(
          ErrorCode.InternalError,
          `the session could not be shared with the other replicas: ${stored}`,
        );
        return errorResponse((response as { id: RequestId }).id, error);
      },
    }),
  });
  session.busy++;
  try {
    reply.settle(await session.connection.receive(message, reply));
  } finally {
    session.busy--;
  }
}

export async function serveLegacyGet(
  ctx: LegacyContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (header(req, 'mcp-session-id') === undefined) {
    sendError(
      res,
      405,
      'GET opens a 2025-era session stream and needs Mcp-Session-Id; 2026-07-28 is POST only',
      {
        headers: POST_ONLY,
      },
    );
    return;
  }
  if (!accepts(req.headers.accept, 'text/event-stream')) {
    sendError(res, 406, 'Not Acceptable: a GET stream needs Accept: text/event-stream');
    return;
  }
  const session = await findSession(ctx, req, res, null);
  if (session === undefined) return;
  const lastEventId = header(req, 'last-event-id');
  let stream: ResumableStream;
  if (lastEventId !== undefined) {
    const log = session.streams.log;
    let resumed: Awaited<ReturnType<typeof session.streams.resumeShared>>;
    try {
      resumed =
        log === undefined
          ? session.streams.resume(lastEventId, res)
          : await session.streams.resumeShared(lastEventId, res, log);
    } catch (err) {
      unavailable(res, null, err);
      return;
    }
    if (resumed === 'malformed' || resumed === 'unknown') {
      const why =
        resumed === 'malformed'
          ? `Last-Event-ID "${lastEventId}" is not an event id of this server`
          : `no stream of this session has event "${lastEventId}" any more`;
      sendError(res, 400, `Bad Request: ${why}; open a new stream without Last-Event-ID`);
      return;
    }
    stream = resumed;
  } else stream = session.streams.openGet(res);
  const which = `session ${shortId(session.id)} stream ${stream.key}`;
  ctx.log.debug(
    lastEventId === undefined
      ? `http: session ${shortId(session.id)} opened its GET stream ${stream.key}`
      : `http: ${which} resumed after ${lastEventId}`,
  );
  res.once('close', () => {
    ctx.log.debug(`http: ${which}: its GET closed`);
    ctx.sessions.touch(session);
  });
}

export async function serveLegacyDelete(
  ctx: LegacyContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (header(req, 'mcp-session-id') === undefined) {
    sendError(res, 405, 'DELETE ends a 2025-era session and needs Mcp-Session-Id', { headers: POST_ONLY });
    return;
  }
  const session = await findSession(ctx, req, res, null);
  if (session === undefined) return;
  ctx.sessions.end(session.id);
  sendEmpty(res, 200);
}

/**
 * The request's live session, or undefined after answering 400/404 (503: the shared state is
 * unreachable). Found at once in memory; only `--state` waits for the store.
 */
function findSession(
  ctx: LegacyContext,
  req: IncomingMessage,
  res: ServerResponse,
  id: string | number | null,
): Session | undefined | Promise<Session | undefined> {
  const sessionId = header(req, 'mcp-session-id');
  if (sessionId === undefined) {
    sendError(res, 400, 'Bad Request: missing Mcp-Session-Id; send initialize first', { id });
    return undefined;
  }
  if (ctx.sessions.shared === undefined) return admit(ctx, req, res, id, ctx.sessions.get(sessionId));
  return ctx.sessions.fetch(sessionId).then(
    (found) => admit(ctx, req, res, id, found),
    (err: unknown) => {
      unavailable(res, id, err);
      return undefined;
    },
  );
}

/** `found` if the request may use it, else undefined after answering 404 or 400. */
function admit(
  ctx: LegacyContext,
  req: IncomingMessage,
  res: ServerResponse,
  id: string | number | null,
  found: Session | undefined,
): Session | undefined {
  // With authentication on, a session belongs to the principal that opened it: another caller who
  // learned its id gets the same 404 as for an unknown one (nothing tells it the session exists).
  // A session also belongs to the path (the toolset) it was created on: elsewhere it is unknown.
  const here = ctx.toolsetOf?.(req)?.join('\n');
  const session =
    found !== undefined && ownedBy(found, ctx.clientOf(req)) && found.toolsets?.join('\n') === here
      ? found
      : undefined;
  if (session === undefined) {
    sendError(res, 404, 'Session not found: it expired or was ended; send initialize again', { id });
    return undefined;
  }
  // Any supported 2025-era version is accepted (the spec asks for 400 only when it is invalid or
  // unsupported); the session keeps serving the version it negotiated. The official conformance
  // suite sends 2025-03-26 on a session that negotiated 2025-11-25.
  const version = header(req, 'mcp-protocol-version');
  if (version !== undefined && !isLegacyVersion(version)) {
    const why = `supported: ${LEGACY_VERSIONS.join(', ')}`;
    sendError(res, 400, `Bad Request: unsupported MCP-Protocol-Version "${version}" (${why})`, { id });
    return undefined;
  }
  return session;
}

/** Sessions of unauthenticated clients (`addr:…`) are not bound: an address is no identity. */
const ownedBy = (session: Session, client: string): boolean =>
  session.client.startsWith('addr:') || session.client === client;

/**
 * Shared (`--state`): saves the session's record; a failure is logged (the answer still goes out)
 * and its reason returned.
 */
async function save(ctx: LegacyContext, session: Session): Promise<string | undefined> {
  try {
    await ctx.sessions.save(session);
    return undefined;
  } catch (err) {
    const why = (err as Error).message;
    ctx.log.warn(`state: session ${shortId(session.id)} not saved: ${why}`);
    return why;
  }
}

/** 503 with a JSON-RPC error: the shared session state is needed and unreachable. */
function unavailable(res: ServerResponse, id: string | number | null, err: unknown): void {
  if (!(err instanceof StateError)) throw err;
  if (res.headersSent) {
    res.end();
    return;
  }
  sendError(
    res,
    503,
    `Service Unavailable: the shared session state is unreachable (${err.message}); 2025-era sessions resume when it returns`,
    { id, code: ErrorCode.InternalError, headers: { 'Retry-After': '2' } },
  );
}
