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
  if (!isPlainObject(schema) || conforms(schema, PLAIN_SCHEMA) === true) return [];
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
