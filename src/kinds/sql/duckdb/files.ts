/**
 * The `files:` of a DuckDB source: each entry (a folder, a file or a glob, relative to the manifest
 * folder) resolved to what DuckDB is allowed to read. A folder, and the fixed folder before a glob's
 * first wildcard, become an `allowed_directories` entry; a file becomes an `allowed_paths` one. Each
 * is resolved with realpath first, so a declared folder that is a symlink is allowed as its target,
 * the path DuckDB checks (it canonicalizes what it opens, symlinks included).
 */
import { realpath, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';

export interface DeclaredFiles {
  /** The entry as the manifest wrote it (`files`), or the table's name (`tables`). */
  readonly name: string;
  /** A `tables` entry: a view of this name reads the files. */
  readonly table?: boolean;
  /** Where the manifest declared it, for problems: ['files', 2], ['tables', 'sales']. */
  readonly at: readonly (string | number)[];
  /** What a query reads it with: the real path, with the glob's wildcards after it. */
  readonly pattern: string;
  readonly kind: 'folder' | 'file' | 'glob';
}

export interface AllowedFiles {
  /** The `files` entries, then the `tables` ones, in the manifest's order. */
  readonly entries: readonly DeclaredFiles[];
  /** Real folders, each ending with the separator (DuckDB matches them as prefixes). */
  readonly directories: readonly string[];
  readonly paths: readonly string[];
}

const WILDCARD = /[*?[{]/;

/** Resolves every entry; a missing one is a problem (its message), reported by the caller. */
export async function allowedFiles(
  baseDir: string,
  files: readonly string[],
  tables: Readonly<Record<string, string>>,
): Promise<{ allowed: AllowedFiles; problems: { at: readonly (string | number)[]; message: string }[] }> {
  const entries: DeclaredFiles[] = [];
  const directories = new Set<string>();
  const paths = new Set<string>();
  const problems: { at: readonly (string | number)[]; message: string }[] = [];
  const declared = [
    ...files.map((entry, index) => ({ entry, name: entry, at: ['files', index], table: false })),
    ...Object.entries(tables).map(([name, entry]) => ({ entry, name, at: ['tables', name], table: true })),
  ];
  for (const { entry, name, at, table } of declared) {
    const absolute = resolve(baseDir, entry);
    const parts = absolute.split(sep);
    const wild = parts.findIndex((part) => WILDCARD.test(part));
    const fixed = wild === -1 ? absolute : parts.slice(0, wild).join(sep) || sep;
    let real: string;
    let folder: boolean;
    try {
      real = await realpath(fixed);
      folder = (await stat(real)).isDirectory();
    } catch {
      problems.push({
        at,
        message: `${entry}: ${wild === -1 ? 'no such file or folder' : `no folder ${fixed}`}`,
      });
      continue;
    }
    if (wild !== -1 && !folder) {
      problems.push({ at, message: `${entry}: ${fixed} is not a folder` });
      continue;
    }
    if (table && wild === -1 && folder) {
      problems.push({ at, message: `${entry}: a table reads a file or a glob, not a folder` });
      continue;
    }
    if (folder) directories.add(real.endsWith(sep) ? real : real + sep);
    else paths.add(real);
    const rest = wild === -1 ? [] : parts.slice(wild);
    entries.push({
      name,
      at,
      ...(table && { table }),
      pattern: rest.length > 0 ? join(real, ...rest) : real,
      kind: wild !== -1 ? 'glob' : folder ? 'folder' : 'file',
    });
  }
  return { allowed: { entries, directories: [...directories], paths: [...paths] }, problems };
}
