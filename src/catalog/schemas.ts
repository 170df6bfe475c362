/**
 * JSON Schema validation of tool arguments and structured results, compiled once per tool.
 * MCP's default dialect is 2020-12, so user schemas are compiled with ajv's 2020 build.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { JsonSchema } from './types.js';

export type Validator = (value: unknown) => string | undefined;

export function createSchemaCompiler(): (schema: JsonSchema) => Validator {
  // useDefaults fills declared defaults into the arguments; strict off because user schemas may
  // carry annotations ajv does not know (x-…, examples, and the like).
  const ajv = new Ajv2020({ allErrors: true, useDefaults: true, strict: false, validateFormats: false });
  return (schema) => {
    const validate: ValidateFunction = ajv.compile(schema);
    return (value) => (validate(value) ? undefined : describeErrors(validate.errors ?? []));
  };
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
