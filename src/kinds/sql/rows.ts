/**
 * A SQL result as a tool result: a markdown table the model reads, a footer that says when rows
 * were left out (and, for paged tools, how to get the next page), the rows as structured content,
 * and the outputSchema that content satisfies.
 */

import type { SqlColumnInfo, SqlResult } from '../contract/kinds.js';
import type { JsonSchema, ToolResult } from '../contract/types.js';
import { markdownTable } from './text-table.js';

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** Where the page started and how to get the next one, for tools that page. */
export interface Paging {
  readonly offset: number;
  /** The cursor of the next page, when more rows exist. */
  readonly nextCursor?: string;
  readonly tool: string;
}

export function rowsToolResult(result: SqlResult, maxRows: number, paging?: Paging): ToolResult {
  if (result.changes !== undefined && result.columns.length === 0) {
    return {
      content: [{ type: 'text', text: `${plural(result.changes, 'row')} changed.` }],
      structuredContent: { changes: result.changes },
    };
  }
  const { rows, truncated } = result;
  const structuredContent = {
    rows,
    rowCount: rows.length,
    truncated,
    ...(paging?.nextCursor !== undefined && { nextCursor: paging.nextCursor }),
  };
  if (rows.length === 0) {
    const text = result.note ?? (paging && paging.offset > 0 ? 'No more rows.' : 'No rows.');
    return { content: [{ type: 'text', text }], structuredContent };
  }
  let footer: string;
  if (paging) {
    const range = `Rows ${paging.offset + 1} to ${paging.offset + rows.length}`;
    footer = paging.nextCursor
      ? `${range}; more exist. For the next page, call ${paging.tool} again with the same arguments and cursor "${paging.nextCursor}".`
      : `${range}; that is all.`;
  } else if (result.note !== undefined) {
    footer = `Showing the first ${plural(rows.length, 'row')}; more exist. ${result.note}`;
  } else {
    footer = truncated
      ? `Showing the first ${plural(rows.length, 'row')}; more exist (truncated at ${plural(maxRows, 'row')}). Narrow the query or ask for fewer rows.`
      : `${plural(rows.length, 'row')}.`;
  }
  if (paging && result.note !== undefined) footer = `${footer} ${result.note}`;
  return {
    content: [{ type: 'text', text: `${markdownTable(result.columns, rows)}\n\n${footer}` }],
    structuredContent,
  };
}

/** The outputSchema of a row-returning statement whose columns are known before it runs. */
export function rowsOutputSchema(columns: readonly SqlColumnInfo[], paginate: boolean): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const c of columns) {
    Object.defineProperty(properties, c.name, {
      value: columnSchema(c.type),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return {
    type: 'object',
    properties: {
      rows: {
        type: 'array',
        items: { type: 'object', properties, required: columns.map((c) => c.name) },
      },
      rowCount: { type: 'integer', minimum: 0, description: 'How many rows this result holds.' },
      truncated: { type: 'boolean', description: 'More rows exist than this result holds.' },
      ...(paginate && {
        nextCursor: { type: 'string', description: 'Pass it as `cursor` to get the next page.' },
      }),
    },
    required: ['rows', 'rowCount', 'truncated'],
  };
}

/**
 * The JSON a column can hold, from SQLite's type affinity rules: TEXT columns hold text or NULL;
 * numeric columns hold numbers, but also text that does not look like a number (SQLite keeps it);
 * BLOB and untyped columns (expressions) may hold anything.
 */
function columnSchema(declared: string | undefined): JsonSchema {
  if (!declared) return {};
  const t = declared.toUpperCase();
  const description = `SQL type ${declared}`;
  if (t.includes('INT') || /REAL|FLOA|DOUB|NUM|DEC|BOOL/.test(t)) {
    return { type: ['number', 'string', 'null'], description };
  }
  if (/CHAR|CLOB|TEXT/.test(t)) return { type: ['string', 'null'], description };
  return { description };
}
