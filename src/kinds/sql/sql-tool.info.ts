/**
 * Tool kind `sql`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that compiles it, so a manifest that does not use it
 * never loads that code (../builtin.ts). The kind itself: ./sql-tool.ts.
 */

import type { KindInfo } from '../contract/kinds.js';

export const sqlToolInfo: KindInfo = {
  kind: 'sql',
  description: 'Runs one SQL statement with the arguments bound as :name parameters.',
  configSchema: {
    type: 'object',
    properties: {
      source: {
        type: 'string',
        minLength: 1,
        description: 'The source to query (one with SQL, e.g. kind: sqlite).',
      },
      sql: {
        type: 'string',
        minLength: 1,
        description:
          'One SQL statement. Use :name for each argument; values are bound, never pasted into the text.',
      },
      maxRows: {
        type: 'integer',
        minimum: 1,
        description: "At most this many rows are returned (default: the source's maxRows, else 500).",
      },
      timeoutMs: {
        type: 'integer',
        minimum: 1,
        description: "Time limit of the query (default: the source's timeoutMs, else 5000).",
      },
      readOnly: {
        type: 'boolean',
        description:
          "Whether the tool only reads (default: the source's readOnly). true keeps a tool on a writable source to one read statement in a read-only transaction; false needs a source with readOnly: false.",
      },
      paginate: {
        type: 'boolean',
        default: false,
        description:
          'Return maxRows rows per page and add a `cursor` argument for the next page. Order the rows (ORDER BY) so pages are stable.',
      },
      identifiers: {
        type: 'array',
        items: { type: 'string', minLength: 1 },
        uniqueItems: true,
        description:
          'Arguments that name a table or column (`FROM :table`): each needs an `enum` of the allowed names under input, and its value is quoted as an identifier instead of bound as a value.',
      },
    },
    required: ['source', 'sql'],
    additionalProperties: false,
  },
};
