/**
 * Tool `sql`: one parameterised statement against a source with the `sql` capability. Arguments
 * are bound by the driver as `:name` parameters, never pasted into the SQL text. A name listed in
 * `identifiers` is a table or column name instead: its value must come from the argument's `enum`,
 * and it is quoted the engine's way. On a read-only source every statement only reads; on a writable
 * one, `readOnly: true` keeps a tool to reads. `paginate: true` adds a `cursor` argument.
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
 *   table_rows:
 *     kind: sql
 *     source: shop
 *     input: { table: { type: string, enum: [orders, customers] } }
 *     identifiers: [table]
 *     sql: SELECT * FROM :table ORDER BY 1
 *     paginate: true
 * ```
 */

import { type Problem, problems } from '../../errors.js';
import type {
  CompiledTool,
  SqlCapability,
  SqlColumnInfo,
  SqlResult,
  SqlStatement,
  ToolCommon,
  ToolKind,
} from '../contract/kinds.js';
import { errorResult } from '../contract/results.js';
import type { JsonSchema } from '../contract/types.js';
import { trackErrors } from '../shared/tracked-context.js';
import { classifySql } from './classify.js';
import { CURSOR_ARGUMENT, decodeCursor, encodeCursor } from './cursor.js';
import { bindIdentifiers } from './identifiers.js';
import { parseDeclaredSql, parseSqlParams, renderSql } from './params.js';
import { rowsOutputSchema, rowsToolResult } from './rows.js';
import { sqlToolInfo } from './sql-tool.info.js';

export interface SqlToolConfig extends ToolCommon {
  readonly source: string;
  readonly sql: string;
  readonly maxRows?: number;
  readonly timeoutMs?: number;
  readonly readOnly?: boolean;
  readonly paginate?: boolean;
  readonly identifiers?: readonly string[];
}

const CURSOR_INPUT: JsonSchema = {
  type: 'string',
  required: false,
  description: 'The nextCursor of the previous page; leave it out for the first page.',
};

export const sqlTool: ToolKind<SqlToolConfig> = {
  ...sqlToolInfo,

  compile(config, ctx) {
    const { ctx: tracked, failed } = trackErrors(ctx);
    const fail = (at: string, problem: Problem) => tracked.error([at], problem);
    const capability = ctx.source(config.source, 'sql', ['source']);
    const input = config.input ?? {};
    const parsed = parseDeclaredSql(config.sql, Object.keys(input), tracked);
    const statement = parsed ?? parseSqlParams(config.sql);
    const identifiers = new Set(config.identifiers ?? []);
    const choices = new Map<string, readonly string[]>();
    for (const name of identifiers) {
      const allowed = Object.hasOwn(input, name) ? (input[name] as { enum?: unknown }).enum : undefined;
      if (!Array.isArray(allowed) || allowed.length === 0 || !allowed.every((v) => typeof v === 'string')) {
        fail('identifiers', problems.SQL_IDENTIFIER_NOT_ENUM(name));
      } else if (!statement.params.includes(name)) {
        fail('identifiers', problems.MANIFEST_INVALID_VALUE(`the SQL does not use the identifier :${name}`));
      } else choices.set(name, allowed as string[]);
    }
    if (config.paginate && Object.hasOwn(input, CURSOR_ARGUMENT)) {
      fail(
        'paginate',
        problems.MANIFEST_INVALID_VALUE('paginate adds the argument "cursor"; rename your input "cursor"'),
      );
    }
    if (!capability || failed()) return undefined;

    if (config.readOnly === false && capability.readOnly) {
      fail(
        'readOnly',
        problems.SQL_WRITE_NOT_ALLOWED(`the tool asks to write, but source "${config.source}" is read-only`),
      );
    }
    const readOnly = config.readOnly ?? capability.readOnly;
    // Every statement the tool can run: one per allowed identifier value (the others at their first).
    const variants = identifierVariants(choices).map((values) =>
      bindIdentifiers(statement, identifiers, values, capability.quoteIdentifier),
    );
    for (const variant of variants) {
      const invalid = capability.check?.(variant);
      if (invalid) {
        fail('sql', problems.SQL_INVALID(invalid));
        break;
      }
      const verdict = classifySql(
        renderSql(variant, () => '?'),
        capability.dialect,
      );
      if (!verdict.read && config.readOnly === true) {
        fail('sql', problems.SQL_WRITE_NOT_ALLOWED(`the tool is readOnly: true, but ${verdict.reason}`));
        break;
      }
      // The same statement with `readOnly: true` written out is an error above: one rule for both.
      if (!verdict.read && readOnly) {
        fail(
          'sql',
          problems.SQL_WRITE_NOT_ALLOWED(`source "${config.source}" is read-only, but ${verdict.reason}`),
        );
        break;
      }
      if (config.paginate && !(verdict.read && verdict.rowSet)) {
        fail(
          'paginate',
          problems.MANIFEST_INVALID_VALUE(
            'paginate needs a statement that returns rows (SELECT, WITH, VALUES)',
          ),
        );
        break;
      }
    }
    if (failed()) return undefined;

    const paginate = config.paginate ?? false;
    const defaults = capability.defaults;
    const maxRows = config.maxRows ?? defaults.maxRows;
    const timeoutMs = config.timeoutMs ?? defaults.timeoutMs;
    const columns = identifiers.size === 0 ? capability.columns?.(statement) : undefined;
    const tool: CompiledTool = {
      ...(readOnly && { annotations: { readOnlyHint: true } }),
      ...(paginate && { input: { [CURSOR_ARGUMENT]: CURSOR_INPUT } }),
      run: runner({
        name: ctx.name,
        capability,
        statement,
        identifiers,
        choices,
        paginate,
        readOnly,
        maxRows,
        timeoutMs,
      }),
    };
    // Built when asked (server.outputSchemas: derived): otherwise nothing lists it, and the tool
    // would keep a dozen objects per tool for nothing. (A getter, not spread: spreading calls it.)
    if (columns) derivedOutputSchema(tool, columns, paginate);
    return tool;
  },
};

