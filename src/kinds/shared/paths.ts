/**
 * Containment checks for files served from the manifest: every path is resolved with `realpath`
 * (symlinks included) and must stay inside its root, at compile time and again on every read.
 */
import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { sep } from 'node:path';
import { nodeFsPromises } from '../../util/lazy-node.js';

/** Whether `realPath` is `realRoot` or below it. Both must already be real paths. */
export function isInside(realRoot: string, realPath: string): boolean {
  if (realPath === realRoot) return true;
  return realPath.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep);
}

/**
 * The real path of `candidate` when it exists and lies inside `root`, else undefined. `root` must be
 * a real path resolved once at compile time: re-resolving it on each read would follow a root that
 * was later swapped for a symlink.
 */
export async function realpathInside(root: string, candidate: string): Promise<string | undefined> {
  let real: string;
  try {
    real = await nodeFsPromises().realpath(candidate);
  } catch {
    return undefined;
  }
  return isInside(root, real) ? real : undefined;
}

/** `file://` URI of an absolute path, each segment percent-encoded. */
export function fileUri(path: string): string {
  let posix = path.split(sep).join('/');
  if (/^[A-Za-z]:/.test(posix)) posix = `/${posix}`; // Windows drive letter
  const encoded = posix
    .split('/')
    .map((segment, i) => (i === 1 && /^[A-Za-z]:$/.test(segment) ? segment : encodeURIComponent(segment)))
    .join('/');
  return `file://${encoded}`;
}

export class FileTooLarge extends Error {
  constructor(what: string, size: number, maxBytes: number) {
    super(
      `${what} is ${size} bytes, more than the resource's maxBytes cap of ${maxBytes}; raise maxBytes to serve it`,
    );
    this.name = 'FileTooLarge';
  }
}

/**
 * Flags for opening a file that must be a regular one: O_NOFOLLOW refuses a symlink swapped in since
 * the realpath, and O_NONBLOCK makes the open of a FIFO (or a device) return at once instead of
 * waiting for a writer; the fstat that follows then refuses it before any read.
 */
export const OPEN_REGULAR_FLAGS =
  constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** How long one file read may take (a hung network or FUSE mount) before it is given up. */
export const READ_TIMEOUT_MS = 10_000;

export class FileReadTimeout extends Error {
  constructor(what: string, ms: number) {
    super(`reading ${what} took longer than ${ms} ms; gave up`);
    this.name = 'FileReadTimeout';
  }
}

/**
 * Reads a regular file that must resolve inside `root`. Undefined when it is missing, outside the
 * root or not a regular file (a FIFO, socket or device: callers answer "not found" for all, revealing
 * nothing). Throws FileTooLarge past `maxBytes` and FileReadTimeout past `timeoutMs`. The path is
 * stat-ed before the open (a FIFO is never opened), then opened with OPEN_REGULAR_FLAGS and the
 * handle fstat-ed, which closes the race with a file swapped for a FIFO in between.
 */
export async function readInside(
  root: string,
  candidate: string,
  maxBytes: number,
  what: string,
  timeoutMs: number = READ_TIMEOUT_MS,
): Promise<Buffer | undefined> {
  const real = await realpathInside(root, candidate);
  if (real === undefined) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FileReadTimeout(what, timeoutMs)), timeoutMs);
  });
  const reading = readRegular(real, maxBytes, what);
  // A read given up on still closes its handle when it ends; its result is dropped.
  reading.catch(() => {});
  try {
    return await Promise.race([reading, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function readRegular(real: string, maxBytes: number, what: string): Promise<Buffer | undefined> {
  try {
    if (!(await nodeFsPromises().lstat(real)).isFile()) return undefined;
  } catch {
    return undefined;
  }
  let handle: FileHandle;
  try {
    handle = await nodeFsPromises().open(real, OPEN_REGULAR_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return undefined;
    if (stat.size > maxBytes) throw new FileTooLarge(what, stat.size, maxBytes);
    // Read at most one byte past the cap: a file that grew since the stat is still bounded.
    const cap = stat.size + 1;
    const buffer = Buffer.alloc(Math.min(cap, maxBytes + 1));
    let total = 0;
    while (total < buffer.length) {
      const { bytesRead } = await handle.read(buffer, total, buffer.length - total, total);
      if (bytesRead === 0) break;
      total += bytesRead;
    }
    if (total > maxBytes) throw new FileTooLarge(what, total, maxBytes);
    return buffer.subarray(0, total);
  } finally {
    await handle.close();
  }
}
