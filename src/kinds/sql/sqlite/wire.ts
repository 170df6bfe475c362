/**
 * How SQL values cross the channel between the server and its SQLite workers: the channel carries
 * newline-delimited JSON (../worker-process.ts), and the two values JSON cannot hold are tagged
 * there (`packValue`: a bigint as `{ $i: "<digits>" }`, bytes as `{ $b: "<base64>" }`).
 *
 * A bound integer crosses as a plain number and becomes a bigint in the worker (`bindValue`): a JS
 * number binds as REAL (`SELECT :n` would answer 1.0).
 */

import { packValue, unpackValue } from '../worker-process.js';

export { ANSWER_FD, packValue, REQUEST_FD, unpackValue } from '../worker-process.js';

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
