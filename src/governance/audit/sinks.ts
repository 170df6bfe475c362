/**
 * Where the audit lines go: a JSON Lines file rotated by size, or stderr (OpenTelemetry logs:
 * otel-sink.ts). A sink writes whole
 * chunks of lines and says how much room is left before it must rotate; the writer (writer.ts)
 * decides what goes in a chunk, so the rotation header is chained like any other line.
 */

import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';

/** The last sealed line a sink already holds (a restart appending to its file). */
export interface LastLine {
  readonly writer: string;
  readonly seq: number;
  readonly hash: string;
}

export interface AuditSink {
  /** Opens the sink; returns the last line already there, if one can be read. */
  open(): Promise<LastLine | undefined>;
  /** Writes `chunk` whole; a failed write leaves the sink as it was before it, to be tried again. */
  write(chunk: string): Promise<void>;
  /** Bytes that fit before the sink must rotate (Infinity: never). */
  room(): number;
  /** Whether nothing was written since the last rotation (then a long line goes in anyway). */
  fresh(): boolean;
  /** Starts a new file; returns the name of the one it closed. */
  rotate(): Promise<string>;
  close(): Promise<void>;
  /** For messages: where the lines go. */
  readonly where: string;
  /** The manifest's name of the sink; a metric label (a bounded set, unlike `where`). */
  readonly kind: 'file' | 'stderr' | 'otel';
  /**
   * A sink across the network (a collector) may be down when the server starts: the start does not
   * wait for it, and the records wait in the queue. A local one that cannot be written stops the start.
   */
  readonly remote: boolean;
}

/** How much of a file's end is read at open to find its last line. */
const TAIL_BYTES = 64 * 1024;

/**
 * A JSON Lines file. Rotation renames it to `<file>.<n>`, n one above the highest there (so a
 * higher number is newer), deletes the oldest past `keep`, and opens `<file>` anew.
 */
export class FileSink implements AuditSink {
  readonly kind = 'file';
  readonly remote = false;
  private handle: FileHandle | undefined = undefined;
  private size = 0;

  constructor(
    private readonly file: string,
    private readonly rotateBytes: number,
    private readonly keep: number,
  ) {}

  get where(): string {
    return this.file;
  }

  async open(): Promise<LastLine | undefined> {
    await mkdir(dirname(this.file), { recursive: true });
    this.handle = await open(this.file, 'a+', 0o600);
    this.size = (await this.handle.stat()).size;
    if (this.size === 0) return undefined;
    const from = Math.max(0, this.size - TAIL_BYTES);
    const buffer = Buffer.alloc(this.size - from);
    await this.handle.read(buffer, 0, buffer.length, from);
    const text = buffer.toString('utf8');
    // A line cut short by a crash is ended, so the next record starts on a line of its own.
    if (!text.endsWith('\n')) await this.write('\n');
    return lastLine(text);
  }

  async write(chunk: string): Promise<void> {
    const handle = this.handle;
    if (handle === undefined) throw new Error(`the audit file ${this.file} is not open`);
    const bytes = Buffer.from(chunk, 'utf8');
    try {
      await handle.write(bytes, 0, bytes.length, null);
    } catch (err) {
      // Part of the chunk may be on disk (a full disk): cut back to the last whole line.
      await handle.truncate(this.size).catch(() => undefined);
      throw err;
    }
    this.size += bytes.length;
  }

  room(): number {
    return this.rotateBytes - this.size;
  }

  fresh(): boolean {
    return this.size === 0;
  }

  async rotate(): Promise<string> {
    await this.handle?.close();
    this.handle = undefined;
    const numbers = await this.rotatedNumbers();
    const next = (numbers.at(-1) ?? 0) + 1;
    const closed = `${this.file}.${next}`;
    await rename(this.file, closed);
    numbers.push(next);
    for (const n of numbers.slice(0, Math.max(0, numbers.length - this.keep)))
      await rm(`${this.file}.${n}`, { force: true });
    this.handle = await open(this.file, 'a', 0o600);
    this.size = (await stat(this.file)).size;
    return basename(closed);
  }

  async close(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
  }

  /** The numbers of the rotated files there now, lowest (oldest) first. */
  private async rotatedNumbers(): Promise<number[]> {
    const prefix = `${basename(this.file)}.`;
    const names = await readdir(dirname(this.file));
    return names
      .filter((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length)))
      .map((n) => Number(n.slice(prefix.length)))
      .sort((a, b) => a - b);
  }
}

/** The last complete, sealed line of `text`, if it parses. */
function lastLine(text: string): LastLine | undefined {
  const lines = text.split('\n').filter((l) => l.length > 0);
  const last = text.endsWith('\n') ? lines.at(-1) : lines.at(-2);
  if (last === undefined) return undefined;
  try {
    const record = JSON.parse(last) as { writer?: unknown; seq?: unknown; hash?: unknown };
    if (
      typeof record.writer === 'string' &&
      typeof record.seq === 'number' &&
      typeof record.hash === 'string'
    )
      return { writer: record.writer, seq: record.seq, hash: record.hash };
  } catch {
    // Not a record of ours: the writer starts a chain of its own.
  }
  return undefined;
}

/** stderr, one line a record; a write resolves once the stream took it. */
export class StderrSink implements AuditSink {
  readonly where = 'stderr';
  readonly kind = 'stderr';
  readonly remote = false;

  async open(): Promise<undefined> {
    return undefined;
  }

  write(chunk: string): Promise<void> {
    // The callback runs once the chunk is handed to the OS: a slow reader holds the writer back.
    return new Promise((resolve, reject) => {
      process.stderr.write(chunk, (err) => (err ? reject(err) : resolve()));
    });
  }

  room(): number {
    return Number.POSITIVE_INFINITY;
  }

  fresh(): boolean {
    return false;
  }

  async rotate(): Promise<string> {
    return 'stderr';
  }

  async close(): Promise<void> {}
}
