/**
 * Decides, per request, which era serves it and which method-table entry handles it, or which
 * error refuses it. The rules (digest §5.12):
 * - an `io.modelcontextprotocol/` key in `params._meta` makes a request modern, validated and served
 *   statelessly; legacy-only methods do not exist for it (-32601, HTTP 404);
 * - `server/discover` and `subscriptions/listen` exist only for modern requests (-32602 without the
 *   envelope);
 * - otherwise the request is legacy: `initialize` (re)starts the session, and everything else
 *   (except `ping`) needs a completed `initialize` first.
 */
import type { MethodSpec } from './context.js';
import { type Envelope, hasEnvelope, headerOnlyFault, missingEnvelope, readEnvelope } from './envelope.js';
import { ErrorCode, HttpStatus, invalidRequest, isObject, ProtocolError } from './jsonrpc.js';
import { METHODS } from './method-table.js';
import type { LegacySession } from './session.js';
import { type Era, isLegacyVersion, isModernVersion, Meta, MODERN_VERSIONS } from './versions.js';

export type Classification =
  | {
      readonly ok: true;
      readonly era: Era;
      readonly envelope: Envelope | undefined;
      readonly spec: MethodSpec;
    }
  | {
      readonly ok: false;
      readonly era: Era;
      readonly error: ProtocolError;
      /** A 2026 method refused for its envelope: the routing headers are checked too, to name every fault at once. */
      readonly spec?: MethodSpec;
    };

const fail = (era: Era, error: ProtocolError, spec?: MethodSpec): Classification =>
  spec === undefined ? { ok: false, era, error } : { ok: false, era, error, spec };

/** The method a request with a broken envelope names, when it is a 2026 method and the fault is not its version. */
function envelopeFaultSpec(spec: MethodSpec | undefined, error: ProtocolError): MethodSpec | undefined {
  if (spec === undefined || spec.era === 'legacy') return undefined;
  return error.code === ErrorCode.UnsupportedProtocolVersion ? undefined : spec;
}

/**
 * The transport's question, answered by the same rules: does this HTTP message go to a stateless
 * 2026 exchange, or to the 2025 session machinery? 2026 by header or by envelope; a version nobody
 * supports, outside a session, goes there too, to be refused with -32022.
 */
export function servedStatelessly(
  message: unknown,
  headerVersion: string | undefined,
  inSession: boolean,
): boolean {
  if (headerVersion !== undefined && isModernVersion(headerVersion)) return true;
  if (isObject(message) && isObject(message.params) && hasEnvelope(message.params._meta)) return true;
  return headerVersion !== undefined && !isLegacyVersion(headerVersion) && !inSession;
}

export function classifyRequest(
  method: string,
  params: Record<string, unknown>,
  session: LegacySession,
  headerVersion: string | undefined,
  inBatch: boolean,
): Classification {
  const meta = params._meta;
  const spec = METHODS.get(method);
  if (hasEnvelope(meta)) {
    let envelope: Envelope;
    try {
      envelope = readEnvelope(meta, headerVersion);
    } catch (err) {
      const error = err as ProtocolError;
      return fail('modern', error, inBatch ? undefined : envelopeFaultSpec(spec, error));
    }
    if (inBatch)
      return fail('modern', invalidRequest('a JSON-RPC batch must not contain 2026-07-28 requests'));
    if (spec === undefined || spec.era === 'legacy')
      return fail('modern', methodNotFound(method, spec !== undefined));
    return { ok: true, era: 'modern', envelope, spec };
  }
  const headerFault = headerOnlyFault(headerVersion);
  if (headerFault !== undefined)
    return fail('modern', headerFault, inBatch ? undefined : envelopeFaultSpec(spec, headerFault));
  if (spec?.era === 'modern') {
    const error = missingEnvelope(method);
    return fail('modern', error, inBatch ? undefined : spec);
  }
  if (method === 'initialize') {
    if (inBatch) return fail('legacy', invalidRequest('initialize must not be sent inside a JSON-RPC batch'));
  } else if (session.version === undefined && method !== 'ping') {
    return fail('legacy', notInitialized(method));
  }
  if (spec === undefined)
    return fail('legacy', new ProtocolError(ErrorCode.MethodNotFound, `Method not found: ${method}`));
  if (spec.legacySince !== undefined && session.version !== undefined && session.version < spec.legacySince)
    return fail(
      'legacy',
      new ProtocolError(
        ErrorCode.MethodNotFound,
        `Method not found: ${method} (it exists from protocol ${spec.legacySince}; this session negotiated ${session.version})`,
      ),
    );
  return { ok: true, era: 'legacy', envelope: undefined, spec };
}

function methodNotFound(method: string, removed: boolean): ProtocolError {
  const why = removed
    ? ` (not part of protocol ${MODERN_VERSIONS[0]}; it exists only after initialize in the 2025 era)`
    : '';
  return new ProtocolError(
    ErrorCode.MethodNotFound,
    `Method not found: ${method}${why}`,
    undefined,
    HttpStatus.NotFound,
  );
}

function notInitialized(method: string): ProtocolError {
  return invalidRequest(
    `"${method}" arrived before initialize: send "initialize" first (2025 era), or carry the _meta envelope ` +
      `"${Meta.protocolVersion}" + "${Meta.clientCapabilities}" on every request (${MODERN_VERSIONS[0]} era)`,
  );
}
