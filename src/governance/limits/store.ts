/**
 * Where the counts of the limits live: this process's memory (the default), or Redis with
 * `--state redis://…` so that every replica counts against the same numbers (redis-store.ts).
 * The store is installed once at start-up (cli/serve.ts), like the ops hooks, and outlives every
 * reload: a new catalog keeps counting where the old one was.
 */
import { type Buckets, check, count, type WindowSpec } from './window.js';

/** The first window that was full, and when a retry can pass. */
export interface Full {
  readonly index: number;
  readonly retryAfterMs: number;
}

/** A slot of a concurrency cap, held until the call ends. */
export interface Lease {
  release(): void;
}

export interface LimitStore {
  /**
   * Counts one call in every window, or in none when one of them is full (a call refused by one
   * rate uses nothing of the others). Rejects when the store cannot answer (Redis down).
   */
  take(windows: readonly WindowSpec[]): Promise<Full | undefined>;
  /** A slot of `key`'s cap of `max`, or undefined when all are held. Rejects like take. */
  enter(key: string, max: number): Promise<Lease | undefined>;
  /** Where the counts are, for messages: `memory`, `Redis at host:port`. */
  readonly where: string;
}

/** Callers and rules counted at once before the least recently used is forgotten. */
export const MEMORY_KEYS = 100_000;

/**
 * One process's counts. Bounded: past MEMORY_KEYS windows the least recently used is dropped (that
 * caller starts over: under a flood of new callers the limits forgive, they never refuse an honest
 * caller for lack of room). A window's counts are at most 61 numbers (window.ts).
 */
export class MemoryLimitStore implements LimitStore {
  readonly where = 'memory';
  private readonly windows = new Map<string, Buckets>();
  private readonly held = new Map<string, number>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxKeys = MEMORY_KEYS,
  ) {}

  take(windows: readonly WindowSpec[]): Promise<Full | undefined> {
    return Promise.resolve(this.takeNow(windows));
  }

  /** take, synchronously: checked and counted in one turn, so no other call comes in between. */
  takeNow(windows: readonly WindowSpec[]): Full | undefined {
    const now = this.now();
    const all = windows.map((w) => this.buckets(w.key));
    for (const [index, w] of windows.entries()) {
      const retryAfterMs = check(all[index] as Buckets, w.limit, w.windowMs, now);
      if (retryAfterMs !== undefined) return { index, retryAfterMs };
    }
    for (const [index, w] of windows.entries()) count(all[index] as Buckets, w.windowMs, now);
    return undefined;
  }

  enter(key: string, max: number): Promise<Lease | undefined> {
    const held = this.held.get(key) ?? 0;
    if (held >= max) return Promise.resolve(undefined);
    this.held.set(key, held + 1);
    let released = false;
    return Promise.resolve({
      release: () => {
        if (released) return;
        released = true;
        const now = (this.held.get(key) ?? 1) - 1;
        if (now === 0) this.held.delete(key);
        else this.held.set(key, now);
      },
    });
  }

  /** A key's buckets, moved to the end of the map (most recently used), the oldest key dropped if full. */
  private buckets(key: string): Buckets {
    let buckets = this.windows.get(key);
    if (buckets !== undefined) this.windows.delete(key);
    else {
      buckets = new Map();
      if (this.windows.size >= this.maxKeys) this.windows.delete(this.windows.keys().next().value as string);
    }
    this.windows.set(key, buckets);
    return buckets;
  }

  /** Windows kept now (for tests of the bound). */
  get size(): number {
    return this.windows.size;
  }
}

let installed: LimitStore = new MemoryLimitStore();

/** Makes `store` the one every limit counts in (cli/serve.ts, with --state); returns the previous. */
export function installLimitStore(store: LimitStore): LimitStore {
  const previous = installed;
  installed = store;
  return previous;
}

export function limitStore(): LimitStore {
  return installed;
}
