/**
 * OpenAPI schemas (already inlined) as the JSON Schema 2020-12 that MCP tools declare. OpenAPI 3.0
 * and Swagger 2.0 speak a dialect: `nullable: true` becomes a `null` type, `example` becomes
 * `examples`, boolean `exclusiveMinimum` becomes the number form, and words JSON Schema does not
 * have (`discriminator`, `xml`, `externalDocs`, `x-…`) are dropped, so every key left is one a
 * validator and the manifest's keyword check know. An `allOf` of plain object schemas is merged into
 * one object (what `Pet = NewPet + {id}` means); anything less simple is kept as `allOf`.
 */
import { isObj, type Obj } from './load.js';

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);
const SUBSCHEMA = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
const KEPT = new Set([
  // Only a reference the import keeps on purpose is left (to a shared schema, `#/schemas/…`).
  '$ref',
  'title',
  'description',
  'type',
  'enum',
  'const',
  'default',
  'format',
  'multipleOf',
  'maximum',
  'minimum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'deprecated',
  'readOnly',
  'writeOnly',
  'examples',
  'contentMediaType',
  'contentEncoding',
  ...SUBSCHEMA,
  ...SUBSCHEMA_LISTS,
  ...SUBSCHEMA_MAPS,
]);

export function toJsonSchema(schema: unknown): Obj {
  if (schema === true || schema === undefined) return {};
  if (!isObj(schema)) return {};
  const out: Obj = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!KEPT.has(key)) continue;
    if (SUBSCHEMA.includes(key)) out[key] = typeof value === 'boolean' ? value : toJsonSchema(value);
    else if (SUBSCHEMA_LISTS.includes(key) && Array.isArray(value)) out[key] = value.map(toJsonSchema);
    else if (SUBSCHEMA_MAPS.includes(key) && isObj(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, toJsonSchema(s)]));
    } else out[key] = value;
  }
  fixType(out, schema);
  fixExclusive(out, 'exclusiveMinimum', 'minimum');
  fixExclusive(out, 'exclusiveMaximum', 'maximum');
  if (schema.example !== undefined && out.examples === undefined) out.examples = [schema.example];
  if (!Array.isArray(out.required)) delete out.required;
  else if (out.required.length === 0) delete out.required;
  return mergeAllOf(out);
}

/** Only JSON Schema type names; `nullable` (3.0) and `x-nullable` (2.0) add `null`. */
function fixType(out: Obj, original: Obj): void {
  const listed = Array.isArray(out.type) ? out.type : out.type === undefined ? [] : [out.type];
  const types = listed.filter((t): t is string => typeof t === 'string' && TYPES.has(t));
  // A Swagger 2.0 `file` is the bytes of an upload; as an argument it can only be text.
  if (listed.includes('file')) types.push('string');
  const nullable = original.nullable === true || original['x-nullable'] === true;
  if (nullable && types.length > 0 && !types.includes('null')) types.push('null');
  if (nullable && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (types.length === 0) delete out.type;
  else out.type = types.length === 1 ? types[0] : types;
}

/** Draft 4 style `exclusiveMinimum: true` next to `minimum: 5` is `exclusiveMinimum: 5` today. */
function fixExclusive(out: Obj, exclusive: string, bound: string): void {
  if (out[exclusive] === true && typeof out[bound] === 'number') {
    out[exclusive] = out[bound];
    delete out[bound];
  } else if (typeof out[exclusive] === 'boolean') {
    delete out[exclusive];
  }
}

/** Keys an allOf member may have and still merge into its neighbours without changing meaning. */
const MERGEABLE = new Set(['type', 'properties', 'required', 'description', 'title']);

/** `allOf: [{properties: a}, {properties: b}]` as one object with both, when nothing else is said. */
function mergeAllOf(schema: Obj): Obj {
  const parts = schema.allOf;
  if (!Array.isArray(parts) || parts.length === 0) return schema;
  const simple = parts.every(
    (p) =>
      isObj(p) &&
      (p.type === undefined || p.type === 'object') &&
      Object.keys(p).every((k) => MERGEABLE.has(k)),
  );
  if (!simple || (schema.type !== undefined && schema.type !== 'object')) return schema;
  const { allOf: _, ...own } = schema;
  const properties: Obj = {};
  const required = new Set<string>();
  for (const part of [...(parts as Obj[]), own]) {
    for (const [name, s] of Object.entries(isObj(part.properties) ? part.properties : {})) {
      if (name in properties && JSON.stringify(properties[name]) !== JSON.stringify(s)) return schema;
      properties[name] = s;
    }
    for (const name of Array.isArray(part.required) ? part.required : []) required.add(String(name));
  }
  const described = (parts as Obj[]).find((p) => typeof p.description === 'string');
  return {
    ...own,
    type: 'object',
    ...(own.description === undefined && described && { description: described.description }),
    properties,
    ...(required.size > 0 && { required: [...required] }),
  };
}

/**
 * The schema describes a JSON object (what structuredContent can be as it is). `lookup` follows a
 * `$ref` to a shared schema, when the schema is one.
 */
export function isObjectSchema(schema: Obj, lookup?: (ref: string) => Obj | undefined, depth = 0): boolean {
  if (typeof schema.$ref === 'string' && lookup && depth < 16) {
    const target = lookup(schema.$ref);
    if (target && isObjectSchema(target, lookup, depth + 1)) return true;
  }
  if (schema.type === 'object') return true;
  // All of the parts hold: one that is an object makes the whole an object.
  if (
    schema.type === undefined &&
    Array.isArray(schema.allOf) &&
    schema.allOf.some((p) => isObj(p) && isObjectSchema(p, lookup, depth + 1))
  )
    return true;
  // A nullable object: an answer of null would arrive as {result: null}, still an object.
  if (Array.isArray(schema.type))
    return schema.type.includes('object') && !schema.type.some((t) => t !== 'object' && t !== 'null');
  if (schema.type !== undefined) return false;
  if (isObj(schema.properties) || schema.additionalProperties !== undefined) return true;
  const variants = (schema.oneOf ?? schema.anyOf) as unknown;
  return (
    Array.isArray(variants) &&
    variants.length > 0 &&
    variants.every((v) => isObj(v) && isObjectSchema(v, lookup, depth + 1))
  );
}
