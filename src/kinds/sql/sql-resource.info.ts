/**
 * Resource kind `sql`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that opens it, so a manifest that does not use it
 * never loads that code (../builtin.ts). The kind itself: ./sql-resource.ts.
 */

import type { KindInfo } from '../contract/kinds.js';
import { variablesSchema } from '../shared/variables.js';

export const sqlResourceInfo: KindInfo = {
  kind: 'sql',
  description: 'The rows of a query as JSON; a resource template when `uri` has {variables}.',
  configSchema: {
    type: 'object',
    properties: {
      source: {
        type: 'string',
        minLength: 1,
        description: 'The source to query (one with SQL, e.g. kind: sqlite).',
      },
      uri: {
        type: 'string',
        minLength: 1,
        description:
          'The resource URI; with {name} variables it is a template and each variable binds :name.',
      },
      sql: {
        type: 'string',
        minLength: 1,
        description: 'One read statement; :name binds the URI variable name.',
      },
      name: { type: 'string', minLength: 1, description: 'Resource name (default: the entry name).' },
      title: { type: 'string', description: 'Human-friendly name shown by clients.' },
      description: { type: 'string', description: 'What the rows are; the model reads this.' },
      maxRows: {
        type: 'integer',
        minimum: 1,
        description: "At most this many rows (default: the source's maxRows).",
      },
      variables: variablesSchema,
    },
    required: ['source', 'uri', 'sql'],
    additionalProperties: false,
  },
};
