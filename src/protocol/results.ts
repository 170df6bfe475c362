/**
 * What results say about the server: capabilities, serverInfo, and the 2026-07-28 decoration
 * (resultType, ttlMs + cacheScope, `_meta` serverInfo) added to every modern result in one place.
 */
import { contractHash } from '../catalog/contract-hash.js';
import type { Catalog } from '../catalog/types.js';
import { ErrorCode, errorResponse, isObject, isRequestId, ProtocolError } from './jsonrpc.js';
import { Meta } from './versions.js';

/**
 * All three categories always, even when a list is empty, so clients never have to re-initialize.
 * `resources.subscribe` only when resource updates are really sent (the manifest is watched).
 */
export function buildCapabilities(listChanged: boolean, resourceUpdates: boolean): object {
  return {
    tools: { listChanged },
    resources: resourceUpdates ? { subscribe: true, listChanged } : { listChanged },
    prompts: { listChanged },
    logging: {},
    completions: {},
  };
}

interface ServerIdentity {
  /** `serverInfo` of the initialize result. */
  readonly info: object;
  /** `_meta` of every modern result. */
  readonly meta: Readonly<Record<string, unknown>>;
  /** `_meta` of the initialize result: the contract hash. */
  readonly legacyMeta: Readonly<Record<string, unknown>>;
}

const identities = new WeakMap<Catalog, ServerIdentity>();

function identity(catalog: Catalog): ServerIdentity {
  let found = identities.get(catalog);
  if (found === undefined) {
    const { name, version, title } = catalog.server;
    const info = title === undefined ? { name, version } : { name, version, title };
    const contract = contractHash(catalog);
    found = {
      info,
      meta: { [Meta.serverInfo]: info, [Meta.contract]: contract },
      legacyMeta: { [Meta.contract]: contract },
    };
    identities.set(catalog, found);
  }
  return found;
}

export const serverInfo = (catalog: Catalog): object => identity(catalog).info;
export const initializeMeta = (catalog: Catalog): object => identity(catalog).legacyMeta;

/**
 * Wraps an era-neutral result for a 2026 request. `ttlMs` is given for cacheable methods only.
 * A result's own `_meta` (the listen result's subscriptionId) is kept beside serverInfo.
 */
export function modernResult(result: object, catalog: Catalog, ttlMs: number | undefined): object {
  if (!(JSON_TEXT in result)) return decorate(result, catalog, ttlMs);
  // A cached list page: its decorated form is cached too, per ttl, so it keeps its JSON text.
  let forms = modernForms.get(result);
  if (forms === undefined) {
    forms = new Map();
    modernForms.set(result, forms);
  }
  let modern = forms.get(ttlMs);
  if (modern === undefined) {
    modern = withJsonText(decorate(result, catalog, ttlMs));
    forms.set(ttlMs, modern);
  }
  return modern;
}

/** Pages are per catalog, so a page's decorated forms carry that catalog's serverInfo. */
const modernForms = new WeakMap<object, Map<number | undefined, object>>();

function decorate(result: object, catalog: Catalog, ttlMs: number | undefined): object {
  const own = (result as { _meta?: unknown })._meta;
  const meta = isObject(own) ? { ...identity(catalog).meta, ...own } : identity(catalog).meta;
  const cacheScope = PRIVATE.has(result) ? 'private' : 'public';
  return ttlMs === undefined
    ? { resultType: 'complete', ...result, _meta: meta }
    : { resultType: 'complete', ...result, ttlMs, cacheScope, _meta: meta };
}

/** Results that depend on who asked (a claim-bound read): cacheable for that caller only. */
const PRIVATE = new WeakSet<object>();

/** Marks a cacheable result as the caller's own: its 2026 form says `cacheScope: 'private'`. */
export function privateResult<T extends object>(result: T): T {
  PRIVATE.add(result);
  return result;
}

/**
 * The JSON text of an immutable result (a cached list page), kept on it under a non-enumerable
 * symbol: in-process code sees a plain object (spreads, `Object.keys` and JSON.stringify skip the
 * key), and the transports send the text instead of serializing the page on every request.
 */
const JSON_TEXT: unique symbol = Symbol('mcp-run.jsonText');

/** Marks `value` as never changing again; its JSON text is computed on first use. */
export function withJsonText<T extends object>(value: T): T {
  Object.defineProperty(value, JSON_TEXT, { value: undefined, writable: true, enumerable: false });
  return value;
}

/** The JSON text of a value marked by `withJsonText` (computed once), else undefined. */
export function jsonTextOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !(JSON_TEXT in value)) return undefined;
  const marked = value as { [JSON_TEXT]: string | undefined };
  marked[JSON_TEXT] ??= JSON.stringify(value);
  return marked[JSON_TEXT];
}

