/**
 * The MCP messages the scenarios send, for both protocol eras:
 * - modern (2026-07-28): no handshake; the `_meta` envelope in every request and, on HTTP, the
 *   `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers;
 * - legacy (2025-11-25): `initialize` once, then requests on the session (HTTP `Mcp-Session-Id`
 *   when the server minted one; stateless SDK servers mint none).
 */

export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';
export type Era = 'modern' | 'legacy';

export const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** autocannon replaces this with a unique id per request (`idReplacement`). */
export const ID_SLOT = '[<id>]';

export const BASE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

export function request(
  era: Era,
  id: string | number,
  method: string,
  params: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: era === 'modern' ? { ...params, _meta: ENVELOPE } : params,
  };
}

export function toolCall(era: Era, id: string | number, name: string, args: object = {}) {
  return request(era, id, 'tools/call', { name, arguments: args });
}

export function initialize(id: string | number) {
  return request('legacy', id, 'initialize', {
    protocolVersion: LEGACY,
    capabilities: {},
    clientInfo: { name: 'mcp-run-bench', version: '1.0.0' },
  });
}

export const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

/** The routing headers of one modern POST. */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  return {
    ...BASE_HEADERS,
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(name !== undefined && { 'mcp-name': name }),
  };
}

/**
 * Opens a legacy HTTP session: `initialize`, then `notifications/initialized`. Resolves with the
 * headers every later request carries (the session id, when the server minted one).
 */
export async function legacyHttpSession(url: string): Promise<Record<string, string>> {
  const init = await fetch(url, {
    method: 'POST',
    headers: BASE_HEADERS,
    body: JSON.stringify(initialize(0)),
  });
  const text = await init.text();
  if (init.status !== 200 || !text.includes(LEGACY)) {
    throw new Error(`initialize at ${url} failed: ${init.status} ${text.slice(0, 300)}`);
  }
  const session = init.headers.get('mcp-session-id');
  const headers = {
    ...BASE_HEADERS,
    'mcp-protocol-version': LEGACY,
    ...(session && { 'mcp-session-id': session }),
  };
  const ack = await fetch(url, { method: 'POST', headers, body: JSON.stringify(INITIALIZED) });
  await ack.text();
  return headers;
}

/** A successful JSON-RPC answer (JSON or one SSE event) that is not a tool error. */
export const answered = (body: string): boolean =>
  body.includes('"result"') && !body.includes('"isError":true');
