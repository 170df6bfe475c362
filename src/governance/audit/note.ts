/**
 * The per-request note the governance stages fill in for the audit record: which parts of the
 * arguments must not be written down (a claim-bound argument, a field a policy masks) and, when a
 * stage allowed the request by a named rule, that rule. A refusal needs no note: it is thrown
 * (GovernanceRefusal) and the trail reads it from there.
 *
 * The note rides on an AsyncLocalStorage that only exists while the trail is on: without an audit
 * trail `noteRedacted` finds no store and costs one lookup.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface AuditNote {
  /**
   * JSON Pointers (RFC 6901) into the request's arguments, e.g. `/card/number`: each value there is
   * written as `[redacted]`. The empty pointer `""` is all the arguments.
   */
  readonly redact: string[];
  /** The rule that allowed the request, when a policy names one. */
  allowedBy?: string;
}

const notes = new AsyncLocalStorage<AuditNote>();

/** Runs `fn` with `note` as the note of the request it serves. */
export function withAuditNote<T>(note: AuditNote, fn: () => T): T {
  return notes.run(note, fn);
}

/** Marks arguments (JSON Pointers) of the current request as not to be recorded. */
export function noteRedacted(pointers: readonly string[]): void {
  if (pointers.length === 0) return;
  notes.getStore()?.redact.push(...pointers);
}

/** Names the rule that allowed the current request. */
export function noteAllowedBy(rule: string): void {
  const note = notes.getStore();
  if (note !== undefined) note.allowedBy = rule;
}
