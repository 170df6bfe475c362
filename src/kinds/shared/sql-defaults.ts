/**
 * Per-source defaults for SQL tools. The `sql` capability contract has no place for them yet, so a
 * source that has them exposes `defaults` next to the capability's methods and the tool reads them
 * here; a source without them gets the built-in defaults.
 */
import type { SqlCapability } from '../contracts.js';

export const DEFAULT_MAX_ROWS = 500;
export const DEFAULT_TIMEOUT_MS = 5000;

export interface SqlDefaults {
  readonly maxRows: number;
  readonly timeoutMs: number;
}

export type SqlCapabilityWithDefaults = SqlCapability & { readonly defaults?: Partial<SqlDefaults> };

export function sqlDefaults(capability: SqlCapability): SqlDefaults {
  const own = (capability as SqlCapabilityWithDefaults).defaults;
  return { maxRows: own?.maxRows ?? DEFAULT_MAX_ROWS, timeoutMs: own?.timeoutMs ?? DEFAULT_TIMEOUT_MS };
}
