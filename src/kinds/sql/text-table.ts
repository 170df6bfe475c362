/**
 * Rows as a markdown pipe table: what a model reads best. Values that are not strings are
 * JSON-encoded; long cells are cut so one huge value cannot flood the context.
 */

export const MAX_CELL_CHARS = 200;

export function markdownTable(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  const header = columns.length > 0 ? columns : Object.keys(rows[0] ?? {});
  if (header.length === 0) return `|  |\n|  |${'\n|  |'.repeat(rows.length)}`;
  let names = '|';
  let rule = '|';
  for (const column of header) {
    names += ` ${cell(column)} |`;
    rule += ' --- |';
  }
  let text = `${names}\n${rule}`;
  for (const row of rows) {
    text += '\n|';
    for (const column of header) text += ` ${cell(row[column])} |`;
  }
  return text;
}

/** What needs escaping in a cell: the pipe, the backslash that escapes it, and line breaks. */
const SPECIAL = /[\\|\r\n]/;

function cell(value: unknown): string {
  // Finite numbers read the same through String as through JSON.stringify, for less.
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
  if (text.length <= MAX_CELL_CHARS && !SPECIAL.test(text)) return text;
  const cut = text.length > MAX_CELL_CHARS ? `${text.slice(0, MAX_CELL_CHARS - 1)}…` : text;
  return cut
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/\r?\n|\r/g, '\\n');
}
