/**
 * Reading audit files back: `mcp-run audit` (cli/audit.ts) filters their records and verifies
 * their chains in one streaming pass. Memory stays bounded: a file is read in chunks, a line longer
 * than MAX_LINE_BYTES is reported, not held, and what is kept per writer is its last link.
 *
 * The checks, per line: its own hash (an edited line), `prev` against the same writer's line
 * before it and `seq` one above it (a removed or reordered line), and a rotated file's header
 * against the end of the file before it (a missing file). A chain may begin after lines not given
 * (older files rotated away): that is said, not counted as a break.
 */
import { createReadStream } from 'node:fs';
import { checkLine } from './chain.js';
import type { AuditDecision } from './record.js';

const MAX_LINE_BYTES = 1024 * 1024;

export interface AuditFilter {
  /** Records at or after this time (ms since the epoch). */
  readonly since?: number;
  /** Matches the caller's subject, label, client or issuer exactly. */
  readonly caller?: string;
  /** The entry (tool or prompt name, resource URI); `*` matches any run of characters. */
  readonly entry?: string;
  readonly decision?: AuditDecision;
}

/** Where in the files a line is. */
export interface LinePlace {
  readonly file: string;
  readonly line: number;
}

export interface ChainBreak extends LinePlace {
  readonly why: string;
}

export interface ScanReport {
  /** Request records read, matching or not. */
  readonly records: number;
  readonly matched: number;
  readonly writers: number;
  readonly files: number;
  readonly breaks: readonly ChainBreak[];
  /** Facts worth saying that are not breaks (a chain starting after older files, one not closed). */
  readonly notes: readonly string[];
}

export interface ScanSink {
  /** A request record that matches the filter: its line as written and its parsed fields. */
  record(line: string, record: Readonly<Record<string, unknown>>, place: LinePlace): void;
  /** A break, as soon as it is found. */
  broken?(problem: ChainBreak): void;
}

/** Past this many breaks only the count grows: a file of garbage must not fill memory with reports. */
const MAX_BREAKS_KEPT = 1000;

interface Link {
  readonly seq: number;
  readonly hash: string;
  readonly type: string;
  readonly place: LinePlace;
}

/** Scans `files` (rotated ones put in order: `f.1`, `f.2`, …, then `f`), filtering and verifying. */
export async function scanAudit(
  files: readonly string[],
  filter: AuditFilter,
  sink: ScanSink,
): Promise<ScanReport> {
  const links = new Map<string, Link>();
  const breaks: ChainBreak[] = [];
  const notes: string[] = [];
  let records = 0;
  let matched = 0;
  let broken = 0;
  const report = (place: LinePlace, why: string) => {
    broken++;
    const problem = { ...place, why };
    if (breaks.length < MAX_BREAKS_KEPT) breaks.push(problem);
    sink.broken?.(problem);
  };
  const match = matcher(filter);
  for (const file of orderFiles(files)) {
    let number = 0;
    for await (const line of linesOf(file)) {
      number++;
      const place = { file, line: number };
      if (line === undefined) {
        report(place, `the line is longer than ${MAX_LINE_BYTES} bytes: not a record`);
        continue;
      }
      if (line === '') {
        report(place, 'an empty line: not a record');
        continue;
      }
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        report(place, 'not JSON: the line was cut short or altered');
        continue;
      }
      const checked = checkLine(line);
      if (!checked.ok) report(place, checked.why);
      const { writer, seq, prev, hash, type } = record;
      if (typeof writer !== 'string' || typeof seq !== 'number' || typeof hash !== 'string') {
        report(place, 'not an audit record (no writer, seq or hash)');
        continue;
      }
      const last = links.get(writer);
      const kind = typeof type === 'string' ? type : 'request';
      if (last === undefined) {
        if (prev !== null)
          notes.push(
            `the chain of writer ${writer} begins at ${where(place)} after records not given (seq ${seq}${kind === 'rotated' ? `, after file ${String(record.predecessor)}` : ''})`,
          );
      } else if (prev !== last.hash || seq !== last.seq + 1) {
        report(place, linkFault(kind, record, last, seq));
      }
      links.set(writer, { seq, hash, type: kind, place });
      if (kind !== 'request') continue;
      records++;
      if (!match(record)) continue;
      matched++;
      sink.record(line, record, place);
    }
  }
  for (const [writer, link] of links)
    if (link.type !== 'close')
      notes.push(
        `the chain of writer ${writer} ends at ${where(link.place)} without a close record (the server is running, stopped abruptly, or the end was cut)`,
      );
  if (broken > breaks.length) notes.push(`${broken - breaks.length} more break(s) not listed`);
  return { records, matched, writers: links.size, files: files.length, breaks, notes };
}

