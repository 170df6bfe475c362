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

/** Rows from arrays of values, keyed by the unique column names. */
export function rowObjects(
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
): Record<string, unknown>[] {
  return rows.map((values) => {
    const row: Record<string, unknown> = {};
    columns.forEach((column, i) => {
      row[column] = jsonValue(values[i]);
    });
    return row;
  });
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

/** Why a statement may not run as a read, for the model. */
export function readOnlyRefusal(verdict: SqlVerdict & { read: false }, sourceReadOnly: boolean): string {
  if (verdict.write && sourceReadOnly) return READ_ONLY_SOURCE_REFUSAL;
  return `refused: ${verdict.reason}. Only one read statement (SELECT, WITH, VALUES, EXPLAIN, SHOW, DESCRIBE) may run here`;
}

export const timeoutMessage = (ms: number) =>
  `the query took longer than ${ms} ms and was stopped; narrow it or raise timeoutMs`;

export const CANCELLED_MESSAGE = 'the query was cancelled';

/** Replaces each secret (a password from a connection URL) with `***`. */
export function redactor(secrets: readonly string[]): (text: string) => string {
  const present = secrets.filter((s) => s.length > 0);
  return (text) => present.reduce((t, secret) => t.replaceAll(secret, '***'), text);
}
