/**
 * JSON-RPC 2.0 as MCP uses it: ids, error codes, the message builders, and the one error type that
 * handlers throw. Anything else a handler throws is a bug and becomes -32603 (see error-mapping.ts).
 */
import { isObject } from '../util/is-object.js';

export { isObject };

export type RequestId = string | number;

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Legacy era only; 2026-07-28 reserves it and uses -32602 instead. */
  ResourceNotFound: -32002,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

/** The HTTP statuses a protocol outcome can imply (see ReceiveOutcome in server.ts). */
export const HttpStatus = { Ok: 200, Accepted: 202, BadRequest: 400, NotFound: 404 } as const;

/**
 * A fault the client caused, answered as a JSON-RPC error. `httpStatus` is the status an HTTP
 * transport should use when this error is the whole reply: the 2026 rules fix 400 for envelope
 * faults and 404 for unknown methods; every other in-band error travels with 200.
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    readonly httpStatus: number = HttpStatus.Ok,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}

export function invalidParams(message: string, data?: unknown): ProtocolError {
  return new ProtocolError(ErrorCode.InvalidParams, message, data);
}

export function invalidRequest(message: string): ProtocolError {
  return new ProtocolError(ErrorCode.InvalidRequest, message, undefined, HttpStatus.BadRequest);
}

export interface JsonRpcResponse {
  readonly jsonrpc: '2.0';
  readonly id: RequestId | null;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

export function resultResponse(id: RequestId, result: unknown): JsonRpcResponse {
  return { jsonrpc: '2.0', id, result };
}

export function errorResponse(id: RequestId | null, error: ProtocolError): JsonRpcResponse {
  const body =
    error.data === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, data: error.data };
  return { jsonrpc: '2.0', id, error: body };
}

export function notification(method: string, params?: object): object {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

/** Every MCP schema says a request id is a string or an integer: `5.5` is not one. */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || Number.isSafeInteger(value);
}
