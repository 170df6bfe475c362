/**
 * Parsed large manifests kept on disk: the data of a YAML text, keyed by the text's SHA-256 and
 * the build that parsed it, so that a server restarted on the same file reads its data back
 * (v8.deserialize) instead of parsing it again. Parsing is most of the start of an imported
 * description (the GitHub REST import: 3.2 MB of YAML, a quarter to two thirds of a second of js-yaml
 * and its garbage; reading the same data back takes about a tenth of that).
 *
 * What is kept is a pure function of the text and the parser: the fast path's data (fast-parse.ts),
 * never a text with an error, never anything resolved after parsing (`${env:…}` and `${file:…}`
 * are resolved on every load, from the data). Positions are not kept either: locate.ts builds them
 * from the text when a problem needs a line, as it does after a parse.
 *
 * - Only texts of LARGE_TEXT characters or more: a small text parses faster than its hash is taken.
 * - The key holds the build (dist/.build-stamp, the hash of every input of the build; an installed
 *   package has no stamp, and its version stands for it): a parser that changed reads nothing an
 *   older one wrote. Running from the sources (tsx, the tests) keeps nothing.
 * - The folder: `$MCP_RUN_CACHE_DIR`, else `$XDG_CACHE_HOME/mcp-run/parsed`, else
 *   `~/.cache/mcp-run/parsed`; `MCP_RUN_CACHE_DIR=off` turns the cache off. At most MAX_ENTRIES
 *   files, the least recently used removed first. Files are written whole (a new temporary file
 *   renamed), readable by their owner only. A folder that is not the user's own, or that others may
 *   write in (a shared /tmp), is neither read nor written: a file planted there would be served.
 * - A file that cannot be read, or holds anything but what was written for this text (the text's
 *   hash is stored inside and compared), is ignored: the text is parsed. Every failure to read or
 *   write is silent: the cache only ever saves time, and a read-only home serves as before.
 */
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { nodeCrypto, nodeV8 } from '../util/lazy-node.js';

/** Texts shorter than this are parsed every time (a 1,000-tool manifest is about 200,000). */
export const LARGE_TEXT = 256 * 1024;
/** Files the folder keeps at most. */
const MAX_ENTRIES = 16;
/** A kept file larger than this is not read (a manifest is at most 4 MiB; its data, a few times that). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** What a cache file holds: the text's hash (checked on read) and its data. */
interface Entry {
  readonly sha256: string;
  readonly data: unknown;
}

let revision: string | null | undefined;

/** The build that parses (undefined: from the sources, where nothing is kept). */
function buildRevision(): string | undefined {
  if (revision !== undefined) return revision ?? undefined;
  revision = null;
  try {
    const stamp = new URL('../.build-stamp', import.meta.url);
    if (existsSync(stamp)) revision = readFileSync(stamp, 'utf8').trim().slice(0, 64);
    else if (!import.meta.url.endsWith('.ts')) {
      const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
      if (typeof pkg.version === 'string') revision = `v${pkg.version}`;
    }
  } catch {
    revision = null;
  }
  return revision ?? undefined;
}

/** The cache folder, or undefined when the cache is off. */
export function cacheFolder(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.MCP_RUN_CACHE_DIR === 'off') return undefined;
  if (env.MCP_RUN_CACHE_DIR) return env.MCP_RUN_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'mcp-run', 'parsed');
}

/** Where the data of `text` is kept, with the text's hash; undefined when nothing is kept for it. */
function placeOf(text: string): { file: string; sha256: string } | undefined {
  if (text.length < LARGE_TEXT) return undefined;
  const build = buildRevision();
  const folder = cacheFolder();
  if (build === undefined || folder === undefined) return undefined;
  const sha256 = nodeCrypto().createHash('sha256').update(text).digest('hex');
  const key = nodeCrypto().createHash('sha256').update(`${build}\n${sha256}`).digest('hex').slice(0, 40);
  return { file: join(folder, `${key}.v8`), sha256 };
}

/**
 * The data kept for `text`, or undefined (then `keep` it once parsed). `place` is what `keep` needs,
 * so that the text is hashed once.
 */
export function cachedParse(text: string): { data?: unknown; keep?: (data: unknown) => void } {
  const place = placeOf(text);
  if (place === undefined) return {};
  const folder = join(place.file, '..');
  const owned = ownFolder(folder);
  // A folder someone else may write in is not read (a file planted there would be served as the
  // manifest), nor written.
  if (owned === false) return {};
  try {
    if (owned === undefined || statSync(place.file).size > MAX_FILE_BYTES) throw new Error('none');
    const entry = nodeV8().deserialize(readFileSync(place.file)) as Entry;
    if (entry?.sha256 === place.sha256) {
      // Its time says when it was last used: the least recently used goes first (keep).
      const now = new Date();
      utimesSync(place.file, now, now);
      return { data: entry.data };
    }
  } catch {
    // No file, or one that is not ours: parse.
  }
  return { keep: (data) => write(place.file, { sha256: place.sha256, data }) };
}

/**
 * Whether `folder` is this user's own, a real folder (not a link) no one else may write in: true;
 * someone else's or shared: false; not there: undefined.
 */
function ownFolder(folder: string): boolean | undefined {
  let found: ReturnType<typeof lstatSync>;
  try {
    found = lstatSync(folder);
  } catch {
    return undefined;
  }
  const uid = process.getuid?.();
  return found.isDirectory() && (uid === undefined || found.uid === uid) && (found.mode & 0o022) === 0;
}

function write(file: string, entry: Entry): void {
  const folder = join(file, '..');
  const temporary = `${file}.${process.pid}.${nodeCrypto().randomBytes(6).toString('hex')}.tmp`;
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    if (ownFolder(folder) !== true) return;
    // `wx`: a new file, never one already there (nor a link someone left in its place).
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      writeSync(fd, nodeV8().serialize(entry));
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
    prune(folder);
  } catch {
    try {
      unlinkSync(temporary);
    } catch {
      // Nothing was written.
    }
  }
}

/** Keeps the MAX_ENTRIES most recently used files of the folder. */
function prune(folder: string): void {
  const files = readdirSync(folder)
    .filter((name) => name.endsWith('.v8'))
    .map((name) => {
      const path = join(folder, name);
      return { path, used: statSync(path).mtimeMs };
    })
    .sort((a, b) => b.used - a.used);
  for (const { path } of files.slice(MAX_ENTRIES)) unlinkSync(path);
}
