/**
 * 2026-07-28 POSTs (digest §6.3): each is served statelessly on a protocol Connection of its own
 * for as long as it is in flight: two independent clients may both use request id 1, and one
 * connection refuses an id already in flight. A connection whose exchange ended with nothing in
 * flight (answered, or a notification accepted) goes back to a small pool and serves a later
 * request, so a plain request makes no connection of its own; any other ending (a cancel, a
 * listen, a client gone before its answer) closes it, as before.
 *
 * No AbortController either: a response stream closed before its answer is the client cancelling
 * (2026 HTTP has no notifications/cancelled), and closing the request's connection aborts the
 * request's own signal, which the core makes only if a handler reads it (request-scope.ts): a plain
 * request makes no AbortController at all.
 *
 * The request's headers travel with it on its route: the core checks the routing headers
 * (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`; protocol/routing-headers.ts) once it has classified the
 * request, so the era and the method are decided in one place.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallerIdentity } from '../../catalog/types.js';
import type { Access, Connection, Protocol, ReceiveOutcome } from '../../protocol/server.js';
import { HttpReply, type ReplyOptions } from './reply.js';
import { header } from './wire.js';

export interface ModernContext {
  readonly protocol: Protocol;
  readonly keepAliveMs: number;
  /** The authenticated caller's view of lists (auth.ts); undefined: everything. */
  readonly accessOf?: (req: IncomingMessage) => Access | undefined;
  /** The toolset of the path the request came to (`<path>/<toolset>`); undefined: the default endpoint. */
  readonly toolsetOf?: (req: IncomingMessage) => readonly string[] | undefined;
  /** The verified caller of a request (OAuth), for tool calls. */
  readonly identityOf?: (req: IncomingMessage) => CallerIdentity | undefined;
  /** The authenticated caller's label, when auth is on (the owner of its tasks). */
  readonly callerOf?: (req: IncomingMessage) => string | undefined;
  /** Whom the limits per caller count a request against (sessions.ts clientKey). */
  readonly clientOf?: (req: IncomingMessage) => string;
}

/** Idle connections kept per server: enough for the requests two cores keep in flight. */
const POOL_SIZE = 32;

const pools = new WeakMap<ModernContext, Connection[]>();

function acquire(ctx: ModernContext): Connection {
  const idle = pools.get(ctx)?.pop();
  if (idle !== undefined) return idle;
  return ctx.protocol.connect(() => {
    // Modern requests are answered on their routes; nothing unsolicited exists for them.
  });
}

/** Keeps a connection whose exchange left nothing in flight, if the pool has room. */
function pooled(ctx: ModernContext, connection: Connection, outcome: ReceiveOutcome): boolean {
  if (outcome.kind !== 'answered' && outcome.kind !== 'accepted') return false;
  let pool = pools.get(ctx);
  if (pool === undefined) {
    pool = [];
    pools.set(ctx, pool);
  }
  if (pool.length >= POOL_SIZE) return false;
  pool.push(connection);
  return true;
}

export async function serveModernPost(
  ctx: ModernContext,
  req: IncomingMessage,
  res: ServerResponse,
  message: unknown,
): Promise<void> {
  const headerVersion = header(req, 'mcp-protocol-version');
  const access = ctx.accessOf?.(req);
  const identity = ctx.identityOf?.(req);
  const caller = ctx.callerOf?.(req);
  const connection = acquire(ctx);
  // Only the fields a request has (exactOptionalPropertyTypes), set without spreading temporaries.
  const options: { -readonly [K in keyof ReplyOptions]: ReplyOptions[K] } = {
    keepAliveMs: ctx.keepAliveMs,
    header: (name) => header(req, name),
  };
  if (headerVersion !== undefined) options.protocolVersion = headerVersion;
  if (access !== undefined) options.access = access;
  if (identity !== undefined) options.identity = identity;
  if (caller !== undefined) options.caller = caller;
  const client = ctx.clientOf?.(req);
  if (client !== undefined) options.client = client;
  const toolsets = ctx.toolsetOf?.(req);
  if (toolsets !== undefined) options.toolsets = toolsets;
  const reply = new HttpReply(res, options);
  // Set once the connection is back in the pool or closed. A stream closed before the answer
  // is the client cancelling: closing the connection aborts the request. A connection not pooled
  // (a listen, a cancel, a full pool) is closed when its exchange ends, as before.
  let done = false;
  res.on('close', () => {
    if (done) return;
    done = true;
    connection.close();
  });
  const outcome = await connection.receive(message, reply);
  reply.settle(outcome);
  if (!done && pooled(ctx, connection, outcome)) done = true;
}
