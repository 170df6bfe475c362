/**
 * JSON Schema validation of tool arguments, structured results and form answers: the catalog and
 * the steps use it, so it lives below both.
 * MCP's default dialect is 2020-12, so user schemas are compiled with ajv's 2020 build.
 *
 * A schema is checked against the meta-schema when the manifest loads (so a malformed one is a
 * manifest error), but compiled into code only on its first use: compiling every tool's schema up
 * front was the largest cost of start-up and of each reload, and of memory with many tools.
 */
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { JsonSchema } from '../util/json-schema.js';
import { newAjv2020, precompiledMeta, USER_SCHEMA_OPTIONS } from './precompiled.js';

export type Validator = (value: unknown) => string | undefined;

// useDefaults fills declared defaults into the arguments; strict off because user schemas may
// carry annotations ajv does not know (x-…, examples, and the like).
const OPTIONS = USER_SCHEMA_OPTIONS;

/** Checks schemas against the 2020-12 meta-schema; shared, since it compiles nothing else. */
let metaChecker: Ajv2020 | undefined;

/**
 * One compiler per catalog: ajv keeps every schema it compiled, so a reload's new catalog gets a
 * fresh instance and the old one goes with the old catalog.
 */
export function createSchemaCompiler(): (schema: JsonSchema, checked?: 'meta-checked') => Validator {
  let ajv: Ajv2020 | undefined;
  // The same schema object (equal schemas interned by compile, see internSchemas) is checked and
  // compiled once, and its tools share one validator.
  const made = new WeakMap<JsonSchema, Validator>();
  const metaChecked = new WeakSet<JsonSchema>();
  return (schema, checked) => {
    // `meta-checked`: built from parts the manifest validation already held to the meta-schema (an
    // `input:`'s properties, an `outputSchema`) and from what kinds write: not checked twice.
    if (checked === undefined && !metaChecked.has(schema)) {
      checkAgainstMeta(schema);
      metaChecked.add(schema);
    }
    let validator = made.get(schema);
    if (validator === undefined) {
      validator = makeValidator(schema);
      made.set(schema, validator);
    }
    return validator;
  };

  function makeValidator(schema: JsonSchema): Validator {
    let validate: ValidateFunction | undefined;
    return (value) => {
      try {
        // Checked against the meta-schema at load already: compiling need not compile the
        // meta-schema again (most of a first call's cost).
        ajv ??= newAjv2020({ ...OPTIONS, validateSchema: false });
        validate ??= ajv.compile(schema);
      } catch (err) {
        // Only what the meta-schema cannot see is left, such as a $ref to nowhere.
        return `the schema cannot be used: ${(err as Error).message}`;
      }
      return validate(value) ? undefined : describeErrors(validate.errors ?? []);
    };
  }
}

/**
 * One object for schemas with the same JSON text, for the life of one compile: generated and
 * repetitive manifests give many tools the same arguments (10,000 tools with one `q: string` were
 * 10,000 copies of the schema, each with its validator). Served and validated exactly as before.
 *
 * Equal structure is found without writing any schema out (hash-consing): each object or array
 * gets a number for its structure, the first node met with it stands for it, and a node is compared
 * with that one entry by entry, nested nodes by their numbers and strings (keys and values) by
 * theirs; a hash of those numbers finds the node to compare with. An object met again (the shared
 * definitions an import reuses under many tools' `$defs`) is looked up, not walked. Work and memory
 * go with the distinct nodes, not with the text each tool's schema would expand to (an imported
 * description's output schemas reach hundreds of definitions each), and nothing is written out to
 * compare: keys of text per node were most of an imported API's compile.
 */
