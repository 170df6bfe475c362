/**
 * Turns whatever a handler threw into the JSON-RPC error to send. Catalog errors have a fixed
 * meaning (ResourceNotFound, InvalidRequestParams); anything unknown is a bug in mcp-run: it is
 * logged in full on stderr and the client gets a message that leaks nothing.
 */

import { InvalidRequestParams, ResourceNotFound } from '../catalog/types.js';
import { GovernanceRefusal } from '../governance/refusal.js';
import type { Logger } from '../log.js';
import { InteractionFailed, MissingClientCapability } from '../steps/interaction.js';
import { ErrorCode, HttpStatus, invalidParams, ProtocolError } from './jsonrpc.js';
import type { Era } from './versions.js';

/** Legacy: -32002; 2026-07-28 reserves that code and uses -32602. Both carry `{uri}`. */
export function resourceNotFound(
  uri: string,
  era: Era,
  message = `Resource not found: ${uri}`,
): ProtocolError {
  const code = era === 'modern' ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound;
  return new ProtocolError(code, message, { uri });
}

/** Maps the errors every handler shares; undefined for an unexpected error. */
export function knownError(err: unknown, era: Era): ProtocolError | undefined {
  if (err instanceof ProtocolError) return err;
  if (err instanceof ResourceNotFound) return resourceNotFound(err.uri, era, err.message);
  if (err instanceof InvalidRequestParams) return invalidParams(err.message);
  if (err instanceof GovernanceRefusal) return refusalError(err);
  if (err instanceof MissingClientCapability) {
    // 2026: -32021 with the ClientCapabilities object it needs; a 2025 prompt: invalid params.
    if (era === 'legacy') return invalidParams(err.message);
    const data = { requiredCapabilities: err.required };
    return new ProtocolError(
      ErrorCode.MissingRequiredClientCapability,
      err.message,
      data,
      HttpStatus.BadRequest,
    );
  }
  // A question of a 2025 prompt that got no answer: not a bug, so the client hears why.
  if (err instanceof InteractionFailed) return new ProtocolError(ErrorCode.InternalError, err.message);
  return undefined;
}

/**
 * A policy's or a limit's refusal: -32040 (deny) or -32041 (limit), naming the rule and, for a
 * limit, when a retry can pass (`retryAfterMs`, and `retryAfter` in whole seconds as HTTP has it).
 */
function refusalError(refusal: GovernanceRefusal): ProtocolError {
  const { decision, rule, retryAfterMs } = refusal;
  if (decision === 'deny') return new ProtocolError(ErrorCode.PolicyDenied, refusal.message, { rule });
  const data =
    retryAfterMs === undefined
      ? { rule }
      : { rule, retryAfterMs, retryAfter: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
  return new ProtocolError(ErrorCode.LimitExceeded, refusal.message, data);
}

export function toProtocolError(err: unknown, era: Era, method: string, log: Logger): ProtocolError {
  const known = knownError(err, era);
  if (known !== undefined) return known;
  log.error(`${method} failed: ${describe(err)}`);
  return new ProtocolError(ErrorCode.InternalError, `Internal error while handling ${method}`);
}

export function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
