/**
 * What the SQL sources share about results and failures: unique column names, JSON-safe values,
 * and the sentences a model reads when a query is refused, times out or is cancelled.
 */
import type { SqlVerdict } from './classify.js';

/** Names made unique in order: a repeated `id` becomes `id_2`, `id_3`, … */
export function uniqueColumns(names: readonly string[]): string[] {
  const used = new Set<string>();
  return names.map((name) => {
    let unique = name;
    for (let n = 2; used.has(unique); n++) unique = `${name}_${n}`;
    used.add(unique);
    return unique;
  });
}

/**
 * Rows from arrays of values, keyed by the unique column names; `decode` first turns a value as the
 * driver gave it into the driver's value (sqlite/wire.ts for SQLite).
 */
export function rowObjects(
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  decode?: (value: unknown) => unknown,
): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const values = rows[r]!;
    const row: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) {
      const value = values[i];
      row[columns[i]!] = jsonValue(
        decode && value !== null && typeof value === 'object' ? decode(value) : value,
      );
    }
    out[r] = row;
  }
  return out;
}

/** Bytes as base64, dates as ISO text, big integers as numbers when exact, else as text. */
export function jsonValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  return value;
}

export const READ_ONLY_SOURCE_REFUSAL =
  'the source is read-only; set readOnly: false on the source to allow writes';

/**
 * The read statements a model may send, as the dialect has them: SQLite has no SHOW or DESCRIBE
 * (its reads of the schema are PRAGMAs), PostgreSQL no DESCRIBE.
 */
export function readStatements(dialect: string): string {
  if (dialect === 'sqlite') return 'SELECT, WITH … SELECT, VALUES, EXPLAIN or a read-only PRAGMA';
  if (dialect === 'postgres') return 'SELECT, WITH … SELECT, VALUES, TABLE, EXPLAIN or SHOW';
  if (dialect === 'duckdb')
    return 'SELECT, WITH … SELECT, FROM …, VALUES, TABLE, DESCRIBE, SHOW or SUMMARIZE';
  return 'SELECT, WITH … SELECT, VALUES, EXPLAIN, SHOW or DESCRIBE';
}

/** Why a statement may not run as a read, for the model. */
export function readOnlyRefusal(
  verdict: SqlVerdict & { read: false },
  sourceReadOnly: boolean,
  dialect: string,
): string {
  if (verdict.write && sourceReadOnly) return READ_ONLY_SOURCE_REFUSAL;
  return `refused: ${verdict.reason}. Only one read statement (${readStatements(dialect)}) may run here`;
}

export const timeoutMessage = (ms: number) =>
  `the query took longer than ${ms} ms and was stopped; narrow it or raise timeoutMs`;

export const CANCELLED_MESSAGE = 'the query was cancelled';

/** Replaces each secret (a password from a connection URL) with `***`. */
export function redactor(secrets: readonly string[]): (text: string) => string {
  const present = secrets.filter((s) => s.length > 0);
  return (text) => present.reduce((t, secret) => t.replaceAll(secret, '***'), text);
}

/**
 * The bytes a value holds, as the budget counts them (text and blob lengths, 8 per number); a list or
 * a structure (DuckDB's LIST and STRUCT, PostgreSQL's arrays and json) counts what it holds.
 */
export function valueBytes(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'string') return value.length;
  if (value instanceof Uint8Array) return value.byteLength;
  if (Array.isArray(value)) {
    let size = 8;
    for (const item of value) size += valueBytes(item);
    return size;
  }
  if (typeof value === 'object' && !(value instanceof Date)) {
    let size = 8;
    for (const [key, item] of Object.entries(value)) size += key.length + valueBytes(item);
    return size;
  }
  return 8;
}

/**
 * The byte budget of one result, checked as each row arrives (before it is kept): rows past it are
 * left out, and a first row that alone passes it has its big values cut to fit, so the model still
 * sees what the row holds. `note` says which happened, for SqlResult.note.
 */
export class RowBudget {
  /** Bytes of the rows kept so far. */
  used = 0;
  /** How the budget cut the result, once it did. */
  cut: 'rows' | 'value' | 'unreadable' | undefined;

  constructor(readonly maxBytes: number) {}

  /** The row to keep (its values maybe cut), or undefined when the budget is spent: stop reading. */
  take(row: readonly unknown[], kept: number): unknown[] | undefined {
    if (this.cut !== undefined) return undefined;
    let size = 0;
    for (const value of row) size += valueBytes(value);
    if (this.used + size <= this.maxBytes) {
      this.used += size;
      return [...row];
    }
    if (kept > 0) {
      this.cut = 'rows';
      return undefined;
    }
    this.cut = 'value';
    let left = this.maxBytes;
    return row.map((value) => {
      const bytes = valueBytes(value);
      if (bytes <= left) {
        left -= bytes;
        return value;
      }
      const keep = left;
      left = 0;
      // A copy, so the cut value does not keep the whole one alive.
      if (typeof value === 'string') return value.slice(0, keep);
      if (value instanceof Uint8Array) return Buffer.from(value.subarray(0, keep));
      return value;
    });
  }

  /** A row too large to read at all ended the result (the connection reading it was closed). */
  unreadable(): void {
    this.cut = 'unreadable';
  }

  /** The sentence for the model, once the budget cut the result. */
  note(kept: number): string | undefined {
    const budget = `the source's byte budget (maxBytes: ${this.maxBytes})`;
    const advice =
      'select fewer or smaller columns, e.g. length(col) or substr(col, 1, 200) instead of a big value.';
    if (this.cut === 'rows')
      return `The rows were cut at ${kept} because the next row would pass ${budget}; ${advice}`;
    if (this.cut === 'value') {
      return `The first row alone passes ${budget}, so its big values were cut by the byte budget (they end early) and no further row was read; ${advice}`;
    }
    if (this.cut === 'unreadable') {
      return `The rows were cut at ${kept} because the next row is far larger than ${budget} and was not read; ${advice}`;
    }
    return undefined;
  }
}
