/**
 * Tool kind `sql-list-tables`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that compiles it, so a manifest that does not use it
 * never loads that code (../builtin.ts). The kind itself: ./list-tables-tool.ts.
 */

import type { KindInfo } from '../contract/kinds.js';
import { readyMadeSchema } from './ready-made-schema.js';

export const sqlListTablesToolInfo: KindInfo = {
  kind: 'sql-list-tables',
  description: 'Ready-made: lists the tables and views of a SQL source, with column and row counts.',
  configSchema: readyMadeSchema(),
};
