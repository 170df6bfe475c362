/**
 * How SQL values cross the channel between the server and its SQLite workers: the channel carries
 * newline-delimited JSON (worker.ts), and
 * the two values JSON cannot hold are tagged: a bigint as `{ $i: "<digits>" }`, bytes as
 * `{ $b: "<base64>" }`. No other object is a bound value (objects are bound as JSON text) or a
 * SQLite value, so a tagged object is never ambiguous.
 *
 * A bound integer crosses as a plain number and becomes a bigint in the worker (`bindValue`): a JS
 * number binds as REAL (`SELECT :n` would answer 1.0).
 */

type Tagged = { $i: string } | { $b: string };

export function packValue(value: unknown): unknown {
  if (typeof value === 'bigint') return { $i: value.toString() };
  if (value instanceof Uint8Array)
    return { $b: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  return value;
}

export function unpackValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const tagged = value as Tagged;
  if ('$i' in tagged) return BigInt(tagged.$i);
  if ('$b' in tagged) return Buffer.from(tagged.$b, 'base64');
  return value;
}

/** A bound value as the worker binds it: safe integers as SQLite INTEGER, tagged values unpacked. */
export function bindValue(value: unknown): unknown {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  return unpackValue(value);
}

/** Packs a row in place when it holds a value to tag (most rows hold none and are left as they are). */
export function packRow(row: unknown[]): unknown[] {
  for (let i = 0; i < row.length; i++) {
    const v = row[i];
    if (typeof v === 'bigint' || v instanceof Uint8Array) row[i] = packValue(v);
  }
  return row;
}

/** The argument the pool starts worker.js with (imported for its types, it does nothing). */
export const WORKER_ARG = '--sqlite-worker';
/**
 * The worker's ends of its channel, one socket each way: requests come in on `stdio[3]`, answers go
 * out on `stdio[4]`. One way each, because a worker waits for its next request in a blocking `read`,
 * and Linux wakes whatever waits on a Unix socket whenever its peer reads what it sent (to say there
 * is room to write): on one socket both ways, every answer the server read woke the worker for
 * nothing, one extra wake-up and sleep of the worker per batch, and one extra wake-up sent by the
 * server.
 */
export const REQUEST_FD = 3;
export const ANSWER_FD = 4;
