/**
 * The table view's "Copy CSV", in a file of its own: pure code, without the DOM, so a Node test
 * reads it.
 *
 * Rows as CSV (RFC 4180 quoting), the columns as shown. A text cell that a spreadsheet would read as
 * a formula (`=`, `+`, `-`, `@`, a tab or a carriage return first) gets a leading `'`: the rows are
 * the data's, and pasting them must not run `=HYPERLINK(…)` (OWASP's CSV injection advice).
 */
export function toCsv(
  columns: readonly { readonly key: string; readonly label?: string }[],
  rows: readonly Readonly<Record<string, unknown>>[],
): string {
  const cell = (value: unknown) => {
    const raw =
      value === null || value === undefined
        ? ''
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value);
    const text = typeof value === 'string' && /^[=+\-@\t\r]/.test(raw) ? `'${raw}` : raw;
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  const lines = [columns.map((c) => cell(c.label ?? c.key)).join(',')];
  for (const row of rows) lines.push(columns.map((c) => cell(row[c.key])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
