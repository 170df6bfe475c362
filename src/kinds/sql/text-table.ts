/**
 * Rows as a markdown pipe table: what a model reads best. Values that are not strings are
 * JSON-encoded; long cells are cut so one huge value cannot flood the context.
 */

export const MAX_CELL_CHARS = 200;

export function markdownTable(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  const header = columns.length > 0 ? columns : Object.keys(rows[0] ?? {});
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(header.map(cell)),
    line(header.map(() => '---')),
    ...rows.map((row) => line(header.map((column) => cell(row[column])))),
  ].join('\n');
}

function cell(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
  const cut = text.length > MAX_CELL_CHARS ? `${text.slice(0, MAX_CELL_CHARS - 1)}…` : text;
  return cut
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/\r?\n|\r/g, '\\n');
}
