/**
 * The hash chain of the audit trail, written once for the writer that seals lines and the reader
 * that verifies them. A line is one JSON object; its canonical form is the line itself without its
 * last member, `"hash"`, so the hash is over exactly the bytes on disk: no re-encoding, no key order
 * to agree on. `prev` (inside the hashed part) is the hash of the writer's line before, so an
 * edited line fails its own hash and a removed one fails the `prev` of the line after it.
 */
import { createHash } from 'node:crypto';

/** The chain's start: a writer's first line has no predecessor. */
export const GENESIS = null;

const HASH_TAIL = /,"hash":"([0-9a-f]{64})"\}$/;

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Seals `body` (a JSON object's text, without `seq`, `prev` or `hash`) as the writer's next line:
 * its sequence number and the previous hash go in, then the hash of the whole. No newline.
 */
export function sealLine(body: string, seq: number, prev: string | null): { line: string; hash: string } {
  const canonical = `${body.slice(0, -1)},"seq":${seq},"prev":${prev === null ? 'null' : `"${prev}"`}}`;
  const hash = sha256(canonical);
  return { line: `${canonical.slice(0, -1)},"hash":"${hash}"}`, hash };
}

/** What a line says of itself: its hash if the bytes match it, or why not. */
export type LineCheck =
  | { readonly ok: true; readonly hash: string }
  | { readonly ok: false; readonly why: string };

export function checkLine(line: string): LineCheck {
  const tail = HASH_TAIL.exec(line);
  if (tail === null) return { ok: false, why: 'not a sealed record (no "hash" at its end)' };
  const canonical = `${line.slice(0, tail.index)}}`;
  const hash = tail[1] as string;
  if (sha256(canonical) !== hash)
    return { ok: false, why: 'the record was altered: its hash does not match its text' };
  return { ok: true, hash };
}
