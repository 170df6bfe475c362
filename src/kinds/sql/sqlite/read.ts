/**
 * How the rows of one SQLite read are kept, the same wherever the read runs (a worker process,
 * worker.ts, or this process's in-process reader, inline.ts): rows are skipped up to `offset`, then
 * kept under two budgets, checked before a row is kept: `maxRows`, and `maxBytes`, the sum of the
 * sizes of the values kept (text and blob lengths, 8 per number), so a flood of big values stops at
 * the budget instead of filling memory.
 */
import { timeoutMessage, valueBytes } from '../result.js';

export interface WorkerQueryResult {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly unknown[])[];
  readonly truncated: boolean;
  /** The byte budget cut the rows; the note says so. */
  readonly cutByBytes?: boolean;
  readonly changes?: number;
}

/** One read's limits, as the worker's request carries them. */
export interface ReadLimits {
  readonly maxRows: number;
  readonly maxBytes: number;
  readonly offset: number;
  /** Date.now() past which the read stops (checked after each row). */
  readonly deadline: number;
  /** The time limit the deadline stands for, for the message. */
  readonly timeoutMs: number;
}

/**
 * The rows of a read under its limits, the bytes of values they hold, and the size of the largest
 * row read (a row the budget cut included: it was read all the same). Leaving the loop early
 * (a budget, or the deadline's throw) ends the iterator, which resets the statement and releases its
 * read lock.
 */
export function readRows(
  rows: Iterable<unknown[]>,
  columns: readonly string[],
  limits: ReadLimits,
): { value: WorkerQueryResult; bytes: number; largest: number } {
  const kept: unknown[][] = [];
  let skip = limits.offset;
  let bytes = 0;
  let largest = 0;
  for (const row of rows) {
    if (skip > 0) skip--;
    else if (kept.length >= limits.maxRows)
      return { value: { columns, rows: kept, truncated: true }, bytes, largest };
    else {
      let size = 0;
      for (const value of row) size += valueBytes(value);
      largest = Math.max(largest, size);
      if (bytes + size > limits.maxBytes) {
        return { value: { columns, rows: kept, truncated: true, cutByBytes: true }, bytes, largest };
      }
      bytes += size;
      kept.push(row);
    }
    if (Date.now() > limits.deadline) throw new Error(timeoutMessage(limits.timeoutMs));
  }
  return { value: { columns, rows: kept, truncated: false }, bytes, largest };
}
