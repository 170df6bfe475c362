/**
 * Small helpers for writing plain HTTP replies and reading request bodies. Every error reply has a
 * JSON-RPC error body (with the request id when it is known), so a client always gets a reason.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Problem } from '../../errors.js';
import { unnamedErrorReply } from '../../protocol/downgrade.js';
import { ErrorCode, errorResponse, ProtocolError, type RequestId } from '../../protocol/jsonrpc.js';
import { cachedResponseParts, serializeMessage } from '../../protocol/results.js';

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

export function sendJson(
  res: ServerResponse,
  status: number,
  message: object,
  headers: Readonly<Record<string, string>> = NO_HEADERS,
): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  // A cached list page goes out as its ready-made bytes after the id; anything else is serialized.
  // Either way one writeHead with every header, sized up front (no chunked encoding), and the body
  // in the same write: node:http joins the header text and a string body, and corks the rest.
  const parts = cachedResponseParts(message);
  const body = parts === undefined ? serializeMessage(message) : parts.head;
  let length = Buffer.byteLength(body);
  for (const chunk of parts?.tail ?? []) length += chunk.length;
  res.writeHead(
    status,
    headers === NO_HEADERS
      ? { 'Content-Type': 'application/json', 'Content-Length': length }
      : { ...headers, 'Content-Type': 'application/json', 'Content-Length': length },
  );
  if (parts === undefined) res.end(body);
  else {
    res.write(body);
    for (const chunk of parts.tail.slice(0, -1)) res.write(chunk);
    res.end(parts.tail.at(-1));
  }
}

/**
 * An HTTP error reply whose body is a JSON-RPC error; `code` defaults to -32600 Invalid Request.
 * One that cannot name its request follows the version the request's MCP-Protocol-Version header
 * names, as the protocol's own replies do (`"id": null` before 2025-11-25, no `id` from it on and
 * without the header; docs/clients.md).
 */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  options: { id?: RequestId | null; code?: number; data?: unknown; headers?: Record<string, string> } = {},
): void {
  const error = new ProtocolError(options.code ?? ErrorCode.InvalidRequest, message, options.data);
  const id = options.id ?? null;
  const reply = errorResponse(id, error);
  const version = res.req === undefined ? undefined : header(res.req, 'mcp-protocol-version');
  sendJson(res, status, id === null ? unnamedErrorReply(reply, version) : reply, options.headers);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  res.writeHead(status, headers);
  res.end();
}

export type BodyResult = { ok: true; text: string } | { ok: false; tooLarge: boolean };

/**
 * Reads the whole body as UTF-8, refusing it as soon as it passes `limit` bytes (by Content-Length
 * when declared, else while it streams in) so an oversize body is never buffered.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ ok: false, tooLarge: true });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: BodyResult): void => {
      if (done) return;
      done = true;
      req.off('data', onData);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        finish({ ok: false, tooLarge: true });
        return;
      }
      chunks.push(chunk);
    };
    // `on`, not `once`: `finish` runs once anyway, and `once` wraps each listener in a closure.
    const onEnd = (): void => {
      finish({
        ok: true,
        text:
          chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8'),
      });
    };
    const onFail = (): void => finish({ ok: false, tooLarge: false });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onFail);
    req.on('close', onFail);
  });
}

/** A request header by lower-case name; repeated headers are joined as HTTP allows. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** A startup problem of the HTTP transport, reported as `error[CODE] message` by the CLI. */
export class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(`error[${problem.code}] ${problem.message}${problem.hint ? `\n  hint: ${problem.hint}` : ''}`);
    this.name = 'ProblemError';
  }
}
