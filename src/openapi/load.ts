/**
 * Reads an API description from a local file (YAML or JSON; never from the network) and checks that
 * it is an OpenAPI 3.x or Swagger 2.0 document with paths. Every failure is an ImportError carrying
 * a catalogued problem and the exit code the command line uses.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import type { Problem } from '../errors.js';
import { problems } from '../errors.js';
import { isObject } from '../util/is-object.js';
import { loading } from '../util/large-load.js';

export type Obj = Record<string, unknown>;

export interface Spec {
  /** Absolute path of the document; relative `$ref`s resolve from its folder. */
  readonly file: string;
  readonly doc: Obj;
  /** 2 for Swagger 2.0, 3 for OpenAPI 3.0 and 3.1. */
  readonly major: 2 | 3;
  /** `3.0.3`, `2.0`, … as written. */
  readonly version: string;
}

/** A failure of the import: the problem to print, and 1 (bad input) or 2 (bad usage). */
export class ImportError extends Error {
  constructor(
    readonly problem: Problem,
    readonly exitCode: 1 | 2 = 1,
    /** The file the problem is about, when it is not the API description. */
    readonly file?: string,
  ) {
    super(problem.message);
    this.name = 'ImportError';
  }
}

/** Documents larger than this are refused (the biggest public specs are around 10 MiB). */
const MAX_BYTES = 64 * 1024 * 1024;

export const isObj: (v: unknown) => v is Obj = isObject;

/**
 * How deep maps and lists may nest in a document, and in a schema once its `$ref`s are inlined
 * (refs.ts). Real descriptions stay far below it; each step of the import and of the manifest's load
 * walks a schema recursively, so a deeper one would end in a stack overflow.
 */
export const MAX_DEPTH = 256;

/**
 * Parses one YAML or JSON file; throws ImportError(OPENAPI_READ), or OPENAPI_TOO_DEEP for a
 * document nested deeper than MAX_DEPTH. Also used for `$ref`'d files and overlays.
 */
export function readDocument(path: string): unknown {
  const doc = parseDocumentText(path);
  const deep = tooDeep(doc, 0, []);
  if (deep) throw new ImportError(problems.OPENAPI_TOO_DEEP(`${pointer(deep)} in ${path}`, MAX_DEPTH));
  return doc;
}

/** The path to the first value nested deeper than MAX_DEPTH (recursing at most that deep). */
function tooDeep(value: unknown, depth: number, path: string[]): string[] | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (depth > MAX_DEPTH) return path;
  for (const key in value) {
    const item = (value as Obj)[key];
    if (item === null || typeof item !== 'object') continue;
    path.push(key);
    if (tooDeep(item, depth + 1, path)) return path;
    path.pop();
  }
  return undefined;
}

/** A JSON pointer, its start and its end when it is long (`#/components/schemas/A/…/b (300 levels)`). */
function pointer(path: readonly string[]): string {
  const escaped = path.map((key) => key.replaceAll('~', '~0').replaceAll('/', '~1'));
  if (path.length <= 12) return `#/${escaped.join('/')}`;
  return `#/${escaped.slice(0, 8).join('/')}/…/${escaped.slice(-2).join('/')} (${path.length} levels)`;
}

function parseDocumentText(path: string): unknown {
  let text: string;
  try {
    const size = statSync(path).size;
    if (size > MAX_BYTES) throw new Error(`it is ${size} bytes, more than the ${MAX_BYTES} byte limit`);
    loading(size);
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new ImportError(problems.OPENAPI_READ(path, reason));
  }
  // A JSON document is read as JSON: the YAML parser reads it too, but forty times slower (seconds
  // for a description the size of GitHub's). JSON.parse keeps the last of duplicate keys.
  if (/^\s*\{/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      // Not strict JSON (comments, a trailing comma): the YAML parser may still read it.
    }
  }
  try {
    // YAML 1.2 reads JSON too; duplicate keys are errors, so an ambiguous document is refused.
    return parse(text, { maxAliasCount: 10_000 });
  } catch (err) {
    const first = (err as Error).message.split('\n')[0] ?? '';
    // The YAML parser recurses: nesting it cannot follow is too deep for us as well. Say so, and where.
    if (err instanceof RangeError || first.startsWith('Maximum call stack size exceeded')) {
      const at = / at (line \d+, column \d+)/.exec(first)?.[1];
      throw new ImportError(problems.OPENAPI_TOO_DEEP(`${at ?? 'a place'} of ${path}`, MAX_DEPTH));
    }
    throw new ImportError(problems.OPENAPI_READ(path, `it is neither valid YAML nor JSON (${first})`));
  }
}

/** Reads and checks the description; `edit` changes it first (the overlays, openapi/overlay.ts). */
export function loadSpec(path: string, edit?: (doc: Obj) => void): Spec {
  const file = resolve(path);
  const doc = readDocument(file);
  if (!isObj(doc)) throw new ImportError(problems.OPENAPI_INVALID('the document is not a mapping'));
  edit?.(doc);
  const openapi = doc.openapi;
  const swagger = doc.swagger;
  let major: 2 | 3;
  let version: string;
  if (openapi !== undefined) {
    version = String(openapi);
    if (!/^3\.\d+(\.\d+)?/.test(version)) {
      throw new ImportError(problems.OPENAPI_INVALID(`openapi: ${version} is not a 3.x version`));
    }
    major = 3;
  } else if (swagger !== undefined) {
    version = String(swagger);
    if (version !== '2.0' && version !== '2') {
      throw new ImportError(problems.OPENAPI_INVALID(`swagger: ${version} is not 2.0`));
    }
    major = 2;
  } else {
    throw new ImportError(problems.OPENAPI_INVALID('it has neither an `openapi` nor a `swagger` field'));
  }
  if (!isObj(doc.paths)) throw new ImportError(problems.OPENAPI_INVALID('it has no `paths` map'));
  return { file, doc, major, version };
}
