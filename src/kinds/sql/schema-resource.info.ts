/**
 * Resource kind `sql-schema`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that opens it, so a manifest that does not use it
 * never loads that code (../builtin.ts). The kind itself: ./schema-resource.ts.
 */

import type { KindInfo } from '../contract/kinds.js';

export const sqlSchemaResourceInfo: KindInfo = {
  kind: 'sql-schema',
  description: 'The live schema of a SQL source: an overview and one resource per table, markdown or JSON.',
  configSchema: {
    type: 'object',
    properties: {
      source: { type: 'string', minLength: 1, description: 'The SQL source whose schema to show.' },
      uri: {
        type: 'string',
        minLength: 1,
        description:
          'URI of the overview and prefix of the tables (`<uri>/tables/<name>`); default `<dialect>://<source>/schema`.',
      },
      refresh: {
        enum: ['list', 'reload'],
        default: 'list',
        description:
          'When the set of table resources is read: at each resources/list (list), or when the manifest loads (reload). Contents are always live.',
      },
      title: { type: 'string', description: 'Human-friendly name of the overview.' },
      description: { type: 'string', description: 'What the database holds; the model reads this.' },
    },
    required: ['source'],
    additionalProperties: false,
  },
};
