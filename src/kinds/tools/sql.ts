/**
 * Tool `sql`: one parameterised statement against a source with the `sql` capability. Arguments
 * are bound by the driver as `:name` parameters, never pasted into the SQL text.
 *
 * @example
 * ```yaml
 * tools:
 *   find_orders:
 *     kind: sql
 *     source: shop
 *     description: Orders of one customer, newest first.
 *     input:
 *       email: { type: string }
 *       limit: { type: integer, default: 20, maximum: 100 }
 *     sql: SELECT id, total FROM orders WHERE email = :email ORDER BY placed_at DESC LIMIT :limit
 * ```
 */
import type { ToolResult } from '../../catalog/types.js';
import { problems } from '../../errors.js';
import { suggest } from '../../util/suggest.js';
import type { SqlResult, ToolCommon, ToolKind } from '../contracts.js';
import { parseSqlParams } from '../shared/sql-params.js';
import { markdownTable } from '../shared/text-table.js';

export interface SqlToolConfig extends ToolCommon {
  readonly source: string;
  readonly sql: string;
  readonly maxRows?: number;
  readonly timeoutMs?: number;
}

export const sqlTool: ToolKind<SqlToolConfig> = {
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
    },
    required: ['source', 'sql'],
    additionalProperties: false,
  },

  compile(config, ctx) {
    let ok = true;
    const capability = ctx.source(config.source, 'sql', ['source']);
    const statement = parseSqlParams(config.sql);
    if (statement.positional.length > 0) {
      ok = false;
      ctx.error(
        ['sql'],
        problems.MANIFEST_INVALID_VALUE(
          'the SQL has a positional placeholder "?"; use named parameters like :name',
          'declare each value under input and write :name where it goes in the SQL',
        ),
      );
    }
    const declared = Object.keys(config.input ?? {});
    for (const param of new Set(statement.params)) {
      if (declared.includes(param)) continue;
      ok = false;
      ctx.error(['sql'], problems.SQL_PARAM_UNDECLARED(param, declared, suggest(param, declared)));
    }
    const invalid = ok ? capability?.check?.(statement) : undefined;
    if (invalid) {
      ok = false;
      ctx.error(['sql'], problems.SQL_INVALID(invalid));
    }
    if (!capability || !ok) return undefined;

    const defaults = capability.defaults;
    const maxRows = config.maxRows ?? defaults.maxRows;
    const timeoutMs = config.timeoutMs ?? defaults.timeoutMs;
    return {
      ...(capability.readOnly && { annotations: { readOnlyHint: true } }),
      async run(args, call) {
        const values = statement.params.map((name) => args[name] ?? null);
        let result: SqlResult;
        try {
          result = await capability.query(statement, values, { maxRows, timeoutMs, signal: call.signal });
        } catch (err) {
          return { isError: true, content: [{ type: 'text', text: `SQL error: ${(err as Error).message}` }] };
        }
        return toolResult(result, maxRows);
      },
    };
  },
};

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

function toolResult(result: SqlResult, maxRows: number): ToolResult {
  if (result.changes !== undefined && result.columns.length === 0) {
    return {
      content: [{ type: 'text', text: `${plural(result.changes, 'row')} changed.` }],
      structuredContent: { changes: result.changes },
    };
  }
  const { rows, truncated } = result;
  const structuredContent = { rows, rowCount: rows.length, truncated };
  if (rows.length === 0) return { content: [{ type: 'text', text: 'No rows.' }], structuredContent };
  const footer = truncated
    ? `Showing the first ${plural(rows.length, 'row')}; more exist (truncated at ${plural(maxRows, 'row')}). Narrow the query or ask for fewer rows.`
    : `${plural(rows.length, 'row')}.`;
  return {
    content: [{ type: 'text', text: `${markdownTable(result.columns, rows)}\n\n${footer}` }],
    structuredContent,
  };
}
