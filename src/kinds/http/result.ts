/**
 * An HTTP answer as a tool result. JSON becomes structuredContent (after `output.pick`, wrapped as
 * `{result: value}` when it is not an object, since 2025 clients accept only objects) plus readable
 * text; text stays text; images and audio become image/audio content; anything else an embedded
 * blob. A non-2xx answer is an error result naming the request, the status and the start of the body.
 * Every string the model sees passes through the source's redaction first.
 */

import { isObject } from '../../util/is-object.js';
import type { HttpResponse } from '../contract/kinds.js';
import { errorResult } from '../contract/results.js';
import type { ContentBlock, ToolResult } from '../contract/types.js';
import type { Pick } from '../shared/json-pick.js';
import { isTextMime } from '../shared/mime.js';

export interface ShapeOptions {
  /** `GET /api/v2/items/9`: the method and the full path (base path included), never the query (it may hold a key). */
  readonly label: string;
  /** Where the answer came from, for embedded blobs (no query). */
  readonly uri: string;
  readonly pick?: Pick;
  readonly template?: (data: Readonly<Record<string, unknown>>) => string;
  readonly redact: (text: string) => string;
}

const EXCERPT_CHARS = 300;

export function responseResult(res: HttpResponse, o: ShapeOptions): ToolResult {
  if (res.status < 200 || res.status > 299) return statusError(res, o);
  const mime = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (res.body.length === 0) {
    return text(`${o.label} returned ${res.status} ${res.statusText} with no content.`);
  }
  if (mime === 'application/json' || mime.endsWith('+json')) {
    const parsed = parseJson(res.body);
    if (parsed.ok) return jsonResult(parsed.value, o);
  }
  if (mime === '' || isTextMime(mime)) return text(o.redact(res.body.toString('utf8')));
  const data = res.body.toString('base64');
  if (mime.startsWith('image/')) return { content: [{ type: 'image', data, mimeType: mime }] };
  if (mime.startsWith('audio/')) return { content: [{ type: 'audio', data, mimeType: mime }] };
  const block: ContentBlock = { type: 'resource', resource: { uri: o.uri, mimeType: mime, blob: data } };
  return { content: [block] };
}

function jsonResult(value: unknown, o: ShapeOptions): ToolResult {
  const picked = redactDeep(o.pick ? o.pick(value) : value, o.redact);
  const structuredContent = isObject(picked) ? picked : { result: picked };
  const shown = o.template ? o.redact(o.template(structuredContent)) : JSON.stringify(picked, null, 2);
  return { content: [{ type: 'text', text: shown }], structuredContent };
}

const STATUS_HINTS: Readonly<Record<number, string>> = {
  400: 'The API rejected the request; check the arguments.',
  401: 'The credentials are missing or not valid.',
  403: 'The credentials do not allow this (or a rate limit applies).',
  404: 'It does not exist, or the credentials cannot see it.',
  409: 'It conflicts with the current state; read it again before changing it.',
  422: 'The API rejected the arguments; check them.',
  429: 'Rate limited: wait before calling again.',
};

function statusError(res: HttpResponse, o: ShapeOptions): ToolResult {
  const lines = [`${o.label} returned ${res.status} ${res.statusText}: ${excerpt(res, o.redact)}`];
  const hint = STATUS_HINTS[res.status] ?? (res.status >= 500 ? 'The API failed; try again later.' : '');
  if (hint) lines.push(hint);
  const retryAfter = res.headers['retry-after'];
  if (retryAfter) lines.push(`The API asks to wait (Retry-After: ${retryAfter}) before trying again.`);
  if (res.attempts > 1) lines.push(`Tried ${res.attempts} times.`);
  if (res.retryNote !== undefined) lines.push(res.retryNote);
  return errorResult(lines.join('\n'));
}

function excerpt(res: HttpResponse, redact: (text: string) => string): string {
  if (res.body.length === 0) return '(empty body)';
  const mime = res.headers['content-type'] ?? '';
  if (mime !== '' && !isTextMime(mime)) return `(${res.body.length} bytes of ${mime.split(';')[0]})`;
  const flat = redact(res.body.toString('utf8')).replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
}

function parseJson(body: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

/**
 * The value with every string (keys included) redacted. Copied only where something changed: most
 * answers hold no secret, and a copy of every object of a parsed answer cost more than reading it.
 * Each value is redacted once, so the work stays linear however deep the answer nests.
 */
function redactDeep(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = redactDeep(value[i], redact);
      if (v === value[i]) continue;
      out ??= value.slice();
      out[i] = v;
    }
    return out ?? value;
  }
  if (!isObject(value)) return value;
  const keys = Object.keys(value);
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const key = redact(k);
    const v = redactDeep(value[k], redact);
    if (out === undefined && key === k && v === value[k]) continue;
    if (out === undefined) {
      out = {};
      for (let j = 0; j < i; j++) define(out, keys[j]!, value[keys[j]!]);
    }
    define(out, key, v);
  }
  return out ?? value;
}

/** defineProperty, not assignment: a redacted key may read `__proto__`. */
function define(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

const text = (t: string): ToolResult => ({ content: [{ type: 'text', text: t }] });