/** Outside compile for the same reason as runner: a getter made there would keep compile's context. */
function derivedOutputSchema(tool: CompiledTool, columns: readonly SqlColumnInfo[], paginate: boolean): void {
  Object.defineProperty(tool, 'outputSchema', {
    get: () => rowsOutputSchema(columns, paginate),
    enumerable: true,
  });
}

interface Plan {
  readonly name: string;
  readonly capability: SqlCapability;
  readonly statement: SqlStatement;
  readonly identifiers: ReadonlySet<string>;
  readonly choices: ReadonlyMap<string, readonly string[]>;
  readonly paginate: boolean;
  readonly readOnly: boolean;
  readonly maxRows: number;
  readonly timeoutMs: number;
}

/**
 * The tool's run, made outside compile so that it keeps only what a call needs: a closure made in
 * compile would keep compile's context alive for the catalog's lifetime (the entry's context, its
 * logger, the error-tracking child of it), which was a fifth of a 10,000-tool catalog's heap.
 */
function runner(plan: Plan): CompiledTool['run'] {
  const { name, capability, statement, identifiers, choices, paginate, readOnly, maxRows, timeoutMs } = plan;
  return async (args, call) => {
    const offset = paginate ? decodeCursor(args) : 0;
    if (offset === undefined) {
      return errorResult(
        `The cursor is not one this tool gave for these arguments; call ${name} again without cursor to start from the first page.`,
      );
    }
    // The input schema already holds identifiers to their enum; this keeps it true for any caller.
    for (const [id, allowed] of choices) {
      if (!allowed.includes(args[id] as string)) {
        return errorResult(`${id} must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}.`);
      }
    }
    const bound = bindIdentifiers(statement, identifiers, args, capability.quoteIdentifier);
    const values = bound.params.map((param) => args[param] ?? null);
    let result: SqlResult;
    try {
      result = await capability.query(bound, values, {
        maxRows,
        timeoutMs,
        signal: call.signal,
        ...(readOnly && { readOnly }),
        ...(offset > 0 && { offset }),
      });
    } catch (err) {
      return errorResult(`SQL error: ${(err as Error).message}`);
    }
    if (!paginate) return rowsToolResult(result, maxRows);
    const next =
      result.truncated && result.rows.length > 0
        ? encodeCursor(offset + result.rows.length, args)
        : undefined;
    return rowsToolResult(result, maxRows, { offset, tool: name, ...(next && { nextCursor: next }) });
  };
}

/** Each allowed value of each identifier once, the other identifiers at their first value. */
function identifierVariants(choices: ReadonlyMap<string, readonly string[]>): Record<string, string>[] {
  const first = Object.fromEntries([...choices].map(([name, values]) => [name, values[0]!]));
  const variants = [first];
  for (const [name, values] of choices) {
    for (const value of values.slice(1)) variants.push({ ...first, [name]: value });
  }
  return variants;
}