function linkFault(kind: string, record: Record<string, unknown>, last: Link, seq: number): string {
  const before = where(last.place);
  if (kind === 'rotated')
    return `this file follows ${String(record.predecessor)}, but the chain before it ends at ${before} (seq ${last.seq}, expected ${seq - 1}): the file ${String(record.predecessor)} is missing, or the files are out of order`;
  const gap = seq - last.seq - 1;
  if (gap > 0)
    return `${gap} record(s) of this writer are missing before this line (seq ${seq} follows seq ${last.seq} at ${before})`;
  if (gap === 0)
    return `"prev" does not match the hash of the record before it (${before}): that record was altered or replaced`;
  return `seq ${seq} does not follow seq ${last.seq} (${before}): lines were reordered or repeated`;
}

function where(place: LinePlace): string {
  return `${place.file}:${place.line}`;
}

/** Rotated files by number, oldest first, then the live file; files of other names keep their order. */
export function orderFiles(files: readonly string[]): string[] {
  const key = (file: string) => {
    const m = /^(.*)\.(\d+)$/.exec(file);
    return m === null
      ? { base: file, n: Number.POSITIVE_INFINITY }
      : { base: m[1] as string, n: Number(m[2]) };
  };
  const firstSeen = new Map<string, number>();
  files.forEach((f, i) => {
    const { base } = key(f);
    if (!firstSeen.has(base)) firstSeen.set(base, i);
  });
  return [...files].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka.base !== kb.base) return (firstSeen.get(ka.base) ?? 0) - (firstSeen.get(kb.base) ?? 0);
    return ka.n - kb.n;
  });
}

/** Every line of a file, in order; undefined for one over MAX_LINE_BYTES. A last line without newline counts. */
async function* linesOf(file: string): AsyncGenerator<string | undefined> {
  let parts: Buffer[] = [];
  let size = 0;
  let oversize = false;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      const part = chunk.subarray(start, nl);
      start = nl + 1;
      if (oversize || size + part.length > MAX_LINE_BYTES) yield undefined;
      else yield Buffer.concat([...parts, part]).toString('utf8');
      parts = [];
      size = 0;
      oversize = false;
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0 || oversize) continue;
    if (size + rest.length > MAX_LINE_BYTES) {
      oversize = true;
      parts = [];
      size = 0;
    } else {
      parts.push(Buffer.from(rest));
      size += rest.length;
    }
  }
  if (oversize) yield undefined;
  else if (size > 0) yield Buffer.concat(parts).toString('utf8');
}

function matcher(filter: AuditFilter): (record: Record<string, unknown>) => boolean {
  const entry = filter.entry === undefined ? undefined : globOf(filter.entry);
  return (record) => {
    if (filter.since !== undefined) {
      const time = typeof record.time === 'string' ? Date.parse(record.time) : Number.NaN;
      if (!(time >= filter.since)) return false;
    }
    if (filter.decision !== undefined && record.decision !== filter.decision) return false;
    if (entry !== undefined && !(typeof record.entry === 'string' && entry.test(record.entry))) return false;
    if (filter.caller !== undefined) {
      const caller = (record.caller ?? {}) as Record<string, unknown>;
      const names = [caller.subject, caller.label, caller.client, caller.issuer];
      if (!names.includes(filter.caller)) return false;
    }
    return true;
  };
}

function globOf(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*');
  return new RegExp(`^${escaped}$`, 's');
}
