/**
 * A tool's `input:` properties, its verbatim `inputSchema` and its `outputSchema` are JSON Schemas (2020-12, MCP's dialect). Each is checked against
 * the meta-schema with the manifest, so that every bad keyword is its own error at its own key, in
 * the words the rest of validation uses ("expected one of …; got "strin" (did you mean "string"?)"),
 * rather than one line of ajv's text for the whole input schema when the tool compiles.
 */
import type { Ajv2020, ErrorObject } from 'ajv/dist/2020.js';
import { problems } from '../errors.js';
import { explainAjvErrors } from './ajv-errors.js';
import { conforms } from './conforms.js';
import { type Finding, isPlainObject } from './finding.js';
import { META_CHECK_OPTIONS, newAjv2020, precompiledMeta } from './precompiled.js';
import type { ManifestPath } from './types.js';

let meta: Ajv2020 | undefined;

const nonNegativeInteger = { type: 'integer', minimum: 0 };
/**
 * The commonest property, a type and words about it (`{ type: string, description: … }`), with a
 * few plain keywords more: the 2020-12 meta-schema takes every schema of this shape, so a manifest
 * whose properties are all like it loads no meta-schema check (0.7 ms of a start).
 */
const PLAIN_SCHEMA = {
  type: 'object',
  properties: {
    type: { enum: ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] },
    title: { type: 'string' },
    description: { type: 'string' },
    default: {},
    examples: { type: 'array' },
    enum: { type: 'array' },
    minimum: { type: 'number' },
    maximum: { type: 'number' },
    minLength: nonNegativeInteger,
    maxLength: nonNegativeInteger,
  },
  additionalProperties: false,
};

/** The keywords of a plain property: a key among them, found beside the property, was meant inside it (misindent.ts). */
export const PLAIN_KEYWORDS: ReadonlySet<string> = new Set(Object.keys(PLAIN_SCHEMA.properties));

/** `input` sits at `base` (tools.NAME.input); the boolean `required` shorthand is not JSON Schema. */
export function checkPropertySchemas(input: unknown, base: ManifestPath): Finding[] {
  if (!isPlainObject(input)) return [];
  const findings: Finding[] = [];
  for (const [property, schema] of Object.entries(input)) {
    if (!isPlainObject(schema)) continue;
    const { required, ...rest } = schema;
    findings.push(...checkSchema(typeof required === 'boolean' ? rest : schema, [...base, property]));
  }
  return findings;
}

/** One JSON Schema (an `inputSchema`, an `outputSchema`, one input property) at `at`: a finding per bad keyword. */
export function checkSchema(schema: unknown, at: ManifestPath): Finding[] {
  if (!isPlainObject(schema) || conforms(schema, PLAIN_SCHEMA) === true || isPlainTree(schema, 0)) return [];
  let errors: readonly ErrorObject[];
  const built = precompiledMeta('meta-2020-12-check', schema);
  if (built !== undefined) {
    if (built(schema)) return [];
    errors = built.errors ?? [];
  } else {
    meta ??= newAjv2020(META_CHECK_OPTIONS);
    if (meta.validateSchema(schema)) return [];
    errors = meta.errors ?? [];
  }
  return explainAjvErrors(byEnumFirst(errors), at, schema).map((f) => ({
    ...f,
    problem: { ...problems.SCHEMA_INVALID(f.problem.message), hint: f.problem.hint },
  }));
}

/** The simple types of the meta-schema. */
const TYPE_NAMES: ReadonlySet<unknown> = new Set(PLAIN_SCHEMA.properties.type.enum);

const isCount = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isString = (v: unknown) => typeof v === 'string';
const isBoolean = (v: unknown) => typeof v === 'boolean';
const isFiniteNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
const distinctStrings = (v: unknown) => Array.isArray(v) && v.every(isString) && new Set(v).size === v.length;
/** A `$ref` within the document (`#/schemas/repo`, `#/$defs/x`): a URI reference whatever the format checks. */
const LOCAL_REF = /^#(?:\/[A-Za-z0-9_.~%-]*)*$/;
/** Deeper than this, the meta-schema decides: a schema is seldom so deep, and the walk stays bounded. */
const MAX_PLAIN_DEPTH = 24;

