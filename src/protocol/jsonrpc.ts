/**
 * JSON-RPC 2.0 as MCP uses it: ids, error codes, the message builders, and the one error type that
 * handlers throw. Anything else a handler throws is a bug and becomes -32603 (see error-mapping.ts).
 */
import { isObject } from '../util/is-object.js';
import { JsonRpcCode, type JsonRpcResponse, type RequestId } from '../util/jsonrpc.js';

export { isRequestId, type JsonRpcResponse, notification, type RequestId } from '../util/jsonrpc.js';
export { isObject };

export const ErrorCode = {
  ...JsonRpcCode,
  /** Legacy era only; 2026-07-28 reserves it and uses -32602 instead. */
  ResourceNotFound: -32002,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
  /** A policy refused the request (governance/refusal.ts). */
  PolicyDenied: -32040,
  /** A limit per caller refused the request; data says when to retry. */
  LimitReached: -32041,
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

/**
 * Every fault of one request as one error, so that a client fixes them all before it resends
 * instead of meeting them one 400 at a time. The first fault (in the order the checks run) gives
 * the code and the HTTP status; `data.problems` lists each with its own code. One fault is itself;
 * the faults of an error made here are taken one by one, so later checks can add theirs.
 */
export function allFaults(faults: readonly [ProtocolError, ...ProtocolError[]]): ProtocolError {
  const flat = faults.flatMap((f) => (f instanceof FaultList ? f.faults : [f]));
  return flat.length === 1 ? flat[0]! : new FaultList(flat);
}

class FaultList extends ProtocolError {
  constructor(readonly faults: readonly ProtocolError[]) {
    const [first] = faults as [ProtocolError];
    super(
      first.code,
      `${faults.length} problems with this request, fix them all before resending: ${faults.map((f) => f.message).join('; ')}`,
      { problems: faults.map((f) => ({ code: f.code, message: f.message })) },
      first.httpStatus,
    );
  }
}

export function invalidParams(message: string, data?: unknown): ProtocolError {
  return new ProtocolError(ErrorCode.InvalidParams, message, data);
}

export function invalidRequest(message: string): ProtocolError {
  return new ProtocolError(ErrorCode.InvalidRequest, message, undefined, HttpStatus.BadRequest);
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
