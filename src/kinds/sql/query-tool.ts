/**
 * Tool `sql-query` (ready-made): the model writes one SQL query and it runs read-only. Before the
 * database sees it, the statement is checked to be a single read (shared/sql-classify.ts); it then
 * runs in a read-only transaction with the row cap and the time limit, whatever the source allows.
 * It is not served on a source whose role can escape read-only (privilege.ts) unless the source
 * says `allowPrivilegedRole: true`, nor on a PostgreSQL source with `role:`, which SQL the model
 * writes can leave for the login's rights, unless the source says `allowSqlQueryWithRole: true`.
 *
 * @example
 * ```yaml
 * tools:
 *   query: { kind: sql-query, source: shop }
 * ```
 */
import { problems } from '../../errors.js';
import type { ToolCommon, ToolKind } from '../contract/kinds.js';
import { errorResult } from '../contract/results.js';
import { classifySql } from './classify.js';
import { refuseInput } from './list-tables-tool.js';
import { LEAST_PRIVILEGE_SQL, privilegedRoleRefusal, privilegeOf, roleSwitchOf } from './privilege.js';
import { sqlQueryToolInfo } from './query-tool.info.js';
import { readStatements } from './result.js';
import { rowsToolResult } from './rows.js';

export interface SqlQueryToolConfig extends ToolCommon {
  readonly source: string;
  readonly maxRows?: number;
  readonly timeoutMs?: number;
}

export const sqlQueryTool: ToolKind<SqlQueryToolConfig> = {
  ...sqlQueryToolInfo,

  compile(config, ctx) {
    const capability = ctx.source(config.source, 'sql', ['source']);
    if (!refuseInput(config, ctx) || !capability) return undefined;
    const switched = roleSwitchOf(capability);
    if (switched && !switched.allowed) {
      const { role, login } = switched;
      ctx.error(
        ['source'],
        problems.SQL_QUERY_WITH_ROLE(config.source, role, login, LEAST_PRIVILEGE_SQL.postgres),
      );
      return undefined;
    }
    const privileged = privilegeOf(capability);
    if (privileged && !privileged.allowed) {
      const { message, hint } = privilegedRoleRefusal(config.source, privileged);
      ctx.error(['source'], problems.MANIFEST_INVALID_VALUE(message, hint));
      return undefined;
    }
    const maxRows = config.maxRows ?? capability.defaults.maxRows;
    const timeoutMs = config.timeoutMs ?? capability.defaults.timeoutMs;
    const dialect = capability.dialect;
    const reads = readStatements(dialect);
    return {
      annotations: { readOnlyHint: true },
      description: `Runs one read-only SQL query on the ${dialect} database "${config.source}" and returns at most ${maxRows} rows, with a ${timeoutMs / 1000} s time limit. Only one ${reads} statement is accepted; anything that writes is refused. Write values into the text (there are no parameters). Look up table and column names first.`,
      input: {
        sql: {
          type: 'string',
          minLength: 1,
          description: `One ${dialect} read statement (${reads}).`,
        },
      },
      async run(args, call) {
        const text = String(args.sql);
        const verdict = classifySql(text, dialect);
        if (!verdict.read) {
          return errorResult(`Query refused: ${verdict.reason}. Send one ${reads} statement.`);
        }
        try {
          // The text goes to the driver as is: no :name parameters are looked for in it.
          const result = await capability.query({ segments: [text], params: [] }, [], {
            maxRows,
            timeoutMs,
            signal: call.signal,
            readOnly: true,
          });
          return rowsToolResult(result, maxRows);
        } catch (err) {
          return errorResult(`SQL error: ${(err as Error).message}`);
        }
      },
    };
  },
};
