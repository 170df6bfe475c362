/**
 * The one thing every governance stage may end a request with: a refusal that names the rule that
 * made it and nothing of the rule's inner values (a policy's expression, a limit's counters).
 *
 * Policies throw it with `decision: 'deny'`, limits with `decision: 'limit'` (and the time after
 * which a retry may pass). The protocol side maps it to one JSON-RPC error for every method and
 * era, and the audit trail records `decision` and `rule` from it; neither needs to know which
 * stage refused.
 */
export type RefusalDecision = 'deny' | 'limit';

export class GovernanceRefusal extends Error {
  constructor(
    readonly decision: RefusalDecision,
    /** The policy's or the limit's name as the manifest declares it: safe to show the caller. */
    readonly rule: string,
    message: string,
    /** For a limit: how long until a retry can pass, in milliseconds. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'GovernanceRefusal';
  }
}
