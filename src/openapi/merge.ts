/**
 * `--merge`: re-import into a manifest the user has edited, keeping the edits. Next to the manifest,
 * a sidecar file (`.mcp-run-import.<manifest>.json`) records what the last import generated. Each
 * value is then merged three ways, field by field down to scalars and lists:
 *
 * - the manifest still holds what was generated last time → the user did not touch it → it takes
 *   the new generated value (or goes, when the document no longer produces it);
 * - it holds something else → the user changed it → it stays (a warning names it when the document
 *   changed it too);
 * - it is gone but was generated → the user deleted it → it stays deleted;
 * - it was never generated → a new field or a new operation → it is added.
 *
 * A tool whose operation left the document goes only if it is exactly as generated; an edited one
 * stays, with a warning. A tool the user renamed (the generated name gone, a name the import never
 * wrote calling the same method and path) is the same tool: it is merged under its new name. So is
 * an operation the document renamed (a new operationId, the same method and path): it is merged
 * into the tool it made last time, which keeps its name, with a warning. A tool the user deleted
 * stays deleted; a warning says so when the document changed it since. Edits go through the yaml
 * Document API, so comments, order and formatting of everything the merge does not change are kept
 * as they were.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type Document, isMap, isNode } from 'yaml';
import { addEntry, schemaPair, sourcePair, styled, toolPair } from './document.js';
import type { Generated } from './generate.js';
import { isObj, type Obj } from './load.js';

export interface Sidecar {
  readonly generator: 'mcp-run import openapi';
  readonly version: 1;
  /** The API description, relative to the manifest's folder. */
  readonly spec: string;
  /** The selection and name used, reused by a later `--merge` that does not give them. */
  readonly options: {
    readonly tags?: string[];
    readonly operations?: string[];
    readonly name?: string;
    readonly outputSchema?: boolean;
    readonly inlineSchemas?: boolean;
    /** The overlays applied, relative to the manifest's folder. */
    readonly overlays?: string[];
  };
  readonly server: Obj;
  readonly sources: Record<string, Obj>;
  readonly tools: Record<string, Obj>;
  /** The shared schemas written (absent in records of imports before there were any). */
  readonly schemas?: Record<string, Obj>;
}

export interface MergeReport {
  /** Anything in the manifest changed (else it need not be written). */
  changed: boolean;
  readonly added: string[];
  readonly updated: string[];
  readonly removed: string[];
  /** Warnings: edits kept over a changed document, edited tools whose operation is gone. */
  readonly warnings: string[];
}

export const sidecarPath = (manifest: string): string =>
  join(dirname(manifest), `.mcp-run-import.${basename(manifest)}.json`);

export function sidecarOf(gen: Generated, spec: string, options: Sidecar['options']): Sidecar {
  return {
    generator: 'mcp-run import openapi',
    version: 1,
    spec,
    options,
    server: gen.server,
    sources: { [gen.sourceName]: gen.source.config },
    tools: Object.fromEntries(gen.tools.map((t) => [t.name, t.config])),
    ...(Object.keys(gen.schemas).length > 0 && { schemas: { ...gen.schemas } }),
  };
}

