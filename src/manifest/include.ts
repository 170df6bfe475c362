/**
 * `include:`: a manifest made of several files. The top manifest (and any included file) may list
 * other manifest files, relative to its own folder and inside it:
 *
 * @example
 * include: [tools/issues.yaml, tools/pulls.yaml]
 *
 * An included file has the shape of a manifest without `server:` (sources, tools, resources,
 * prompts, schemas, include). Its entries are merged into the top manifest's sections, in order;
 * a name declared twice is an error pointing at both files. Each file keeps its own positions, so
 * a problem in an included entry is reported at file:line:col of the included file. A file that
 * includes itself, directly or through others, is refused.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { problems } from '../errors.js';
import { isInside } from '../util/inside.js';
import { loading } from '../util/large-load.js';
import { type Finding, isPlainObject } from './finding.js';
import { type Parsed, parseYaml, type YamlFinding } from './parse.js';
import { ENTRY_SECTIONS } from './types.js';

/** Sections an included file may declare; `schemas` entries merge like entries. */
export const MERGED_SECTIONS = [...ENTRY_SECTIONS, 'schemas'] as const;
const INCLUDED_KEYS = new Set<string>([...MERGED_SECTIONS, 'include']);
/** How deep includes may nest, and how many files one manifest may be made of. */
export const MAX_INCLUDE_DEPTH = 8;
export const MAX_INCLUDED_FILES = 256;
/** All the files of one manifest together, at most (each is also held to the one-file limit). */
export const MAX_TOTAL_BYTES = 64 * 1024 * 1024;

export interface ManifestFile {
  /** Absolute path. */
  readonly file: string;
  readonly text: string;
  readonly parsed: Parsed;
}

/** A finding in one of the files (an index into `files`). */
export interface FileFinding extends YamlFinding {
  readonly origin: number;
}

export interface Gathered {
  /** The top file first, then every included file in the order it was reached. */
  readonly files: readonly ManifestFile[];
  /** The merged data: the top manifest's, with every included entry added to its section. */
  readonly data: unknown;
  /** `[section, name]` (JSON) → the file that declared the entry, for entries not in the top file. */
  readonly origins: ReadonlyMap<string, number>;
  readonly findings: readonly FileFinding[];
}

export interface IncludeLimits {
  readonly maxFileBytes: number;
}

/**
 * Reads and merges every file the top manifest includes. The top file's own parse must have
 * succeeded (its data is given); an included file that does not parse reports its YAML errors.
 */