export function internSchemas(): (schema: JsonSchema) => JsonSchema {
  const numbers = new WeakMap<object, number>();
  /** The first node of each structure, by its number. */
  const firsts: object[] = [];
  /** A hash of a structure → the number of the first node with it (a list if several share it). */
  const byHash = new Map<number, number | number[]>();
  const strings = new Map<string, number>();
  const stringNumber = (text: string): number => {
    let n = strings.get(text);
    if (n === undefined) {
      n = strings.size;
      strings.set(text, n);
    }
    return n;
  };
  // A value as one number: a string by its number, a node by its structure's, a number by its
  // text (NaN, the infinities and -0 too, which JSON would write as null or 0, and which a
  // validator tells apart), anything else by its JSON text's; each kind apart.
  const code = (value: unknown): number =>
    typeof value === 'string'
      ? 4 * stringNumber(value)
      : value !== null && typeof value === 'object'
        ? 4 * numberOf(value) + 1
        : typeof value === 'number'
          ? 4 * stringNumber(Object.is(value, -0) ? '-0' : String(value)) + 3
          : 4 * stringNumber(String(JSON.stringify(value))) + 2;
  const numberOf = (node: object): number => {
    const known = numbers.get(node);
    if (known !== undefined) return known;
    const n = findOrAdd(node, structureHash(node));
    numbers.set(node, n);
    return n;
  };
  const structureHash = (node: object): number => {
    let hash = Array.isArray(node) ? 0x2545f491 : 0x9e3779b9;
    if (Array.isArray(node)) for (const item of node) hash = mix(hash, code(item));
    else
      for (const key of Object.keys(node))
        hash = mix(mix(hash, stringNumber(key)), code((node as Record<string, unknown>)[key]));
    return hash;
  };
  const findOrAdd = (node: object, hash: number): number => {
    const found = byHash.get(hash);
    if (typeof found === 'number' && sameStructure(node, firsts[found]!)) return found;
    if (typeof found === 'object') for (const n of found) if (sameStructure(node, firsts[n]!)) return n;
    const n = firsts.length;
    firsts.push(node);
    byHash.set(hash, found === undefined ? n : [...(typeof found === 'number' ? [found] : found), n]);
    return n;
  };
  /** Entry by entry: the same keys in the same order, and values of the same codes. */
  const sameStructure = (a: object, b: object): boolean => {
    if (Array.isArray(a) || Array.isArray(b)) {
      if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
      return a.every((item, i) => code(item) === code(b[i]));
    }
    const keys = Object.keys(a);
    const other = Object.keys(b);
    if (keys.length !== other.length) return false;
    const x = a as Record<string, unknown>;
    const y = b as Record<string, unknown>;
    return keys.every((key, i) => key === other[i] && code(x[key]) === code(y[key]));
  };
  return (schema) => firsts[numberOf(schema)] as JsonSchema;
}

/** Mixes a number (its low 32 bits) into a 32-bit hash: only to find what to compare with. */
const mix = (hash: number, value: number): number => Math.imul(hash ^ value, 0x5bd1e995);

/** Throws the meta-schema's errors about `schema`, in ajv's words. */
function checkAgainstMeta(schema: JsonSchema): void {
  // The build's precompiled meta-schema check when the schema is 2020-12 (precompiled.ts).
  const built = precompiledMeta('meta-2020-12-user', schema);
  let valid: boolean;
  if (built !== undefined) valid = built(schema) as boolean;
  else {
    metaChecker ??= newAjv2020(OPTIONS);
    valid = metaChecker.validateSchema(schema) as boolean;
  }
  if (!valid) {
    metaChecker ??= newAjv2020(OPTIONS);
    const errors = built !== undefined ? built.errors : metaChecker.errors;
    throw new Error(metaChecker.errorsText(errors, { dataVar: 'schema' }));
  }
}

/** "limit must be <= 100; customer is required" — one sentence a model can act on. */
export function describeErrors(errors: readonly ErrorObject[]): string {
  const seen = new Set<string>();
  for (const e of errors) {
    const at = e.instancePath ? e.instancePath.slice(1).replaceAll('/', '.') : '';
    let text: string;
    if (e.keyword === 'required') {
      const field = String(e.params.missingProperty);
      text = `${at ? `${at}.` : ''}${field} is required`;
    } else if (e.keyword === 'additionalProperties') {
      text = `${at ? `${at} has ` : ''}unknown property "${String(e.params.additionalProperty)}"`;
    } else if (e.keyword === 'enum') {
      const allowed = (e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ');
      text = `${at || 'value'} must be one of ${allowed}`;
    } else {
      text = `${at || 'value'} ${e.message ?? 'is invalid'}`;
    }
    seen.add(text);
  }
  return [...seen].join('; ');
}
