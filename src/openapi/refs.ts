/**
 * `$ref` resolution. Local references (`#/components/schemas/Pet`) and relative files
 * (`common.yaml#/Error`, read from the document's folder) are inlined, so the manifest stands on its
 * own; URLs are never fetched. A schema that contains itself is expanded once and cut at its second
 * visit on the same branch, leaving a schema with a description that says so. Siblings of a `$ref`
 * (OpenAPI 3.1 allows `description` next to it) override what the target says.
 *
 * The importer reads only what it was given: a file `$ref` must stay inside the document's folder
 * (after `..` and symbolic links) or a folder named with `--allow-ref-dir`. Expanding is bounded: a
 * schema nested deeper than MAX_DEPTH through its `$ref`s, or more than MAX_INLINED values inlined
 * in all (a "billion laughs" of schemas each referencing the next twice), is an error naming the
 * schema, not a stack overflow or an import that never ends.
 */
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { problems } from '../errors.js';
import { isInside } from '../util/inside.js';
import { ImportError, isObj, MAX_DEPTH, readDocument } from './load.js';

/**
 * Values (maps and lists) inlined over one import. The manifest files together hold at most 64 MiB
 * (manifest/include.ts), a few bytes a value at least: an expansion past this is not a manifest
 * mcp-run could load, so it stops here, in seconds, instead of filling the memory.
 */
export const MAX_INLINED = 4_000_000;

interface Target {
  readonly value: unknown;
  /** The file the value lives in, for the refs inside it. */
  readonly file: string;
  /** file#pointer: one identity per referenced place, to find cycles. */
  readonly key: string;
  /** The last pointer segment (`Pet`), to name it in a cut. */
  readonly label: string;
}

export class RefResolver {
  private readonly files = new Map<string, unknown>();
  /** Things the user should know that do not stop the import (a remote ref left unexpanded). */
  readonly warnings: string[] = [];
  /** The document's schema components kept as references (`keep`), by their name in the manifest. */
  readonly kept = new Map<string, { readonly value: unknown; readonly file: string; readonly key: string }>();
  private readonly keptNames = new Map<string, string>();
  /** The folders file `$ref`s may read: the document's, and those `--allow-ref-dir` names. */
  private readonly readable: readonly string[];
  /** The same, with symbolic links followed (what is read must be inside one of these). */
  private readonly readableReal: readonly string[];
  /** Values inlined so far, against MAX_INLINED. */
  private inlined = 0;

  constructor(
    private readonly rootFile: string,
    rootDoc: unknown,
    private readonly swagger = false,
    allowRefDirs: readonly string[] = [],
  ) {
    this.files.set(rootFile, rootDoc);
    this.readable = [dirname(rootFile), ...allowRefDirs].map((dir) => resolve(dir));
    this.readableReal = this.readable.map(realFolder);
  }

  /**
   * A copy of `node` with every `$ref` in it replaced by what it points at. With `keep`, a
   * reference to one of the root document's schema components (`#/components/schemas/X`, or
   * `#/definitions/X` in Swagger 2.0) stays a reference, to the manifest's `#/schemas/X`; the
   * component is recorded in `kept` for the caller to write once.
   */
  inline(node: unknown, file: string, stack: readonly string[] = [], names = false, keep = false): unknown {
    return this.expand(node, file, stack, names, keep, 0);
  }

  private expand(
    node: unknown,
    file: string,
    stack: readonly string[],
    names: boolean,
    keep: boolean,
    depth: number,
  ): unknown {
    if (!Array.isArray(node) && !isObj(node)) return node;
    // The documents themselves are no deeper than MAX_DEPTH (load.ts): deeper here is through $refs.
    if (depth > MAX_DEPTH) throw new ImportError(problems.OPENAPI_TOO_DEEP(this.chain(stack), MAX_DEPTH));
    if (++this.inlined > MAX_INLINED) {
      throw new ImportError(problems.OPENAPI_TOO_LARGE(this.chain(stack), MAX_INLINED));
    }
    if (Array.isArray(node))
      return node.map((item) => this.expand(item, file, stack, false, keep, depth + 1));
    const { $ref, ...siblings } = node;
    if (typeof $ref === 'string') {
      const target = this.find($ref, file);
      if (!target) {
        return { description: `Not expanded: ${$ref} is not a local reference (URLs are not fetched).` };
      }
      const rest = this.expand(siblings, file, stack, false, keep, depth) as Record<string, unknown>;
      const component = keep ? this.componentName(target) : undefined;
      if (component !== undefined) return { $ref: `#/schemas/${component}`, ...rest };
      const expanded = stack.includes(target.key)
        ? cut(target)
        : this.expand(target.value, target.file, [...stack, target.key], false, keep, depth);
      return Object.keys(rest).length > 0 && isObj(expanded) ? { ...expanded, ...rest } : expanded;
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      // Examples, enums and defaults are data: a `$ref` key inside one is not a reference. Under
      // `properties` the keys are names, so a property called `example` is still a schema.
      const data = !names && DATA_KEYS.has(key);
      out[key] = data
        ? value
        : this.expand(value, file, stack, !names && NAME_MAPS.has(key), keep, depth + 1);
    }
    return out;
  }