/** The last import's record, or undefined when there is none (or it is not one). */
export function readSidecar(manifest: string): Sidecar | undefined {
  const path = sidecarPath(manifest);
  if (!existsSync(path)) return undefined;
  try {
    const data = JSON.parse(readFileSync(path, 'utf8'));
    return isObj(data) && data.generator === 'mcp-run import openapi' && isObj(data.tools)
      ? (data as unknown as Sidecar)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The record as JSON laid out as the repository's formatter (biome) lays it out: objects one key a
 * line, lists of plain values on one line when they fit, so a committed record stays formatted.
 */
export function formatRecord(record: Sidecar): string {
  const write = (value: unknown, indent: string): string => {
    if (Array.isArray(value)) {
      if (value.length === 0) return '[]';
      if (value.every((v) => v === null || typeof v !== 'object')) {
        const line = `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
        if (indent.length + line.length <= 100) return line;
      }
      const inner = `${indent}  `;
      return `[\n${value.map((v) => inner + write(v, inner)).join(',\n')}\n${indent}]`;
    }
    if (isObj(value)) {
      const entries = Object.entries(value);
      if (entries.length === 0) return '{}';
      const inner = `${indent}  `;
      const lines = entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${write(v, inner)}`);
      return `{\n${lines.join(',\n')}\n${indent}}`;
    }
    return JSON.stringify(value);
  };
  return `${write(record, '')}\n`;
}

const ABSENT = Symbol('absent');
type Value = unknown | typeof ABSENT;

export function mergeInto(doc: Document, previous: Sidecar | undefined, gen: Generated): MergeReport {
  const report: MergeReport = { changed: false, added: [], updated: [], removed: [], warnings: [] };
  const conflicts: string[] = [];
  if (!previous) {
    report.warnings.push(
      'no record of the last import was found: entries already in the manifest are kept as they are',
    );
  }
  report.changed = mergeValue(doc, ['server'], previous ? previous.server : ABSENT, gen.server, conflicts);

  // A tool whose operation the document now names differently (same method and path, a new
  // operationId) is the same tool: it is merged under the name it has, not added twice.
  const moved = movedOperations(previous?.tools ?? {}, gen.tools);
  for (const [generated, was] of moved) {
    report.warnings.push(
      `tools.${was}: the document renamed its operation (${operation(previous?.tools[was])}): kept as ${was}, updated from the new operation (a new import would name it ${generated})`,
    );
  }
  const sections = [
    {
      section: 'sources',
      base: previous?.sources ?? {},
      next: new Map([[gen.sourceName, { config: gen.source.config, pair: () => sourcePair(doc, gen) }]]),
    },
    {
      section: 'tools',
      base: previous?.tools ?? {},
      next: new Map(
        gen.tools.map((t) => [
          moved.get(t.name) ?? t.name,
          { config: t.config, pair: () => toolPair(doc, t) },
        ]),
      ),
    },
    {
      section: 'schemas',
      base: previous?.schemas ?? {},
      next: new Map(
        Object.entries(gen.schemas).map(([name, schema]) => [
          name,
          { config: schema, pair: () => schemaPair(doc, name, schema) },
        ]),
      ),
    },
  ];
  let used: Set<string> | undefined;
  // The names the import writes now, an operation that moved counting under its old name: a tool
  // the user named as upstream now does is still the user's rename.
  const writtenNow = new Set(gen.tools.map((t) => moved.get(t.name) ?? t.name));
  const renamed = renames(doc, previous?.tools ?? {}, writtenNow);
  for (const { section, base, next } of sections) {
    // The manifest's name of a generated entry: a renamed tool's new one.
    const at = (name: string) => (section === 'tools' ? (renamed.get(name) ?? name) : name);
    for (const [generated, entry] of next) {
      const name = at(generated);
      const had = Object.hasOwn(base, generated);
      if (!doc.hasIn([section, name])) {
        if (!had) {
          addEntry(doc, section, entry.pair());
          report.changed = true;
          if (section === 'tools') report.added.push(name);
        } else if (section === 'tools' && !equal(base[generated], entry.config)) {
          // Deleted since, and the operation changed upstream: the deletion stands, but the author
          // chose it for the old operation, so say what they are not getting.
          report.warnings.push(
            `tools.${name}: you removed it, and the document changed its operation (${operation(entry.config)}) since: still removed (import without --update to see the new one)`,
          );
        }
        continue; // generated before and deleted since: the user's choice stands
      }
      const changed = mergeValue(
        doc,
        [section, name],
        had ? base[generated] : ABSENT,
        entry.config,
        conflicts,
      );
      report.changed ||= changed;
      if (changed && section === 'tools') report.updated.push(name);
    }
    for (const [generated, config] of Object.entries(base)) {
      const name = at(generated);
      if (next.has(generated) || !doc.hasIn([section, name])) continue;
      // Computed once, after the tools: deleting an unused schema leaves the others' use alone.
      if (section === 'schemas') used ??= usedSchemas(doc);
      if (section === 'schemas' && used?.has(name)) {
        // A tool the merge kept (an edited one whose operation is gone, or the user's own) still
        // points at it: deleting it would leave a manifest that does not load.
        report.warnings.push(
          `schemas.${name} is no longer generated from the document, but the manifest still references it: kept`,
        );
        continue;
      }
      if (equal(read(doc, [section, name]), config)) {
        if (section === 'tools' && name !== generated) {
          report.warnings.push(
            `tools.${name} (${generated} as imported, renamed by you): its operation (${operation(config)}) is gone from the document: removed`,
          );
        }
        doc.deleteIn([section, name]);
        report.changed = true;
        if (section === 'tools') report.removed.push(name);
      } else {
        report.warnings.push(
          `${section}.${name} is no longer generated from the document, but you edited it: kept`,
        );
      }
    }
  }
  // The last shared schema removed: an empty `schemas:` (and its comment) would only puzzle.
  const schemas = doc.get('schemas', true);
  if (report.changed && isMap(schemas) && schemas.items.length === 0) doc.delete('schemas');
  for (const path of conflicts) {
    report.warnings.push(`${path} keeps your edit; the document changed it too (re-check it)`);
  }
  return report;
}

/**
 * Generated tool name → the name the user gave it: a generated tool missing from the manifest, and a
 * tool there that no import wrote (neither last time nor now) with the same method and path. Only
 * a one-to-one match counts: two candidates leave the tool as deleted.
 */
function renames(
  doc: Document,
  base: Record<string, Obj>,
  generatedNow: ReadonlySet<string>,
): Map<string, string> {
  const tools = doc.getIn(['tools']);
  const names = isNode(tools) ? Object.keys((tools.toJS(doc) as Obj | null) ?? {}) : [];
  const written = names.filter((n) => !Object.hasOwn(base, n) && !generatedNow.has(n));
  const byOperation = new Map<string, string[]>();
  for (const name of written) {
    const op = operation(read(doc, ['tools', name]));
    if (op !== undefined) byOperation.set(op, [...(byOperation.get(op) ?? []), name]);
  }
  const out = new Map<string, string>();
  for (const [name, config] of Object.entries(base)) {
    if (doc.hasIn(['tools', name])) continue;
    const candidates = byOperation.get(operation(config) ?? '') ?? [];
    if (candidates.length === 1) out.set(name, candidates[0] as string);
  }
  return out;
}

/**
 * The shared schemas the manifest references outside `schemas:`, and those they reference in turn
 * (`$ref: '#/schemas/Name'`, a JSON pointer: `~1` is `/`, `~0` is `~`).
 */
function usedSchemas(doc: Document): Set<string> {
  const all = (doc.toJS() as Obj | null) ?? {};
  const schemas = isObj(all.schemas) ? all.schemas : {};
  const refs = (value: unknown, into: string[]): string[] => {
    if (Array.isArray(value)) for (const v of value) refs(v, into);
    else if (isObj(value)) {
      for (const [key, v] of Object.entries(value)) {
        if (key === '$ref' && typeof v === 'string' && v.startsWith('#/schemas/')) {
          into.push(v.slice('#/schemas/'.length).split('/')[0]!.replace(/~1/g, '/').replace(/~0/g, '~'));
        } else refs(v, into);
      }
    }
    return into;
  };
  const used = new Set<string>();
  const pending = refs({ ...all, schemas: undefined }, []);
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (used.has(name)) continue;
    used.add(name);
    pending.push(...refs(schemas[name], []));
  }
  return used;
}

/** A tool's `METHOD /path`, what stays when an operation's id (and so the tool's name) changes. */
function operation(config: unknown): string | undefined {
  return isObj(config) && typeof config.method === 'string' && typeof config.path === 'string'
    ? `${config.method.toUpperCase()} ${config.path}`
    : undefined;
}

/**
 * Generated tool name now → its name last time, for an operation the document renamed: a new name
 * the last import did not write and an old name it no longer writes, with the same method and path
 * (one to one only).
 */
function movedOperations(base: Record<string, Obj>, tools: Generated['tools']): Map<string, string> {
  const now = new Set(tools.map((t) => t.name));
  const gone = new Map<string, string[]>();
  for (const [name, config] of Object.entries(base)) {
    const op = operation(config);
    if (!now.has(name) && op !== undefined) gone.set(op, [...(gone.get(op) ?? []), name]);
  }
  const fresh = tools.filter((t) => !Object.hasOwn(base, t.name));
  const out = new Map<string, string>();
  for (const tool of fresh) {
    const op = operation(tool.config);
    const was = gone.get(op ?? '') ?? [];
    if (was.length === 1 && fresh.filter((t) => operation(t.config) === op).length === 1) {
      out.set(tool.name, was[0] as string);
    }
  }
  return out;
}

/** Merges one value; true when the manifest changed. */
function mergeValue(doc: Document, path: string[], base: Value, next: Value, conflicts: string[]): boolean {
  const ours = doc.hasIn(path) ? read(doc, path) : ABSENT;
  if (ours === ABSENT) {
    if (base !== ABSENT || next === ABSENT) return false; // deleted by the user, or nowhere
    doc.setIn(path, styled(doc, next));
    return true;
  }
  if (base === ABSENT) return false; // written by the user (or no record): theirs
  if (equal(ours, base)) {
    if (next === ABSENT) {
      doc.deleteIn(path);
      return true;
    }
    if (equal(ours, next)) return false;
    if (isObj(ours) && isObj(next)) return mergeKeys(doc, path, base as Obj, next, ours, conflicts);
    doc.setIn(path, styled(doc, next));
    return true;
  }
  if (isObj(ours) && isObj(base) && isObj(next)) return mergeKeys(doc, path, base, next, ours, conflicts);
  if (next !== ABSENT && !equal(next, base) && !equal(next, ours)) conflicts.push(path.join('.'));
  return false;
}

function mergeKeys(
  doc: Document,
  path: string[],
  base: Obj,
  next: Obj,
  ours: Obj,
  conflicts: string[],
): boolean {
  let changed = false;
  for (const key of new Set([...Object.keys(ours), ...Object.keys(base), ...Object.keys(next)])) {
    const b = Object.hasOwn(base, key) ? base[key] : ABSENT;
    const n = Object.hasOwn(next, key) ? next[key] : ABSENT;
    changed = mergeValue(doc, [...path, key], b, n, conflicts) || changed;
  }
  return changed;
}

function read(doc: Document, path: string[]): unknown {
  const node = doc.getIn(path, true);
  return isNode(node) ? node.toJS(doc) : node;
}

/** Deep equality of plain data, ignoring the order of keys. */
export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]));
  }
  if (!isObj(a) || !isObj(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
}
