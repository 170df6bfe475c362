/**
 * The state several mcp-run replicas share (`--state redis://…`), as a few general primitives that
 * know nothing of MCP: values with a time to live, a claim (set if absent), a time-ordered index, a
 * bounded append-only log per key, and pub/sub. The 2025-era HTTP sessions are built on it
 * (transports/http/shared-sessions.ts); tasks can use the same primitives. Two implementations:
 * memory.ts (one process: what runs without `--state`, and tests) and redis.ts.
 *
 * Every key and channel is namespaced by the implementation (a prefix), and every value is bounded
 * in bytes: a write beyond the bound fails with a StateError rather than filling the store.
 */

/** Bounds of one log (per key): the oldest items go first; the newest is always kept. */
export interface LogBounds {
  /** Items kept at most. */
  readonly items: number;
  /** Bytes of items kept at most (the newest item is kept whatever its size, up to MAX_VALUE_BYTES). */
  readonly bytes: number;
  /** The log (and its metadata) expires this long after its last write. */
  readonly ttlMs: number;
}

export interface LogItem {
  readonly seq: number;
  readonly item: string;
}

/** What a log holds after a point. */
export interface LogRead {
  /** The items with a sequence number above the one asked for, oldest first. */
  readonly items: readonly LogItem[];
  /** The last sequence number written (0: nothing yet). */
  readonly last: number;
  /** Closed: nothing more will be appended. */
  readonly closed: boolean;
  /** The tag given at creation (what the log is, for its reader). */
  readonly tag: string;
}

/** Largest value (a record, a log item, a message) a store accepts. */
export const MAX_VALUE_BYTES = 8 * 1024 * 1024;

/** A member of a time-ordered index (SharedState.indexTouch). */
export interface IndexEntry {
  readonly key: string;
  readonly member: string;
}

/** A message to publish after a write (SharedState.setAndTouch). */
export interface Announcement {
  readonly channel: string;
  readonly message: string;
}

/**
 * What a log says when the process writing it is gone before closing it (SharedState.logCreate):
 * `item` is appended, the log closed and `announce` published, so that a reader waiting on the log
 * (a client resuming a stream elsewhere) is told, instead of waiting for what never comes. Only a
 * store that can tell its writer is gone applies it: the primary of `--workers` (epitaphs.ts), which
 * sees a worker exit; one process or Redis alone cannot, and ignore it.
 */
export interface Epitaph {
  readonly item: string;
  readonly announce: Announcement;
}

/** A store operation failed: the store is unreachable, or a value is beyond its bound. */
export class StateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateError';
  }
}

/**
 * The store did not answer (Redis unreachable, a command timed out): unlike a value beyond its bound,
 * the same write may succeed once the store is back.
 */
export class StateUnavailable extends StateError {
  constructor(message: string) {
    super(message);
    this.name = 'StateUnavailable';
  }
}

export interface SharedState {
  readonly kind: 'memory' | 'redis';
  /** Where the store is, without credentials, for logs. */
  readonly where: string;
  /** Whether commands reach the store right now. */
  readonly healthy: boolean;
  /** Why not, when not healthy. */
  readonly fault: string | undefined;
  /** Called on every change of `healthy`. */
  onHealth(listener: (healthy: boolean, fault: string | undefined) => void): void;
  /**
   * Whether messages published now reach this process's subscriptions. While false, or after
   * `gaps` moved, a message may have been missed: what a subscription keeps up to date (a cache
   * invalidated by messages) must be read again from the store.
   */
  readonly delivering: boolean;
  /** How many times delivery stopped so far (subscriptions lost their connection). */
  readonly gaps: number;
  /**
   * Called each time delivery is live again after a gap: what the messages published meanwhile
   * would have said (a stream has new events) must be read from the store.
   */
  onDeliveryResumed(listener: () => void): void;

  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  del(keys: readonly string[]): Promise<void>;
  /** Extends the time to live of the keys that exist. */
  touch(keys: readonly string[], ttlMs: number): Promise<void>;
  /**
   * One round trip: the value of `key`, and when it exists, its time to live and that of `also`
   * extended and `index` touched (as indexTouch). Undefined when `key` does not exist.
   */
  getAndTouch(
    key: string,
    also: readonly string[],
    index: IndexEntry,
    ttlMs: number,
  ): Promise<string | undefined>;
  /**
   * One round trip: sets `key`, touches `index` (as indexTouch), and when given, publishes
   * `announce.message` on `announce.channel` after the write.
   */
  setAndTouch(
    key: string,
    value: string,
    ttlMs: number,
    index: IndexEntry,
    announce?: Announcement,
  ): Promise<void>;
  /**
   * Sets `key` to `owner` only when absent; true when this call set it (the caller won the claim),
   * or when `owner` already holds it: a retried claim whose first answer was lost (a command that
   * timed out may still have run) is not lost to its own owner.
   */
  claim(key: string, ttlMs: number, owner: string): Promise<boolean>;

  /** Adds or refreshes `member` in the index `key` at the current time. */
  indexTouch(key: string, member: string, ttlMs: number): Promise<void>;
  /** Members touched within the last `withinMs` (older ones are dropped). */
  indexRecent(key: string, withinMs: number): Promise<string[]>;
  indexRemove(key: string, member: string): Promise<void>;

  /**
   * Creates an empty log (sequence 0) with a tag; a log that exists is left as it is. `epitaph`:
   * what the log says should this process go away before it closes the log (see Epitaph).
   */
  logCreate(key: string, tag: string, ttlMs: number, epitaph?: Epitaph): Promise<void>;
  /**
   * Appends one item; resolves with its sequence number (1, 2, …). Refused on a closed or unknown log.
   * `once`: an id for this append, so that a retry of it (an append that timed out may still have
   * run) is not appended twice: when the log's last append with an id was this one, it resolves
   * with that append's number and appends nothing.
   */
  logAppend(key: string, item: string, bounds: LogBounds, once?: string): Promise<number>;
  /** What the log holds after `afterSeq`; undefined when the log does not exist (or expired). */
  logRead(key: string, afterSeq: number, ttlMs: number): Promise<LogRead | undefined>;
  /** Marks the log closed: nothing more is appended, readers see `closed`. */
  logClose(key: string, ttlMs: number): Promise<void>;

  publish(channel: string, message: string): Promise<void>;
  /** Delivers every message published on `channel` (by any replica, this one included). */
  subscribe(channel: string, handler: (message: string) => void): Promise<void>;

  close(): Promise<void>;
}

/** Throws a StateError when `value` is beyond MAX_VALUE_BYTES. */
export function bounded(what: string, value: string, max = MAX_VALUE_BYTES): string {
  const bytes = Buffer.byteLength(value);
  if (bytes > max) throw new StateError(`${what} of ${bytes} bytes is beyond the ${max}-byte bound`);
  return value;
}