  /** The manifest name of a schema component of the root document, recording it; else undefined. */
  private componentName(target: Target): string | undefined {
    const prefix = `${this.rootFile}#${this.swagger ? '/definitions/' : '/components/schemas/'}`;
    if (!target.key.startsWith(prefix)) return undefined;
    const raw = target.key.slice(prefix.length);
    if (raw.includes('/')) return undefined; // inside a component, not a component
    let name = this.keptNames.get(raw);
    if (name === undefined) {
      const base =
        unescapeSegment(raw)
          .replace(/[^A-Za-z0-9_.-]+/g, '_')
          .slice(0, 120) || 'schema';
      name = base;
      for (let n = 2; this.kept.has(name); n++) name = `${base}_${n}`;
      this.keptNames.set(raw, name);
      this.kept.set(name, { value: target.value, file: target.file, key: target.key });
    }
    return name;
  }

  /** Follows a chain of `$ref`s at the top of `node` only (a path item, a parameter list entry). */
  follow(node: unknown, file: string): { value: unknown; file: string } {
    const seen = new Set<string>();
    let current = { value: node, file };
    while (isObj(current.value) && typeof current.value.$ref === 'string') {
      const target = this.find(current.value.$ref, current.file);
      if (!target || seen.has(target.key)) return { value: {}, file: current.file };
      seen.add(target.key);
      current = { value: target.value, file: target.file };
    }
    return current;
  }

  /** What a reference points at; undefined for a URL (recorded as a warning). */
  private find(ref: string, from: string): Target | undefined {
    const hash = ref.indexOf('#');
    const location = hash < 0 ? ref : ref.slice(0, hash);
    const pointer = hash < 0 ? '' : ref.slice(hash + 1);
    if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(location)) {
      this.warnings.push(`${ref} is a remote reference; it was not fetched and is left unexpanded.`);
      return undefined;
    }
    const file = location === '' ? from : resolve(dirname(from), decodeURIComponent(location));
    let doc = this.files.get(file);
    if (doc === undefined) {
      this.checkReadable(ref, file);
      try {
        doc = readDocument(file);
      } catch (err) {
        // A file too deep keeps its own code; one that cannot be read is a $ref that cannot be followed.
        if (!(err instanceof ImportError) || err.problem.code !== 'OPENAPI_READ') throw err;
        throw new ImportError(problems.OPENAPI_REF(ref, err.problem.message));
      }
      this.files.set(file, doc);
    }
    const segments = pointer === '' ? [] : pointer.replace(/^\//, '').split('/').map(unescapeSegment);
    let value: unknown = doc;
    for (const [i, segment] of segments.entries()) {
      const next = Array.isArray(value) ? value[Number(segment)] : isObj(value) ? value[segment] : undefined;
      if (next === undefined || !Object.hasOwn(value as object, segment)) {
        const at = `#/${segments.slice(0, i + 1).join('/')}`;
        throw new ImportError(problems.OPENAPI_REF(ref, `${at} does not exist in ${file}`));
      }
      value = next;
    }
    return { value, file, key: `${file}#${pointer}`, label: segments.at(-1) ?? location };
  }

  /** The schemas being expanded, outermost first: `#/components/schemas/A → … → common.yaml#/B`. */
  private chain(stack: readonly string[]): string {
    if (stack.length === 0) return 'a schema of an operation';
    const names = stack.map((key) =>
      key.startsWith(`${this.rootFile}#`)
        ? key.slice(this.rootFile.length)
        : `${basename(key.slice(0, key.indexOf('#')))}${key.slice(key.indexOf('#'))}`,
    );
    return (names.length > 4 ? [names[0], '…', ...names.slice(-2)] : names).join(' → ');
  }

  /** A file `$ref` may read only inside the readable folders, wherever its symbolic links lead. */
  private checkReadable(ref: string, file: string): void {
    // A missing file is judged by its folder; readDocument then says it is missing.
    const real = existsSync(file) ? realpathSync(file) : join(realFolder(dirname(file)), basename(file));
    if (this.readableReal.some((dir) => isInside(real, dir))) return;
    // Inside as written, outside once resolved: a symbolic link (the file or a folder on the way) leads out.
    const linked = this.readable.some((dir) => isInside(file, dir));
    throw new ImportError(problems.OPENAPI_REF_OUTSIDE(ref, real, this.readable[0]!, linked));
  }
}

/** The folder's real path (symbolic links followed), or the path itself when it does not exist. */
function realFolder(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

const DATA_KEYS = new Set(['example', 'examples', 'enum', 'default', 'const']);
const NAME_MAPS = new Set(['properties', 'patternProperties']);

/** JSON Pointer escapes (~1 is `/`, ~0 is `~`), after the URI fragment's percent-encoding. */
const unescapeSegment = (segment: string): string =>
  decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~');

/** The second visit of a schema inside itself: its type, and a description instead of the rest. */
function cut(target: Target): Record<string, unknown> {
  const type = isObj(target.value) ? target.value.type : undefined;
  return {
    ...(type !== undefined && { type }),
    description: `A ${target.label} again (a recursive schema; not expanded a second time).`,
  };
}
