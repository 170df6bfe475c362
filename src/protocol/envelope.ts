/**
 * The 2026-07-28 per-request `_meta` envelope: how a request is recognised as modern, and the checks
 * it must pass before any handler runs. Envelope faults carry HTTP 400 (the 2026 status table).
 */
import type { LogLevel } from '../catalog/types.js';
import { allFaults, ErrorCode, HttpStatus, isObject, ProtocolError } from './jsonrpc.js';
import { isLogLevel, LOG_LEVEL_NAMES } from './log-levels.js';
import { isLegacyVersion, isModernVersion, META_PREFIX, Meta, SUPPORTED_VERSIONS } from './versions.js';

/** What a modern request tells us about itself; it is all the state a modern request has. */
export interface Envelope {
  readonly version: string;
  /** Logs for this request only, at or above this level; none when absent. */
  readonly logLevel: LogLevel | undefined;
  /** What the client declared for this request only (what it may be asked through MRTR). */
  readonly capabilities: Readonly<Record<string, unknown>>;
}

/** A request is modern when its `params._meta` has any `io.modelcontextprotocol/` key. */
export function hasEnvelope(meta: unknown): meta is Record<string, unknown> {
  if (!isObject(meta)) return false;
  if (meta[Meta.protocolVersion] !== undefined) return true;
  for (const key in meta) if (key.startsWith(META_PREFIX)) return true;
  return false;
}

/**
 * Validates a modern envelope. `headerVersion` is the transport's `MCP-Protocol-Version` header,
 * when it has one: the body and the header must agree. `clientInfo` is deliberately not required.
 * Every fault of the envelope is named in one error (allFaults); a version nobody supports is its
 * own error (-32022 with `{supported, requested}`), once the envelope is otherwise whole.
 */
export function readEnvelope(meta: Record<string, unknown>, headerVersion: string | undefined): Envelope {
  const faults: ProtocolError[] = [];
  const version = meta[Meta.protocolVersion];
  if (typeof version !== 'string') faults.push(missingField(Meta.protocolVersion, 'a string'));
  const capabilities = meta[Meta.clientCapabilities];
  if (!isObject(capabilities)) faults.push(missingField(Meta.clientCapabilities, 'an object'));
  if (typeof version === 'string' && headerVersion !== undefined && headerVersion !== version) {
    faults.push(
      new ProtocolError(
        ErrorCode.HeaderMismatch,
        `MCP-Protocol-Version header "${headerVersion}" does not match _meta "${Meta.protocolVersion}" "${version}"`,
        undefined,
        HttpStatus.BadRequest,
      ),
    );
  }
  const logLevel = meta[Meta.logLevel];
  if (logLevel !== undefined && !isLogLevel(logLevel)) {
    faults.push(
      new ProtocolError(
        ErrorCode.InvalidParams,
        `invalid _meta "${Meta.logLevel}" ${JSON.stringify(logLevel)}: expected one of ${LOG_LEVEL_NAMES}`,
        undefined,
        HttpStatus.BadRequest,
      ),
    );
  }
  const [first, ...more] = faults;
  if (first !== undefined || typeof version !== 'string' || !isObject(capabilities))
    throw allFaults([first ?? missingField(Meta.protocolVersion, 'a string'), ...more]);
  if (!isModernVersion(version)) throw unsupportedVersion(version);
  return { version, logLevel: isLogLevel(logLevel) ? logLevel : undefined, capabilities };
}

/** For modern-only methods (`server/discover`, `subscriptions/listen`) sent without an envelope. */
export function missingEnvelope(method: string): ProtocolError {
  return noEnvelope(`${method} is a 2026-07-28 method`);
}

/**
 * A request without an envelope whose transport header names a non-legacy version: a modern
 * request that forgot its envelope, or a version nobody supports. Undefined means "legacy, go on".
 */
export function headerOnlyFault(headerVersion: string | undefined): ProtocolError | undefined {
  if (headerVersion === undefined || isLegacyVersion(headerVersion)) return undefined;
  if (!isModernVersion(headerVersion)) return unsupportedVersion(headerVersion);
  return noEnvelope(
    `the MCP-Protocol-Version header says ${headerVersion}, whose requests carry the envelope`,
  );
}

function unsupportedVersion(requested: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.UnsupportedProtocolVersion,
    `Unsupported protocol version "${requested}"; supported: ${SUPPORTED_VERSIONS.join(', ')}`,
    { supported: SUPPORTED_VERSIONS, requested },
    HttpStatus.BadRequest,
  );
}

function missingField(key: string, expected: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.InvalidParams,
    `missing _meta envelope field "${key}" (${expected}) in params._meta`,
    undefined,
    HttpStatus.BadRequest,
  );
}

/** A request with no envelope at all lacks both required fields: one error names the two. */
function noEnvelope(why: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.InvalidParams,
    `missing _meta envelope fields "${Meta.protocolVersion}" (a string) and "${Meta.clientCapabilities}" (an object) in params._meta; ${why}`,
    undefined,
    HttpStatus.BadRequest,
  );
}
