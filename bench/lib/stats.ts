/** Medians, percentiles and the rounding the tables use. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export interface Latency {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly count: number;
}

/** Latency summary of raw samples in milliseconds. */
export function latency(samples: readonly number[]): Latency {
  const sorted = Float64Array.from(samples).sort();
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
    count: sorted.length,
  };
}

/** Significant-enough rounding for a table: 3 digits below 10, 2 below 100, whole above. */
export function fmt(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  const abs = Math.abs(value);
  if (abs >= 100) return Math.round(value).toLocaleString('en-US');
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

export const ratio = (a: number, b: number): number => (b > 0 ? a / b : Number.NaN);

export const times = (r: number): string => (Number.isFinite(r) ? `${r.toFixed(r >= 10 ? 1 : 2)}×` : 'n/a');
