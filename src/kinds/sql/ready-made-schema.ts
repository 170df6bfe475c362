import type { JsonSchema } from '../contract/types.js';

/** The config schema of a ready-made SQL tool: a source, and the kind's own limits. */
export function readyMadeSchema(extra: Record<string, JsonSchema> = {}): JsonSchema {
  return {
    type: 'object',
    properties: {
      source: {
        type: 'string',
        minLength: 1,
        description: 'The SQL source (kind sqlite, postgres or mysql).',
      },
      ...extra,
    },
    required: ['source'],
    additionalProperties: false,
  };
}
