/**
 * The per-request note the governance stages fill in for the audit record: which parts of the
 * arguments must not be written down (a claim-bound argument, a field a policy masks) and the
 * decision a stage made without throwing (an allow by a named rule). A refusal thrown as a
 * GovernanceRefusal needs no note: the trail reads it from the error.
 *
 * The note rides on an AsyncLocalStorage that only exists while the trail is on: without an audit
 * trail `noteRedacted` finds no store and costs one lookup.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RefusalDecision } from '../refusal.js';

export interface AuditNote {
  /**
   * JSON Pointers (RFC 6901) into the request's arguments, e.g. `/card/number`: each value there is
   * written as `[redacted]`. The empty pointer `""` is all the arguments.
   */
  readonly redact: string[];
  /**
   * The decision a stage made without throwing: an allow by a named rule, or a refusal it answered
   * as a tool error. A thrown GovernanceRefusal takes precedence.
   */
  decision?: { readonly decision: RefusalDecision | 'allow'; readonly rule: string };
  /**
   * The entry a tool that stands for another was resolved to (search mode's call_tool), with its
   * arguments: the record names that entry and records those arguments, the shape its stages'
   * redaction pointers point into.
   */
  resolved?: { readonly entry: string; readonly arguments: Readonly<Record<string, unknown>> };
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

/** Records the entry (and its arguments) the current request's call was resolved to. */
export function noteResolved(entry: string, args: Readonly<Record<string, unknown>>): void {
  const note = notes.getStore();
  if (note !== undefined) note.resolved = { entry, arguments: args };
}

/** Records the decision a stage made for the current request, and the rule that made it. */
export function noteDecision(decision: RefusalDecision | 'allow', rule: string): void {
  const note = notes.getStore();
  if (note !== undefined) note.decision = { decision, rule };
}
