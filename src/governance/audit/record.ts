/**
 * One audit record's fields and how the request's arguments are written down: secrets replaced as
 * the logger replaces them, the parts the request's note names (claim-bound arguments, masked
 * fields) replaced by `[redacted]`, and the whole bounded in size and depth (the arguments come
 * from the caller). The record is encoded here without `seq`, `prev` and `hash`: the writer adds
 * those as it writes the line (chain.ts).
 */
import type { RefusalDecision } from '../refusal.js';

/** How a request ended, as the record says. `error` comes with the JSON-RPC code. */
export type AuditOutcome = 'ok' | 'tool_error' | 'error' | 'cancelled' | 'input_required';
export type AuditDecision = 'allow' | RefusalDecision;

/** Who made the request, as far as the transport verified it. */
export interface AuditCaller {
  /** The access token's issuer and subject (OAuth). */
  readonly issuer?: string;
  readonly subject?: string;
  /** The OAuth client the token was issued to (`client_id`, else `azp`). */
  readonly client?: string;
  /** The static token's or API key's label, or the OAuth principal (the transport's caller). */
  readonly label?: string;
  /** The toolsets of the endpoint the request came to; absent: the default endpoint. */
  readonly toolsets?: readonly string[];
}

export interface AuditFacts {
  /** When the request started, ms since the epoch. */
  readonly start: number;
  readonly method: string;
  /** The tool or prompt name, or the resource URI. */
  readonly entry?: string;
  readonly caller: AuditCaller;
  /** The arguments as written down (already redacted: redactArguments). */
  readonly arguments?: unknown;
  readonly decision: AuditDecision;
  /** The rule behind a deny or limit (or an allow a policy named). */
  readonly rule?: string;
  readonly outcome: AuditOutcome;
  /** The JSON-RPC error code, for `error`. */
  readonly code?: number;
  readonly durationMs: number;
  /** The size of the JSON-RPC response, in bytes (0 when none was sent). */
  readonly bytes: number;
  /** The OpenTelemetry trace the request belongs to, when it is traced. */
  readonly traceId?: string;
  /** Made per request: what the record is known by when there is no trace. */
  readonly requestId: string;
}

/** Arguments larger than this (encoded, after redaction) are recorded by size only. */
export const MAX_ARGUMENT_BYTES = 16 * 1024;
/** Deeper nesting is cut: what lies below is recorded as `[too deep]`. */
const MAX_DEPTH = 32;
const REDACTED = '[redacted]';

/** Encodes one request record's body (no `seq`/`prev`/`hash`) for `writer`. */
export function encodeRecord(writer: string, facts: AuditFacts): string {
  const record: Record<string, unknown> = {
    v: 1,
    type: 'request',
    writer,
    time: new Date(facts.start).toISOString(),
    method: facts.method,
    entry: facts.entry,
    caller: facts.caller,
    arguments: facts.arguments,
    decision: facts.decision,
    rule: facts.rule,
    outcome: facts.outcome,
    code: facts.code,
    durationMs: Math.round(facts.durationMs * 1000) / 1000,
    bytes: facts.bytes,
    traceId: facts.traceId,
    requestId: facts.requestId,
  };
  return JSON.stringify(record);
}

/**
 * The arguments as the record shows them: every string (and key) through `secret` (the logger's
 * redaction of `${env:…}` values), each JSON Pointer of `pointers` replaced by `[redacted]`, and
 * the whole recorded by size alone past MAX_ARGUMENT_BYTES.
 */
export function redactArguments(
  args: unknown,
  pointers: readonly string[],
  secret: (text: string) => string,
): unknown {
  if (args === undefined) return undefined;
  if (pointers.includes('')) return REDACTED;
  const masked = pointers.length === 0 ? undefined : pointerTree(pointers);
  const copy = copyRedacted(args, masked, secret, 0);
  const bytes = Buffer.byteLength(JSON.stringify(copy));
  return bytes > MAX_ARGUMENT_BYTES ? { $omitted: 'too large', bytes } : copy;
}

/** A tree of the pointers' segments; a leaf (true) is a value to redact. */
type PointerTree = Map<string, PointerTree | true>;

function pointerTree(pointers: readonly string[]): PointerTree {
  const root: PointerTree = new Map();
  for (const pointer of pointers) {
    const segments = pointer
      .split('/')
      .slice(1)
      .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
    let node = root;
    segments.forEach((segment, i) => {
      if (i === segments.length - 1) node.set(segment, true);
      else {
        const next = node.get(segment);
        if (next === true) return;
        const child: PointerTree = next ?? new Map();
        node.set(segment, child);
        node = child;
      }
    });
  }
  return root;
}

function copyRedacted(
  value: unknown,
  masked: PointerTree | undefined,
  secret: (text: string) => string,
  depth: number,
): unknown {
  if (typeof value === 'string') return secret(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (Array.isArray(value)) {
    return value.map((item, i) => {
      const mask = masked?.get(String(i));
      return mask === true ? REDACTED : copyRedacted(item, mask, secret, depth + 1);
    });
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const mask = masked?.get(key);
    Object.defineProperty(out, secret(key), {
      value: mask === true ? REDACTED : copyRedacted(item, mask, secret, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
