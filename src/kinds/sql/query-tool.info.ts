/**
 * Tool kind `sql-query`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that compiles it, so a manifest that does not use it
 * never loads that code (../builtin.ts). The kind itself: ./query-tool.ts.
 */

import type { KindInfo } from '../contract/kinds.js';
import { readyMadeSchema } from './ready-made-schema.js';

export const sqlQueryToolInfo: KindInfo = {
  kind: 'sql-query',
  description: 'Ready-made: runs one read-only SQL query that the model writes (argument `sql`).',
  configSchema: readyMadeSchema({
    maxRows: {
      type: 'integer',
      minimum: 1,
      description: "At most this many rows are returned (default: the source's maxRows).",
    },
    timeoutMs: {
      type: 'integer',
      minimum: 1,
      description: "Time limit of a query (default: the source's timeoutMs).",
    },
  }),
};
