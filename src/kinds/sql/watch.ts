/**
 * The client side of a query's time limit and cancellation, for servers that run a query on their
 * own connection (Postgres, MySQL): when the deadline passes or the caller aborts, `cancel` is sent
 * once over a separate connection, so the query stops on the server instead of running on after its
 * caller gave up. The server-side limit (statement_timeout, max_statement_time) is the first line;
 * this is the one that also serves a client's cancellation.
 *
 * A cancel sent over a separate connection costs that connection, and the query's own connection
 * too (a cancel that arrives late could stop the next call on it, so it is closed). Where the watch
 * is given `settleMs`, a caller's cancellation first lets the query end on its own for that long:
 * most reads end sooner, and then nothing is sent and the connection goes back to the pool. Without
 * it, a client that dropped 32 calls at once made 32 cancel connections and 32 new pool connections.
 */
import type { CallSignal } from '../../util/call-signal.js';
import { CANCELLED_MESSAGE, timeoutMessage } from './result.js';

/**
 * How long a read the caller cancelled may still end on its own before the cancel is sent, where a
 * cancel costs connections (PostgreSQL, MySQL): a one-row read takes about a millisecond.
 */
export const CANCEL_SETTLE_MS = 50;

/** How long a cancelled query may take to answer before its call gives up on the connection. */
const ABANDON_MS = 3000;

export class QueryWatch {
  /** Why the query was cancelled, once it was. */
  reason: 'timeout' | 'cancelled' | undefined;
  /**
   * Rejects when a cancelled query has not answered ABANDON_MS after the cancel (a server or
   * network that no longer responds): race the work against it, then close the connection.
   */
  readonly abandoned: Promise<never>;
  private rejectAbandoned: ((err: Error) => void) | undefined;
  private abandonTimer: NodeJS.Timeout | undefined;
  private cancelling: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;
  private settleTimer: NodeJS.Timeout | undefined;
  private readonly onAbort = () => {
    if (this.settleMs > 0) this.settleTimer ??= setTimeout(() => this.fire('cancelled'), this.settleMs);
    else this.fire('cancelled');
  };

  /**
   * `settleMs`: how long a query the caller cancelled may still end on its own before the cancel is
   * sent (the deadline's cancel is never put off).
   */
  constructor(
    private readonly signal: CallSignal,
    private readonly timeoutMs: number,
    deadlineMs: number,
    private readonly cancel: () => Promise<void>,
    private readonly settleMs = 0,
  ) {
    this.abandoned = new Promise<never>((_, reject) => {
      this.rejectAbandoned = reject;
    });
    this.abandoned.catch(() => undefined);
    this.timer = setTimeout(() => this.fire('timeout'), deadlineMs);
    signal.addEventListener('abort', this.onAbort, { once: true });
    if (signal.aborted) this.onAbort();
  }

  /**
   * The query has ended: a caller's cancellation from now on sends nothing (what is left of the call,
   * a statement that cleans the session up, is not the query it was for). The deadline still holds.
   */
  ended(): void {
    clearTimeout(this.settleTimer);
    this.signal.removeEventListener('abort', this.onAbort);
  }

  /** Stops watching (a cancel not yet sent never is); resolves once one sent has been answered. */
  async finish(): Promise<void> {
    clearTimeout(this.timer);
    this.ended();
    await this.cancelling;
    clearTimeout(this.abandonTimer);
  }

  /** The error to report: the reason when the watch fired, else the driver's own. */
  error(err: unknown, redact: (text: string) => string): Error {
    if (this.reason === 'timeout') return new Error(timeoutMessage(this.timeoutMs));
    if (this.reason === 'cancelled') return new Error(CANCELLED_MESSAGE);
    return new Error(redact(err instanceof Error ? err.message : String(err)));
  }

  private fire(reason: 'timeout' | 'cancelled'): void {
    if (this.reason) return;
    this.reason = reason;
    this.cancelling = this.cancel()
      .catch(() => undefined)
      .then(() => {
        this.abandonTimer = setTimeout(() => this.rejectAbandoned?.(new Error('no answer')), ABANDON_MS);
      });
  }
}

/** The password of a connection URL (decoded and as written), to redact from messages. */
export function urlSecrets(url: string): string[] {
  try {
    const password = new URL(url).password;
    return password ? [password, decodeURIComponent(password), url] : [url];
  } catch {
    return [url];
  }
}