/** The id of a plain result response `{jsonrpc, id, result}` whose result is marked, else undefined. */
function splicedId(message: object): string | number | undefined {
  const m = message as { jsonrpc?: unknown; id?: unknown; result?: unknown };
  if (m.jsonrpc !== '2.0' || m.result === undefined) return undefined;
  const id = m.id;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  if (typeof id === 'number' && !Number.isFinite(id)) return undefined;
  if (typeof m.result !== 'object' || m.result === null || !(JSON_TEXT in m.result)) return undefined;
  const keys = Object.keys(message);
  if (keys.length !== 3 || keys[0] !== 'jsonrpc' || keys[1] !== 'id' || keys[2] !== 'result')
    return undefined;
  return id;
}

/**
 * `{"jsonrpc":"2.0","id":…,"result":…}` with the result's cached text spliced in, byte for byte
 * what JSON.stringify gives for a response built by resultResponse; undefined for any other message.
 */
export function cachedResponseText(message: object): string | undefined {
  const id = splicedId(message);
  if (id === undefined) return undefined;
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${jsonTextOf((message as { result: object }).result)}}`;
}

/**
 * Compact JSON of an outbound message, as every transport sends it: a cached list page's text
 * spliced in, anything else through JSON.stringify (newlines inside strings come out escaped). One
 * that cannot be serialized becomes -32603 for the same id; `onError` is told why.
 */
export function serializeMessage(message: object, onError?: (err: unknown) => void): string {
  try {
    return cachedResponseText(message) ?? JSON.stringify(message);
  } catch (err) {
    onError?.(err);
    const id = isObject(message) && isRequestId(message.id) ? message.id : null;
    const error = new ProtocolError(
      ErrorCode.InternalError,
      'Internal error: the result could not be serialized',
    );
    return JSON.stringify(errorResponse(id, error));
  }
}

const JSON_TAIL: unique symbol = Symbol('mcp-run.jsonTail');

/**
 * The same response as `cachedResponseText`, in two parts: `head` (`{"jsonrpc":"2.0","id":…`) and
 * `tail` (`,"result":…}` as UTF-8 bytes in chunks, made once per marked result). A transport that
 * writes both sends the same bytes without copying, or measuring the UTF-8 length of, a large page
 * per request.
 */
export function cachedResponseParts(message: object): { head: string; tail: readonly Buffer[] } | undefined {
  const id = splicedId(message);
  if (id === undefined) return undefined;
  const result = (message as { result: { [JSON_TAIL]?: readonly Buffer[] } }).result;
  let tail = result[JSON_TAIL];
  if (tail === undefined) {
    tail = tailChunks(result);
    Object.defineProperty(result, JSON_TAIL, { value: tail, enumerable: false });
  }
  return { head: `{"jsonrpc":"2.0","id":${JSON.stringify(id)}`, tail };
}

/** The bytes of the chunks `tailChunks` fills (a larger item gets a chunk of its own size). */
const CHUNK_BYTES = 256 * 1024;

/**
 * `,"result":<JSON text>}` as UTF-8, byte for byte what JSON.stringify gives, written item by item
 * (each element of an array member is stringified on its own) into chunks of bytes. For a page of a
 * large API (6 MB of JSON, which V8 holds as a 12 MB string when one character is past Latin-1)
 * the text of the whole page and the string joined from it took some 25 MB more at once than the
 * bytes that are sent; an item's text is garbage as soon as it is written.
 */
function tailChunks(result: object): Buffer[] {
  const chunks: Buffer[] = [];
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let at = 0;
  const write = (text: string): void => {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (at + bytes > chunk.length) {
      if (at > 0) chunks.push(chunk.subarray(0, at));
      chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, bytes));
      at = 0;
    }
    at += chunk.write(text, at, 'utf8');
  };
  write(',"result":');
  const known = (result as { [JSON_TEXT]?: string })[JSON_TEXT];
  if (known === undefined) writeJson(result, write);
  else write(known);
  write('}');
  chunks.push(chunk.subarray(0, at));
  return chunks;
}

/** JSON.stringify of a plain object, given to `write` in pieces: each element of an array member is one. */
function writeJson(value: object, write: (text: string) => void): void {
  write('{');
  let first = true;
  for (const [key, member] of Object.entries(value)) {
    const items = Array.isArray(member) ? (member as unknown[]) : undefined;
    const text = items === undefined ? JSON.stringify(member) : '';
    if (text === undefined) continue; // a function or undefined: JSON.stringify leaves the key out
    write(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    if (items === undefined) write(text);
    else {
      write('[');
      for (const [i, item] of items.entries())
        write(`${i === 0 ? '' : ','}${JSON.stringify(item) ?? 'null'}`);
      write(']');
    }
  }
  write('}');
}
