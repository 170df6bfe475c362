/**
 * The official MCP JSON Schemas (vendored in test/fixtures/mcp-schemas/, see its README), compiled
 * with ajv in their own dialect, and which definition each server message must satisfy.
 *
 * The official files leave every object open (no `additionalProperties: false`), so a key a version
 * never defined passes them unseen. A client that validates strictly refuses such a key, so the
 * checks here close each object that lists its properties: what the version does not define fails.
 * Objects the spec declares open stay open: `_meta`, capabilities ("not a closed set"), the JSON
 * Schemas a tool or form carries, and `Result` itself.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { REPO } from '../helpers/demo.js';

export const SCHEMA_VERSIONS = [
  '2024-11-05',
  '2025-03-26',
  '2025-06-18',
  '2025-11-25',
  '2026-07-28',
] as const;
export type SchemaVersion = (typeof SCHEMA_VERSIONS)[number];

const DIR = join(REPO, 'test/fixtures/mcp-schemas');
/** Keys whose value is open by the spec's own words, or is itself a JSON Schema. */
const OPEN_KEYS = new Set([
  '_meta',
  'experimental',
  'inputSchema',
  'outputSchema',
  'requestedSchema',
  'structuredContent',
]);
const OPEN_DEFS = new Set([
  'ServerCapabilities',
  'ClientCapabilities',
  'Result',
  'EmptyResult',
  'Meta',
  'MetaObject',
]);

/** The contents of a `_meta` (ResultMetaObject, SubscriptionsListenResultMeta, …): open by the spec's key rules. */
const META = /Meta(Object)?$/;

type Schema = Record<string, unknown>;

function close(node: unknown, open: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => close(n, open));
  if (node === null || typeof node !== 'object') return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node as Schema)) {
    if (key === 'properties' && value !== null && typeof value === 'object') {
      out[key] = Object.fromEntries(
        Object.entries(value as Schema).map(([name, sub]) => [name, close(sub, OPEN_KEYS.has(name))]),
      );
    } else out[key] = close(value, open);
  }
  if (!open && 'properties' in out && !('additionalProperties' in out) && !('unevaluatedProperties' in out))
    out.additionalProperties = false;
  return out;
}

export interface VersionSchema {
  readonly version: SchemaVersion;
  /** `definitions` (draft-07) or `$defs` (2020-12). */
  readonly defs: Readonly<Record<string, unknown>>;
  /** Errors of `message` against definition `name`, as text; empty when it conforms. */
  check(name: string, message: unknown): string[];
}

const cache = new Map<SchemaVersion, VersionSchema>();

export function schemaFor(version: SchemaVersion): VersionSchema {
  const found = cache.get(version);
  if (found !== undefined) return found;
  const raw = JSON.parse(readFileSync(join(DIR, `${version}.schema.json`), 'utf8')) as Schema;
  const defsKey = '$defs' in raw ? '$defs' : 'definitions';
  const defs = raw[defsKey] as Record<string, unknown>;
  const closedDefs = Object.fromEntries(
    Object.entries(defs).map(([name, def]) => [name, close(def, OPEN_DEFS.has(name) || META.test(name))]),
  );
  const schema = { ...raw, $id: `mcp-${version}`, [defsKey]: closedDefs };
  const ajv =
    defsKey === '$defs'
      ? new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
      : new Ajv({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(schema);
  const validators = new Map<string, ValidateFunction>();
  const entry: VersionSchema = {
    version,
    defs,
    check(name, message) {
      if (!(name in defs)) return [`the ${version} schema has no definition ${name}`];
      let validate = validators.get(name);
      if (validate === undefined) {
        validate = ajv.getSchema(`mcp-${version}#/${defsKey}/${name}`)!;
        validators.set(name, validate);
      }
      if (validate(message)) return [];
      return (validate.errors ?? []).map(
        (e) => `${name}${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
      );
    },
  };
  cache.set(version, entry);
  return entry;
}
