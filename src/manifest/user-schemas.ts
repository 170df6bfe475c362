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
import type { JsonSchema } from '../kinds/contract/types.js';
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
 * Equal structure is found without writing any schema out: each object or array gets a number for
 * its structure, its key the entries with nested objects by their numbers and strings (keys and
 * values) by theirs (hash-consing), and an object met again (the shared definitions an import reuses
 * under many tools' `$defs`) is looked up, not walked. Work and memory go with the distinct nodes,
 * not with the text each tool's schema would expand to (an imported description's output schemas
 * reach hundreds of definitions each), and a key holds no copy of a description.
 */
export function internSchemas(): (schema: JsonSchema) => JsonSchema {
  const numbers = new WeakMap<object, number>();
  const strings = new Map<string, number>();
  const byKey = new Map<string, number>();
  const firsts = new Map<number, JsonSchema>();
  const stringNumber = (text: string): number => {
    let n = strings.get(text);
    if (n === undefined) {
      n = strings.size;
      strings.set(text, n);
    }
    return n;
  };
  // `#` an object's number, `$` a string's, anything else its JSON text (digits, true, false, null).
  const part = (value: unknown): string =>
    typeof value === 'string'
      ? `$${stringNumber(value)}`
      : value !== null && typeof value === 'object'
        ? `#${numberOf(value)}`
        : String(JSON.stringify(value));
  const numberOf = (node: object): number => {
    const known = numbers.get(node);
    if (known !== undefined) return known;
    let key: string;
    if (Array.isArray(node)) key = `[${node.map(part).join(',')}]`;
    else {
      key = '{';
      for (const k of Object.keys(node))
        key += `${stringNumber(k)}:${part((node as Record<string, unknown>)[k])},`;
    }
    let n = byKey.get(key);
    if (n === undefined) {
      n = byKey.size;
      byKey.set(key, n);
    }
    numbers.set(node, n);
    return n;
  };
  return (schema) => {
    const n = numberOf(schema);
    const first = firsts.get(n);
    if (first !== undefined) return first;
    firsts.set(n, schema);
    return schema;
  };
}

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
