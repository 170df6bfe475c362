/**
 * The counting behind every `calls:` rate: a sliding window kept as buckets, exact in the direction
 * that matters. A rate of N per window W is kept as counts in buckets of width w = ⌈W/60⌉ ms; a call
 * at time t is admitted only while the buckets that overlap (t−W, t] hold fewer than N calls. Any
 * span of length W ending at t lies inside those buckets, so no span of length W ever holds more
 * than N admitted calls, across a window's edge too (a fixed window lets 2N through there: N at
 * its end, N at the next one's start). The price: a call counts until its bucket has wholly left
 * the window, at most w (1/60 of W) longer than an exact log would keep it. The memory is one count
 * per bucket in use, at most 61 per caller and rate, whatever N is (a log would keep N times).
 *
 * The same arithmetic runs in Redis as a Lua script (redis-store.ts); this file is the reference,
 * and the one the memory store runs.
 */

/** Buckets per window: the slack is 1/BUCKETS of the window. */
export const BUCKETS = 60;

/** One rate to check for one caller. */
export interface WindowSpec {
  /** The store's key: the rule and the caller. */
  readonly key: string;
  readonly limit: number;
  readonly windowMs: number;
}

/** The width of a window's buckets and how many of them, before the current one, it overlaps. */
export function bucketsOf(windowMs: number): { readonly width: number; readonly span: number } {
  const width = Math.max(1, Math.ceil(windowMs / BUCKETS));
  return { width, span: Math.ceil(windowMs / width) };
}

/** A window's counts: bucket index → calls, oldest first. */
export type Buckets = Map<number, number>;

/**
 * Drops the buckets that left the window and says whether one more call fits; when it does not,
 * how long until enough calls have left for one more to fit.
 */
export function check(buckets: Buckets, limit: number, windowMs: number, now: number): number | undefined {
  const { width, span } = bucketsOf(windowMs);
  const oldest = Math.floor(now / width) - span;
  let total = 0;
  for (const [index, count] of buckets) {
    if (index < oldest) buckets.delete(index);
    else total += count;
  }
  if (total < limit) return undefined;
  // Oldest first (insertion order is time order): the retry is when the bucket that brings the
  // count under the limit has left the window.
  let left = total;
  for (const [index, count] of buckets) {
    left -= count;
    if (left < limit) return (index + span + 1) * width - now;
  }
  return windowMs;
}

/** Counts one call now. */
export function count(buckets: Buckets, windowMs: number, now: number): void {
  const index = Math.floor(now / bucketsOf(windowMs).width);
  buckets.set(index, (buckets.get(index) ?? 0) + 1);
}
