/**
 * Tool `sql-describe-table` (ready-made): one table or view of a SQL source, read live: columns
 * with types, nullability and defaults, the primary key, foreign keys, indexes and the row count.
 * The name is looked up in the live table list (never put into SQL as text); an unknown name is
 * answered with the closest names.
 *
 * @example
 * ```yaml
 * tools:
 *   describe: { kind: sql-describe-table, source: shop }
 * ```
 */
import { suggest } from '../../util/suggest.js';
import type { ToolCommon, ToolKind } from '../contract/kinds.js';
import { errorResult } from '../contract/results.js';
import { sqlDescribeTableToolInfo } from './describe-table-tool.info.js';
import { refuseInput } from './list-tables-tool.js';
import { tableMarkdown } from './schema-text.js';

export interface SqlDescribeTableConfig extends ToolCommon {
  readonly source: string;
}

/** How many table names an unknown-table answer lists at most. */
const NAMES_SHOWN = 50;

export const sqlDescribeTableTool: ToolKind<SqlDescribeTableConfig> = {
  ...sqlDescribeTableToolInfo,

  compile(config, ctx) {
    const capability = ctx.source(config.source, 'sql', ['source']);
    if (!refuseInput(config, ctx) || !capability) return undefined;
    return {
      annotations: { readOnlyHint: true },
      description: `Describes one table or view of the ${capability.dialect} database "${config.source}": its columns (type, nullable, default), primary key, foreign keys, indexes and row count.`,
      input: {
        table: {
          type: 'string',
          minLength: 1,
          description: 'The table or view name exactly as the table list shows it.',
        },
      },
      async run(args, call) {
        const name = String(args.table);
        try {
          const detail = await capability.schema.describe(name, call.signal);
          if (detail)
            return { content: [{ type: 'text', text: tableMarkdown(detail) }], structuredContent: detail };
          const names = (await capability.schema.tables(call.signal)).map((t) => t.name);
          const close = suggest(name, names);
          const shown = names.slice(0, NAMES_SHOWN).join(', ') + (names.length > NAMES_SHOWN ? ', …' : '');
          return errorResult(
            `There is no table or view ${JSON.stringify(name)}${close ? ` (did you mean ${JSON.stringify(close)}?)` : ''}. ${names.length ? `Tables: ${shown}.` : 'The database has no tables.'}`,
          );
        } catch (err) {
          return errorResult(`Cannot describe ${JSON.stringify(name)}: ${(err as Error).message}`);
        }
      },
    };
  },
};
