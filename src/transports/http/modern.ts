/**
 * 2026-07-28 POSTs (digest §6.3): each is served statelessly on its own protocol Connection, closed
 * when the exchange ends. A connection per request (not one shared) because two independent clients
 * may both use request id 1, and one connection refuses an id already in flight.
 *
 * The request's headers travel with it on its route: the core checks the routing headers
 * (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`; protocol/routing-headers.ts) once it has classified the
 * request, so the era and the method are decided in one place.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Access, Protocol } from '../../protocol/server.js';
import { HttpReply } from './reply.js';
import { header } from './wire.js';

export interface ModernContext {
  readonly protocol: Protocol;
  readonly keepAliveMs: number;
  /** The authenticated caller's view of lists (auth.ts); undefined: everything. */
  readonly accessOf?: (req: IncomingMessage) => Access | undefined;
}

export async function serveModernPost(
  ctx: ModernContext,
  req: IncomingMessage,
  res: ServerResponse,
  message: unknown,
): Promise<void> {
  const headerVersion = header(req, 'mcp-protocol-version');
  const controller = new AbortController();
  const access = ctx.accessOf?.(req);
  const connection = ctx.protocol.connect(() => {
    // Modern requests are answered on their routes; nothing unsolicited exists for them.
  });
  const reply = new HttpReply(res, {
    keepAliveMs: ctx.keepAliveMs,
    signal: controller.signal,
    header: (name) => header(req, name),
    ...(headerVersion === undefined ? {} : { protocolVersion: headerVersion }),
    ...(access === undefined ? {} : { access }),
  });
  // A response stream closed before its answer is the client cancelling (2026 HTTP has no
  // notifications/cancelled). After the answer, this only releases the connection.
  res.once('close', () => {
    if (!reply.responded) controller.abort();
    connection.close();
  });
  reply.settle(await connection.receive(message, reply));
}
