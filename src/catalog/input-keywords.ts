/**
 * A typo in an argument's schema (`descripton`, or a comma in an unquoted YAML description that
 * splits it into a second key) would otherwise be ignored by JSON Schema, silently. Every key of an
 * `input:` property must be a JSON Schema keyword, the `required: false` shorthand, or an `x-`
 * extension.
 */
import { type Problem, problems } from '../errors.js';
import type { EntryPath } from '../kinds/contract/kinds.js';
import { suggest } from '../util/suggest.js';

const KEYWORDS = new Set([
  // core and applicators
  '$schema',
  '$id',
  '$ref',
  '$defs',
  '$comment',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  'definitions',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'prefixItems',
  'items',
  'contains',
  'properties',
  'patternProperties',
  'additionalProperties',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  // validation
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'format',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  // annotations
  'title',
  'description',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'examples',
]);

export function checkInputKeywords(
  input: Readonly<Record<string, unknown>> | undefined,
  at: EntryPath,
  report: (path: EntryPath, problem: Problem) => void,
): void {
  for (const [property, schema] of Object.entries(input ?? {})) {
    if (typeof schema !== 'object' || schema === null) continue;
    for (const key of Object.keys(schema)) {
      if (KEYWORDS.has(key) || key.startsWith('x-')) continue;
      const hint = suggest(key, KEYWORDS);
      report(
        [...at, property, key],
        problems.SCHEMA_INVALID(
          `"${key}" is not a JSON Schema keyword${hint ? ` (did you mean "${hint}"?)` : ''}; if it is part of a description, quote the description`,
        ),
      );
    }
  }
}