export function gatherIncludes(top: ManifestFile, limits: IncludeLimits): Gathered {
  const files: ManifestFile[] = [top];
  const findings: FileFinding[] = [];
  const origins = new Map<string, number>();
  const data = isPlainObject(top.parsed.data) ? { ...top.parsed.data } : top.parsed.data;
  if (!isPlainObject(data) || data.include === undefined || data.include === null) {
    return { files, data, origins, findings };
  }
  const merged = data as Record<string, unknown>;
  /** Where each name was first declared: `[section, name]` → file index. */
  const declared = new Map<string, number>();
  for (const section of MERGED_SECTIONS) {
    const entries = merged[section];
    if (isPlainObject(entries)) {
      merged[section] = { ...entries };
      for (const name of Object.keys(entries)) declared.set(key(section, name), 0);
    }
  }
  const realTop = safeRealpath(top.file);
  let total = Buffer.byteLength(top.text, 'utf8');

  const visit = (index: number, chain: readonly string[]): void => {
    const including = files[index]!;
    const own = index === 0 ? merged : (including.parsed.data as Record<string, unknown>);
    const list = own.include;
    if (list === undefined || list === null) return;
    const at = (path: (string | number)[], reason: string, target = ''): void => {
      findings.push({ origin: index, path, problem: problems.MANIFEST_INCLUDE(target, reason) });
    };
    if (!Array.isArray(list) || list.some((item) => typeof item !== 'string' || item.trim() === '')) {
      at(['include'], 'include is a list of file paths, e.g. [tools/issues.yaml]', String(list));
      return;
    }
    const folder = dirname(including.file);
    for (const [i, entry] of (list as string[]).entries()) {
      const path = ['include', i];
      if (isAbsolute(entry)) {
        at(path, 'the path is absolute; write it relative to this file', entry);
        continue;
      }
      const target = resolve(folder, entry);
      if (!isInside(target, folder)) {
        at(path, "it is outside this file's folder", entry);
        continue;
      }
      let real: string;
      try {
        const info = statSync(target);
        if (!info.isFile()) throw Object.assign(new Error('not a file'), { code: 'ENOTFILE' });
        if (info.size > limits.maxFileBytes) {
          at(path, `the file is larger than ${limits.maxFileBytes / 1024 / 1024} MiB`, entry);
          continue;
        }
        if (total + info.size > MAX_TOTAL_BYTES) {
          at(path, `the files of this manifest together pass ${MAX_TOTAL_BYTES / 1024 / 1024} MiB`, entry);
          continue;
        }
        total += info.size;
        real = realpathSync(target);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        at(
          path,
          code === 'ENOENT' ? 'no such file' : code === 'ENOTFILE' ? 'not a file' : (e as Error).message,
          entry,
        );
        continue;
      }
      // A symbolic link may not lead out of the folder either.
      if (!isInside(real, safeRealpath(folder))) {
        at(path, "it leads outside this file's folder (through a symbolic link)", entry);
        continue;
      }
      if (real === realTop || chain.includes(real)) {
        at(path, 'it includes itself (a cycle of includes)', entry);
        continue;
      }
      if (files.some((f) => safeRealpath(f.file) === real)) {
        at(path, 'it is already included by another file of this manifest', entry);
        continue;
      }
      if (chain.length >= MAX_INCLUDE_DEPTH) {
        at(path, `includes nest deeper than ${MAX_INCLUDE_DEPTH} levels`, entry);
        continue;
      }
      if (files.length >= MAX_INCLUDED_FILES) {
        at(path, `a manifest may be made of at most ${MAX_INCLUDED_FILES} files`, entry);
        continue;
      }
      let text: string;
      try {
        text = readFileSync(target, 'utf8');
      } catch (e) {
        at(path, (e as Error).message, entry);
        continue;
      }
      loading(total);
      const parsed = parseYaml(text);
      const origin = files.push({ file: target, text, parsed }) - 1;
      if (parsed.data === undefined) {
        for (const error of parsed.errors) findings.push({ ...error, origin });
        continue;
      }
      if (!isPlainObject(parsed.data)) {
        findings.push({
          origin,
          path: [],
          problem: problems.MANIFEST_INCLUDE(entry, 'an included file is a mapping of sections'),
        });
        continue;
      }
      mergeFile(origin, parsed.data);
      visit(origin, [...chain, real]);
    }
  };

  const mergeFile = (origin: number, fileData: Record<string, unknown>): void => {
    for (const [section, entries] of Object.entries(fileData)) {
      if (!INCLUDED_KEYS.has(section)) {
        const reason =
          section === 'server'
            ? 'only the top manifest has a `server:` section'
            : `it declares \`${section}:\`; an included file holds ${MERGED_SECTIONS.join(', ')} and include`;
        findings.push({
          origin,
          path: [section],
          at: 'key',
          problem: problems.MANIFEST_INCLUDE(relative(dirname(top.file), files[origin]!.file), reason),
        });
        continue;
      }
      if (section === 'include' || entries === null) continue;
      if (!isPlainObject(entries)) {
        findings.push({
          origin,
          path: [section],
          problem: problems.MANIFEST_INVALID_VALUE(`${section} is a mapping of names to entries`),
        });
        continue;
      }
      const target = isPlainObject(merged[section]) ? (merged[section] as Record<string, unknown>) : {};
      merged[section] = target;
      for (const [name, entry] of Object.entries(entries)) {
        const k = key(section, name);
        const first = declared.get(k);
        if (first !== undefined) {
          findings.push({
            origin,
            path: [section, name],
            at: 'key',
            problem: problems.MANIFEST_DUPLICATE_ENTRY(
              `${section}.${name}`,
              where(files, first, [section, name], top.file),
            ),
          });
          continue;
        }
        declared.set(k, origin);
        origins.set(k, origin);
        Object.defineProperty(target, name, {
          value: entry,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
  };

  visit(0, [realTop]);
  return { files, data: merged, origins, findings };
}

/** `[section, name]` as one map key. */
export const key = (section: string, name: string): string => JSON.stringify([section, name]);

/** `tools/issues.yaml:12:3`: where an entry is, relative to the top manifest's folder. */
function where(files: readonly ManifestFile[], index: number, path: string[], topFile: string): string {
  const f = files[index]!;
  const pos = f.parsed.source.position(path, 'key');
  const name = relative(dirname(topFile), f.file) || f.file;
  return pos ? `${name}:${pos.line}:${pos.col}` : name;
}

function safeRealpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

export type { Finding };
