/**
 * Tool `sql-list-tables` (ready-made): the tables and views of a SQL source, read live, with their
 * column counts and row counts (an estimate on Postgres and MySQL). No arguments.
 *
 * @example
 * ```yaml
 * tools:
 *   tables: { kind: sql-list-tables, source: shop }
 * ```
 */

import { problems } from '../../errors.js';
import type { EntryContext, ToolCommon, ToolKind } from '../contract/kinds.js';
import { errorResult } from '../contract/results.js';
import type { JsonSchema } from '../contract/types.js';
import { sqlListTablesToolInfo } from './list-tables-tool.info.js';
import { tablesMarkdown } from './schema-text.js';

export interface SqlListTablesConfig extends ToolCommon {
  readonly source: string;
}

/** Ready-made tools have a fixed input; an `input:` in the manifest is a mistake worth saying. */
export function refuseInput(config: ToolCommon, ctx: EntryContext): boolean {
  if (config.input === undefined) return true;
  ctx.error(
    ['input'],
    problems.MANIFEST_INVALID_VALUE(
      `a ${config.kind} tool has a fixed input; remove input`,
      'for your own arguments, write a tool of kind sql',
    ),
  );
  return false;
}

const TABLE_ITEM: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    type: { enum: ['table', 'view'] },
    columnCount: { type: 'integer' },
    rows: { type: 'integer', description: 'Row count; an estimate when rowsEstimated.' },
    rowsEstimated: { type: 'boolean' },
    comment: { type: 'string' },
  },
  required: ['name', 'type', 'columnCount', 'rowsEstimated'],
};

export const sqlListTablesTool: ToolKind<SqlListTablesConfig> = {
  ...sqlListTablesToolInfo,

  compile(config, ctx) {
    const capability = ctx.source(config.source, 'sql', ['source']);
    if (!refuseInput(config, ctx) || !capability) return undefined;
    return {
      annotations: { readOnlyHint: true },
      description: `Lists the tables and views of the ${capability.dialect} database "${config.source}" with their column counts and row counts (~ marks an estimate). Use it to find table names before describing a table or writing a query.`,
      input: {},
      outputSchema: {
        type: 'object',
        properties: { tables: { type: 'array', items: TABLE_ITEM } },
        required: ['tables'],
      },
      async run(_args, call) {
        try {
          const tables = await capability.schema.tables(call.signal);
          return {
            content: [{ type: 'text', text: tablesMarkdown(tables) }],
            structuredContent: { tables },
          };
        } catch (err) {
          return errorResult(`Cannot list the tables: ${(err as Error).message}`);
        }
      },
    };
  },
};
