/**
 * Tool kind `sql-describe-table`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that compiles it, so a manifest that does not use it
 * never loads that code (../builtin.ts). The kind itself: ./describe-table-tool.ts.
 */

import type { KindInfo } from '../contract/kinds.js';
import { readyMadeSchema } from './ready-made-schema.js';

export const sqlDescribeTableToolInfo: KindInfo = {
  kind: 'sql-describe-table',
  description: 'Ready-made: describes one table or view of a SQL source (argument `table`).',
  configSchema: readyMadeSchema(),
};
