/**
 * 2026-07-28 POSTs (digest §6.3): each is served statelessly on its own protocol Connection, closed
 * when the exchange ends. A connection per request (not one shared) because two independent clients
 * may both use request id 1, and one connection refuses an id already in flight.
 *
 * The transport's own share of the checks is the routing headers: `MCP-Protocol-Version` must be
 * present (the core compares it with `_meta`), `Mcp-Method` must equal the method and `Mcp-Name`
 * the name or URI, after base64-sentinel decoding, and `Mcp-Param-*` must mirror the tool arguments
 * the tool's schema marks with `x-mcp-header`; a fault is 400 + -32020 with the request id.
 * They run after the envelope and method checks, the order the official SDK uses, so a request with
 * a broken envelope or an unknown method gets that more basic error first.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readEnvelope } from '../../protocol/envelope.js';
import { ErrorCode, isObject, isRequestId } from '../../protocol/jsonrpc.js';
import { METHODS } from '../../protocol/method-table.js';
import type { Protocol } from '../../protocol/server.js';
import { paramDeclarations, paramHeaderFault } from './param-headers.js';
import { HttpReply } from './reply.js';
import { header, sendError } from './wire.js';

/** Which body field `Mcp-Name` mirrors, per method. */
const NAME_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

export interface ModernContext {
  readonly protocol: Protocol;
  readonly keepAliveMs: number;
  /** A tool's inputSchema by name, for the `Mcp-Param-*` checks; without it they are skipped. */
  readonly toolSchema?: (name: string) => unknown;
}

export async function serveModernPost(
  ctx: ModernContext,
  req: IncomingMessage,
  res: ServerResponse,
  message: unknown,
): Promise<void> {
  const headerVersion = header(req, 'mcp-protocol-version');
  const fault = routingHeaderFault(req, message, headerVersion, ctx.toolSchema);
  if (fault !== undefined) {
    const id = isObject(message) && isRequestId(message.id) ? message.id : null;
    sendError(res, 400, fault, { id, code: ErrorCode.HeaderMismatch });
    return;
  }
  const controller = new AbortController();
  const connection = ctx.protocol.connect(() => {
    // Modern requests are answered on their routes; nothing unsolicited exists for them.
  });
  const reply = new HttpReply(res, {
    keepAliveMs: ctx.keepAliveMs,
    signal: controller.signal,
    ...(headerVersion === undefined ? {} : { protocolVersion: headerVersion }),
  });
  // A response stream closed before its answer is the client cancelling (2026 HTTP has no
  // notifications/cancelled). After the answer, this only releases the connection.
  res.once('close', () => {
    if (!reply.responded) controller.abort();
    connection.close();
  });
  reply.settle(await connection.receive(message, reply));
}

/** Undefined when the routing headers agree with the body (or the core will refuse it anyway). */
function routingHeaderFault(
  req: IncomingMessage,
  message: unknown,
  headerVersion: string | undefined,
  toolSchema: ((name: string) => unknown) | undefined,
): string | undefined {
  if (!isObject(message) || typeof message.method !== 'string' || message.id === undefined) return undefined;
  const { method } = message;
  const params = isObject(message.params) ? message.params : {};
  if (!isObject(params._meta)) return undefined; // the core answers the missing envelope (-32602)
  try {
    readEnvelope(params._meta, headerVersion);
  } catch {
    return undefined; // the core answers the envelope fault (-32602, -32020, -32022)
  }
  const spec = METHODS.get(method);
  if (spec === undefined || spec.era === 'legacy') return undefined; // the core answers 404
  if (headerVersion === undefined)
    return 'missing MCP-Protocol-Version header (required on every 2026-07-28 request)';
  const methodFault = compare(req, 'Mcp-Method', method);
  if (methodFault !== undefined) return methodFault;
  const field = NAME_SOURCE[method];
  const expected = field === undefined ? undefined : params[field];
  if (typeof expected !== 'string') return undefined;
  const nameFault = compare(req, 'Mcp-Name', expected);
  if (nameFault !== undefined || method !== 'tools/call' || toolSchema === undefined) return nameFault;
  return paramHeaderFault(req, paramDeclarations(toolSchema(expected)), params.arguments);
}

function compare(req: IncomingMessage, name: string, expected: string): string | undefined {
  const raw = header(req, name.toLowerCase());
  if (raw === undefined)
    return `missing ${name} header (it must repeat ${JSON.stringify(expected)} from the body)`;
  const value = decodeHeaderValue(raw);
  if (value === undefined) return `${name} header has an invalid base64 value`;
  if (value !== expected)
    return `${name} header ${JSON.stringify(value)} does not match the body's ${JSON.stringify(expected)}`;
  return undefined;
}

/** A `=?base64?…?=` sentinel carries UTF-8 bytes in base64; anything else is the value itself. */
export function decodeHeaderValue(raw: string): string | undefined {
  if (!raw.startsWith('=?base64?')) return raw;
  const match = SENTINEL.exec(raw);
  if (match === null || match[1]!.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(match[1]!, 'base64');
  const text = new TextDecoder('utf-8', { fatal: true });
  try {
    return text.decode(bytes);
  } catch {
    return undefined;
  }
}
