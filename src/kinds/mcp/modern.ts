/**
 * mcp-run's client side of the stateless era (2026-07-28) for an HTTP upstream: what client.ts
 * adds to a request in that era and how it reads the answers. No handshake: `server/discover` says
 * whether the upstream speaks 2026-07-28 and what it offers; every request carries the `_meta`
 * envelope (protocol version, client capabilities, client info) and, over HTTP, the headers that
 * mirror it (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`); no session. A result's
 * `resultType` is read: `input_required` (the upstream asks us: elicitation, sampling, roots) is
 * answered through the call's own relay (the same `onRequest` the 2025 era's server→client
 * requests go to) and the request retried with `inputResponses` and the `requestState` echoed.
 *
 * The upstream's answers are data: each is checked for shape; a question that cannot be answered
 * ends the request with a sentence, since MRTR has no error answer to send back.
 */
import { escapeControls } from '../../util/escape-controls.js';
import { isObject } from '../../util/is-object.js';

export const MODERN_VERSION = '2026-07-28';
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
const LOG_LEVEL_KEY = 'io.modelcontextprotocol/logLevel';

/** How the source picks the era of its HTTP upstream (`era:` in the manifest). */
export type Era = 'auto' | '2025' | '2026';

/** Rounds of one request at most: an upstream that asks forever is cut off here. */
export const MAX_ROUNDS = 16;
/** Questions of one round at most. */
export const MAX_QUESTIONS = 8;

/**
 * The client capabilities a request declares: what its relay can answer (elicitation, sampling),
 * and roots when the source names them (mcp-run answers those itself, never a caller).
 */
export function capabilitiesFor(relays: boolean, roots = false): Record<string, unknown> {
  return { ...(relays && { elicitation: {}, sampling: {} }), ...(roots && { roots: {} }) };
}

/**
 * A request's params with the envelope in its `_meta` (kept: a progress token). `logs`: the
 * request opts in to the upstream's log messages (2026 sends none without it).
 */
export function enveloped(
  params: Readonly<Record<string, unknown>>,
  relays: boolean,
  logs: boolean,
  roots = false,
): Record<string, unknown> {
  const meta = isObject(params._meta) ? params._meta : {};
  return {
    ...params,
    _meta: {
      ...meta,
      [VERSION_KEY]: MODERN_VERSION,
      [CAPABILITIES_KEY]: capabilitiesFor(relays, roots),
      [CLIENT_INFO_KEY]: { name: 'mcp-run', version: '1' },
      ...(logs && { [LOG_LEVEL_KEY]: 'debug' }),
    },
  };
}

/** Whether a request's params carry the 2026 envelope (the HTTP channel's headers follow it). */
export function isEnveloped(message: unknown): boolean {
  return (
    isObject(message) &&
    isObject(message.params) &&
    isObject(message.params._meta) &&
    message.params._meta[VERSION_KEY] === MODERN_VERSION
  );
}

/**
 * The 2026 HTTP headers of a request (Streamable HTTP 2026-07-28): its version, method, and the
 * name or URI it is about. Empty for a message without the envelope (the 2025 era's).
 */
export function modernHeaders(message: unknown): Record<string, string> {
  if (!isEnveloped(message) || !isObject(message)) return {};
  const method = typeof message.method === 'string' ? message.method : undefined;
  if (method === undefined) return {};
  const params = message.params as Record<string, unknown>;
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': method };
  const name =
    method === 'tools/call' || method === 'prompts/get'
      ? params.name
      : method === 'resources/read'
        ? params.uri
        : undefined;
  if (typeof name === 'string') headers['mcp-name'] = headerValue(name);
  return headers;
}

/** A header value as the 2026 HTTP transport writes it: as is when plain ASCII, else base64. */
export function headerValue(value: string): string {
  const plain = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !value.startsWith('=?base64?');
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/**
 * The `Mcp-Param-{Name}` headers of a `tools/call` (2026 HTTP): each top-level property of the
 * tool's input schema marked `x-mcp-header: Name` (an RFC 9110 token) whose argument is a string,
 * an integer or a boolean. The upstream refuses a call without them (-32020).
 */
export function paramHeaders(
  inputSchema: unknown,
  args: Readonly<Record<string, unknown>>,
): Record<string, string> {
  const properties = isObject(inputSchema) && isObject(inputSchema.properties) ? inputSchema.properties : {};
  const out: Record<string, string> = {};
  for (const [property, schema] of Object.entries(properties)) {
    const name = isObject(schema) ? schema['x-mcp-header'] : undefined;
    if (typeof name !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/.test(name)) continue;
    const value = args[property];
    if (typeof value === 'string') out[`mcp-param-${name.toLowerCase()}`] = headerValue(value);
    else if (typeof value === 'boolean' || (typeof value === 'number' && Number.isSafeInteger(value)))
      out[`mcp-param-${name.toLowerCase()}`] = String(value);
  }
  return out;
}

/** What `server/discover` answered, when it says the upstream speaks 2026-07-28. */
export function discovered(result: unknown): { capabilities: Record<string, unknown> } | undefined {
  if (!isObject(result) || !Array.isArray(result.supportedVersions)) return undefined;
  if (!result.supportedVersions.includes(MODERN_VERSION)) return undefined;
  if (result.resultType !== undefined && result.resultType !== 'complete') return undefined;
  return { capabilities: isObject(result.capabilities) ? result.capabilities : {} };
}

/** One question of an `input_required` result: the upstream's request (method and params). */
export interface Question {
  readonly key: string;
  readonly method: string;
  readonly params: Record<string, unknown>;
}

/**
 * A 2026 result read: `complete` (or none: an older server's), `input_required` with its
 * questions and state, or a sentence saying why it is not usable.
 */
export function readResult(
  result: unknown,
  what: string,
):
  | { readonly kind: 'complete' }
  | { readonly kind: 'input'; readonly questions: Question[]; readonly requestState: string | undefined }
  | { readonly kind: 'invalid'; readonly reason: string } {
  const type = isObject(result) ? result.resultType : undefined;
  if (type === undefined || type === 'complete') return { kind: 'complete' };
  if (type !== 'input_required')
    return {
      kind: 'invalid',
      reason: `${what} has resultType ${shown(type)}, which mcp-run does not know`,
    };
  const r = result as Record<string, unknown>;
  const requestState = typeof r.requestState === 'string' ? r.requestState : undefined;
  const requests = isObject(r.inputRequests) ? Object.entries(r.inputRequests) : [];
  if (requests.length > MAX_QUESTIONS)
    return {
      kind: 'invalid',
      reason: `${what} asks ${requests.length} questions at once (at most ${MAX_QUESTIONS})`,
    };
  const questions: Question[] = [];
  for (const [key, request] of requests) {
    if (!isObject(request) || typeof request.method !== 'string')
      return { kind: 'invalid', reason: `${what} asks a question that is not a request (key ${shown(key)})` };
    questions.push({ key, method: request.method, params: isObject(request.params) ? request.params : {} });
  }
  if (questions.length === 0 && requestState === undefined)
    return { kind: 'invalid', reason: `${what} is input_required with neither questions nor requestState` };
  return { kind: 'input', questions, requestState };
}

function shown(value: unknown): string {
  return escapeControls(String(JSON.stringify(value)).slice(0, 100));
}
