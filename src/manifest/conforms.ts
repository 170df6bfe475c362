/**
 * A quick answer to "does this value satisfy this schema?" for the manifest's own schemas (the
 * envelope, each kind's), read from the schema objects themselves. A start checks a valid manifest
 * with this alone; the precompiled validators (ajv's code, about half of all the code a 10-tool
 * start ran, and 2.5 ms of its CPU to load) run only where the answer is not a sure yes, and theirs
 * are the errors reported. So nothing here explains anything, and one rule holds throughout: never
 * yes where ajv (draft-07, as manifest/precompiled.ts sets it up) says no. For a keyword, a schema
 * shape or a value it does not read exactly as ajv does, the answer is `undefined`: ask ajv.
 */
import { isObject } from '../util/is-object.js';

/** `true`: the value surely conforms; `false`: surely not; `undefined`: only ajv can tell. */
export type Verdict = boolean | undefined;

type Schema = Record<string, unknown>;
type Check = (value: unknown, schema: Schema) => Verdict;

/** Keywords that say nothing about validity. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', '$comment']);

export function conforms(value: unknown, schema: unknown): Verdict {
  if (schema === true) return true;
  if (!isObject(schema)) return undefined;
  let verdict: Verdict = true;
  for (const keyword in schema) {
    if (ANNOTATIONS.has(keyword)) continue;
    const check = KEYWORDS[keyword];
    const result = check === undefined ? undefined : check(value, schema);
    if (result === false) return false;
    if (result === undefined) verdict = undefined;
  }
  return verdict;
}

/** Every keyword's own verdict, given the whole schema; each applies to the values ajv applies it to. */
const KEYWORDS: Readonly<Record<string, Check>> = {
  type: (value, { type }) =>
    typeof type === 'string'
      ? isType(value, type)
      : Array.isArray(type)
        ? anyOf(type.map((t) => (typeof t === 'string' ? isType(value, t) : undefined)))
        : undefined,
  enum: (value, schema) => (Array.isArray(schema.enum) ? among(value, schema.enum) : undefined),
  const: (value, schema) => among(value, [schema.const]),
  anyOf: (value, schema) =>
    Array.isArray(schema.anyOf) ? anyOf(schema.anyOf.map((s) => conforms(value, s))) : undefined,
  oneOf: (value, schema) => {
    if (!Array.isArray(schema.oneOf)) return undefined;
    const verdicts = schema.oneOf.map((s) => conforms(value, s));
    return verdicts.includes(undefined) ? undefined : verdicts.filter(Boolean).length === 1;
  },

  // Objects. ajv reads a property as `value[name]`, and walks the keys with for…in: so does this.
  properties: on(isObject, (value, { properties }) =>
    isObject(properties)
      ? allOf(Object.keys(properties), (name) =>
          value[name] === undefined ? true : conforms(value[name], properties[name]),
        )
      : undefined,
  ),
  required: on(isObject, (value, { required }) =>
    Array.isArray(required) ? required.every((name) => value[name] !== undefined) : undefined,
  ),
  additionalProperties: on(isObject, (value, schema) => {
    const { properties = {}, additionalProperties: rest } = schema;
    if (!isObject(properties) || 'patternProperties' in schema) return undefined;
    const extra: string[] = [];
    for (const name in value) if (!Object.hasOwn(properties, name)) extra.push(name);
    return rest === false ? extra.length === 0 : allOf(extra, (name) => conforms(value[name], rest));
  }),
  propertyNames: on(isObject, (value, { propertyNames }) => {
    const names: string[] = [];
    for (const name in value) names.push(name);
    return allOf(names, (name) => conforms(name, propertyNames));
  }),
  minProperties: on(isObject, (value, { minProperties }) =>
    typeof minProperties === 'number' ? Object.keys(value).length >= minProperties : undefined,
  ),
  maxProperties: on(isObject, (value, { maxProperties }) =>
    typeof maxProperties === 'number' ? Object.keys(value).length <= maxProperties : undefined,
  ),

  // Arrays.
  items: on(Array.isArray, (list, { items }) =>
    isObject(items) ? allOf(list, (item) => conforms(item, items)) : undefined,
  ),
  minItems: on(Array.isArray, (list, { minItems }) =>
    typeof minItems === 'number' ? list.length >= minItems : undefined,
  ),
  maxItems: on(Array.isArray, (list, { maxItems }) =>
    typeof maxItems === 'number' ? list.length <= maxItems : undefined,
  ),
  // Deep equality only for plain values (strings, numbers, …): a list of objects is ajv's to compare.
  uniqueItems: on(Array.isArray, (list, { uniqueItems }) =>
    uniqueItems === false
      ? true
      : uniqueItems === true && !list.some(isComposite)
        ? new Set(list).size === list.length
        : undefined,
  ),

  // Strings: lengths in code points, patterns as ajv compiles them (the `u` flag).
  minLength: on(isString, (text, { minLength }) =>
    typeof minLength === 'number' ? codePoints(text) >= minLength : undefined,
  ),
  maxLength: on(isString, (text, { maxLength }) =>
    typeof maxLength === 'number' ? codePoints(text) <= maxLength : undefined,
  ),
  pattern: on(isString, (text, { pattern }) =>
    typeof pattern === 'string' ? regExp(pattern)?.test(text) : undefined,
  ),

  // Numbers: ajv takes Infinity and NaN too, where this gives no sure answer.
  minimum: on(isNumber, (n, { minimum }) => (finite(n, minimum) ? n >= (minimum as number) : undefined)),
  maximum: on(isNumber, (n, { maximum }) => (finite(n, maximum) ? n <= (maximum as number) : undefined)),
};

/** A keyword about one type of value: any other value passes it, as in ajv. */
function on<T>(applies: (value: unknown) => value is T, check: (value: T, schema: Schema) => Verdict): Check {
  return (value, schema) => (applies(value) ? check(value, schema) : true);
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number';
}

function isComposite(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

function finite(value: number, bound: unknown): boolean {
  return Number.isFinite(value) && typeof bound === 'number' && Number.isFinite(bound);
}

function isType(value: unknown, type: string): Verdict {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'number':
      return typeof value !== 'number' ? false : Number.isFinite(value) ? true : undefined;
    case 'integer':
      return typeof value !== 'number' ? false : Number.isFinite(value) ? Number.isInteger(value) : undefined;
    default:
      return undefined;
  }
}

/** `enum` and `const` by `===`: ajv compares objects and arrays deeply, which is its to do. */
function among(value: unknown, allowed: readonly unknown[]): Verdict {
  if (isComposite(value) || allowed.some(isComposite)) return undefined;
  return allowed.some((a) => a === value);
}

function anyOf(verdicts: readonly Verdict[]): Verdict {
  return verdicts.includes(true) ? true : verdicts.includes(undefined) ? undefined : false;
}

function allOf<T>(items: readonly T[], check: (item: T) => Verdict): Verdict {
  let verdict: Verdict = true;
  for (const item of items) {
    const result = check(item);
    if (result === false) return false;
    if (result === undefined) verdict = undefined;
  }
  return verdict;
}

function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // A surrogate pair is one code point (ajv's ucs2length counts the same way).
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

const patterns = new Map<string, RegExp | undefined>();

/** Undefined for a pattern that does not compile: ajv reports that schema's fault. */
function regExp(pattern: string): RegExp | undefined {
  if (!patterns.has(pattern)) {
    let compiled: RegExp | undefined;
    try {
      compiled = new RegExp(pattern, 'u');
    } catch {
      compiled = undefined;
    }
    patterns.set(pattern, compiled);
  }
  return patterns.get(pattern);
}
