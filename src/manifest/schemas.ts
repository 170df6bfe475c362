/**
 * Shared schemas: the top-level `schemas:` section names JSON Schemas once, and a tool's `input`
 * properties, `inputSchema` or `outputSchema` (or another shared schema) point at one with
 * `$ref: '#/schemas/Name'`. What a client sees stays self-contained JSON Schema 2020-12: each schema
 * that uses shared ones carries them under its own `$defs` (only those it reaches), with the
 * references rewritten to `#/$defs/Name`. An `input:` property is a schema inside the generated
 * inputSchema, so its definitions go under the property and are referenced by the full pointer.
 *
 * @example
 * schemas:
 *   Label: { type: object, properties: { name: { type: string } } }
 * tools:
 *   get_label:
 *     kind: http
 *     source: api
 *     path: /labels/{name}
 *     input: { name: { type: string } }
 *     outputSchema: { $ref: '#/schemas/Label' }
 *
 * The rewritten copy of each shared schema is made once per place (`#/$defs/`) and shared between
 * the tools that use it, so a schema used by a thousand tools is held once in memory.
 */
import { problems } from '../errors.js';
import { suggest } from '../util/suggest.js';
import { type Finding, isPlainObject } from './finding.js';
import { DESCEND, rewriteTree } from './rewrite-tree.js';
import type { ManifestPath } from './types.js';

const PREFIX = '#/schemas/';

/** Rewrites every tool's references to shared schemas in place; returns the unknown names. */
export function expandSharedSchemas(data: unknown): Finding[] {
  if (!isPlainObject(data)) return [];
  const shared = isPlainObject(data.schemas) ? (data.schemas as Record<string, unknown>) : {};
  const tools = isPlainObject(data.tools) ? (data.tools as Record<string, unknown>) : {};
  const findings: Finding[] = [];
  const names = Object.keys(shared);
  // Only the work that is needed: a manifest without `$ref: '#/schemas/…'` is left as it was.
  if (!names.length && !mentionsShared(tools)) return findings;

  /** Per base pointer: name → the rewritten copy. */
  const copies = new Map<string, Map<string, unknown>>();
  const unknown = (name: string, path: ManifestPath): void => {
    findings.push({ path, problem: problems.SCHEMA_UNKNOWN(name, names, suggest(name, names)) });
  };
  /**
   * `node` with `#/schemas/X` → `${base}X`, collecting the names it reaches; copied only on the way
   * to a reference (rewrite-tree.ts). `path` is where `node` is, for a finding.
   */
  const rewrite = (node: unknown, base: string, reached: Set<string>, path: ManifestPath): unknown =>
    rewriteTree(
      node,
      (value, at) => {
        if (typeof value !== 'string') return DESCEND;
        if (at.at(-1) !== '$ref' || !value.startsWith(PREFIX)) return value;
        const name = decodePointer(value.slice(PREFIX.length));
        if (!Object.hasOwn(shared, name)) {
          unknown(name, [...at]);
          return value;
        }
        reached.add(name);
        return `${base}${encodePointer(name)}`;
      },
      path,
    );
  /** The definitions `schema` reaches, transitively, each rewritten for `base`. */
  const definitions = (reached: Set<string>, base: string): Record<string, unknown> => {
    let cache = copies.get(base);
    if (!cache) {
      cache = new Map();
      copies.set(base, cache);
    }
    const defs: Record<string, unknown> = {};
    const queue = [...reached];
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      if (Object.hasOwn(defs, name)) continue;
      let copy = cache.get(name);
      if (copy === undefined) {
        const inner = new Set<string>();
        copy = rewrite(shared[name], base, inner, ['schemas', name]);
        cache.set(name, copy);
        reachedBy.set(`${base}\0${name}`, inner);
      }
      Object.defineProperty(defs, name, {
        value: copy,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      for (const next of reachedBy.get(`${base}\0${name}`) ?? []) queue.push(next);
    }
    return defs;
  };
  const reachedBy = new Map<string, Set<string>>();

  /** A schema with its shared references made local: `$defs` added at `base`. */
  const selfContained = (schema: unknown, base: string, path: ManifestPath): unknown => {
    if (!isPlainObject(schema)) return schema;
    const reached = new Set<string>();
    const rewritten = rewrite(schema, base, reached, path) as Record<string, unknown>;
    if (reached.size === 0) return rewritten;
    const own = isPlainObject(rewritten.$defs) ? rewritten.$defs : {};
    return { ...rewritten, $defs: { ...definitions(reached, base), ...own } };
  };

  for (const [name, tool] of Object.entries(tools)) {
    if (!isPlainObject(tool)) continue;
    const entry = tool as Record<string, unknown>;
    for (const field of ['inputSchema', 'outputSchema']) {
      if (isPlainObject(entry[field])) {
        entry[field] = selfContained(entry[field], '#/$defs/', ['tools', name, field]);
      }
    }
    if (isPlainObject(entry.input)) {
      const input = { ...(entry.input as Record<string, unknown>) };
      for (const [arg, schema] of Object.entries(input)) {
        const base = `#/properties/${encodePointer(arg)}/$defs/`;
        input[arg] = selfContained(schema, base, ['tools', name, 'input', arg]);
      }
      entry.input = input;
    }
  }
  return findings;
}

function mentionsShared(tools: Record<string, unknown>): boolean {
  return JSON.stringify(tools).includes(`"${PREFIX}`);
}

const encodePointer = (name: string): string =>
  encodeURIComponent(name.replaceAll('~', '~0').replaceAll('/', '~1')).replaceAll('%2F', '/');
const decodePointer = (text: string): string =>
  decodeURIComponent(text).replaceAll('~1', '/').replaceAll('~0', '~');