/** Keywords whose values the 2020-12 meta-schema takes when they have this shape; a subschema is walked. */
const PLAIN_TREE: Readonly<Record<string, (value: unknown, depth: number) => boolean>> = {
  type: (v) =>
    TYPE_NAMES.has(v) ||
    (distinctStrings(v) && (v as unknown[]).length > 0 && (v as unknown[]).every((t) => TYPE_NAMES.has(t))),
  title: isString,
  description: isString,
  $comment: isString,
  format: isString,
  default: () => true,
  examples: Array.isArray,
  enum: Array.isArray,
  const: () => true,
  minimum: isFiniteNumber,
  maximum: isFiniteNumber,
  exclusiveMinimum: isFiniteNumber,
  exclusiveMaximum: isFiniteNumber,
  minLength: isCount,
  maxLength: isCount,
  minItems: isCount,
  maxItems: isCount,
  minProperties: isCount,
  maxProperties: isCount,
  uniqueItems: isBoolean,
  readOnly: isBoolean,
  writeOnly: isBoolean,
  deprecated: isBoolean,
  required: distinctStrings,
  $ref: (v) => typeof v === 'string' && LOCAL_REF.test(v),
  pattern: (v) => typeof v === 'string' && compiles(v),
  items: (v, depth) => typeof v === 'boolean' || isPlainTree(v, depth + 1),
  additionalProperties: (v, depth) => typeof v === 'boolean' || isPlainTree(v, depth + 1),
  properties: (v, depth) =>
    isPlainObject(v) && Object.values(v).every((p) => typeof p === 'boolean' || isPlainTree(p, depth + 1)),
  anyOf: (v, depth) => nonEmptyPlainList(v, depth),
  oneOf: (v, depth) => nonEmptyPlainList(v, depth),
  allOf: (v, depth) => nonEmptyPlainList(v, depth),
};

function nonEmptyPlainList(v: unknown, depth: number): boolean {
  return (
    Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === 'boolean' || isPlainTree(s, depth + 1))
  );
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/**
 * A schema past PLAIN_SCHEMA's shape that the meta-schema surely takes: its keywords among
 * PLAIN_TREE's, each with a value of the shape there, its subschemas alike. An imported API's
 * schemas are mostly such trees (objects of properties, lists of items, `$ref`s to `schemas:`):
 * the GitHub import has 1,376 of them, each checked against the meta-schema before. Anything else
 * (an unknown keyword, a value of another shape) is the meta-schema's to check, as before.
 */
export function isPlainTree(schema: unknown, depth: number): boolean {
  if (!isPlainObject(schema) || depth > MAX_PLAIN_DEPTH) return false;
  for (const keyword of Object.keys(schema)) {
    const check = PLAIN_TREE[keyword];
    if (check === undefined || !Object.hasOwn(PLAIN_TREE, keyword) || !check(schema[keyword], depth))
      return false;
  }
  return true;
}

/**
 * `type: strin` fails both of the meta-schema's forms (a type name, a list of them): the name form
 * says what was meant, so at a place with an `enum` error the other errors there are dropped. In a
 * list (`type: [string, dict]`) the wrong item's own error says it, so the list's is dropped.
 */
function byEnumFirst(errors: readonly ErrorObject[]): ErrorObject[] {
  const enums = errors.filter((e) => e.keyword === 'enum').map((e) => e.instancePath);
  const enumAt = new Set(enums);
  const itemWrong = (path: string) => enums.some((p) => p.startsWith(`${path}/`));
  return errors.filter((e) =>
    e.keyword === 'enum'
      ? !(Array.isArray(e.data) && itemWrong(e.instancePath))
      : !enumAt.has(e.instancePath),
  );
}
