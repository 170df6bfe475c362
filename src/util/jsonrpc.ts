/**
 * The pure part of JSON-RPC 2.0 that both sides of mcp-run speak: the protocol core answering its
 * clients (src/protocol/jsonrpc.ts builds on this) and the `mcp` source's client of an upstream
 * server (src/kinds/mcp/client.ts). No MCP, no transport.
 */
export type RequestId = string | number;

/** The codes JSON-RPC 2.0 itself defines. */
export const JsonRpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

export interface JsonRpcResponse {
  readonly jsonrpc: '2.0';
  readonly id: RequestId | null;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

/** Every MCP schema says a request id is a string or an integer: `5.5` is not one. */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

export function notification(method: string, params?: object): object {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}
