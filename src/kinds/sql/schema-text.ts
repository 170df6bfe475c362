/**
 * A schema as a model reads it best: markdown with one table of columns, then keys and indexes.
 * The `sql-schema` resources and the ready-made tools share these renderings.
 */
import type { SqlTableDetail, SqlTableSummary } from '../contract/kinds.js';
import { markdownTable } from './text-table.js';

/** Sorts by name in code unit order: the same on every engine, whatever its collation. */
export function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** "12", "~1200" (an estimate) or "?" (unknown). */
export function rowsText(t: SqlTableSummary): string {
  if (t.rows === undefined) return '?';
  return t.rowsEstimated ? `~${t.rows}` : String(t.rows);
}

/** One line: "table, 4 columns, ~1200 rows". */
export function summaryLine(t: SqlTableSummary): string {
  const rows = t.rows === undefined ? '' : `, ${rowsText(t)} rows`;
  return `${t.type}, ${plural(t.columnCount, 'column')}${rows}${t.comment ? ` — ${t.comment}` : ''}`;
}

/** The tables and views, one row each. */
export function tablesMarkdown(tables: readonly SqlTableSummary[]): string {
  if (tables.length === 0) return 'No tables or views.';
  const rows = tables.map((t) => ({
    name: t.name,
    type: t.type,
    columns: t.columnCount,
    rows: rowsText(t),
    ...(t.comment && { comment: t.comment }),
  }));
  const columns = ['name', 'type', 'columns', 'rows', ...(tables.some((t) => t.comment) ? ['comment'] : [])];
  return markdownTable(columns, rows);
}

export function overviewMarkdown(
  title: string,
  tables: readonly SqlTableSummary[],
  tableUri: (name: string) => string,
): string {
  const views = tables.filter((t) => t.type === 'view').length;
  const counted = `${plural(tables.length - views, 'table')} and ${plural(views, 'view')}`;
  const example = tables[0] ? ` (for example ${tableUri(tables[0].name)})` : '';
  return [
    `# ${title}`,
    '',
    `${counted}. Read one table's resource${example} for its columns, keys and indexes; add ?format=json for JSON. Rows: ~ marks the engine's estimate, ? unknown.`,
    '',
    tablesMarkdown(tables),
    '',
  ].join('\n');
}

export function tableMarkdown(t: SqlTableDetail): string {
  const pk = new Set(t.primaryKey);
  const references = new Map<string, string>();
  for (const fk of t.foreignKeys) {
    fk.columns.forEach((column, i) => {
      const target = fk.referencedColumns[i];
      references.set(column, `→ ${fk.table}${target === undefined ? '' : `.${target}`}`);
    });
  }
  const columns = t.columns.map((c) => ({
    column: c.name,
    type: c.type,
    null: c.nullable ? 'yes' : 'no',
    default: c.default ?? '',
    key: [pk.has(c.name) ? 'PK' : '', references.get(c.name) ?? ''].filter(Boolean).join(' '),
    ...(c.comment && { comment: c.comment }),
  }));
  const withComment = t.columns.some((c) => c.comment);
  const lines = [
    `# ${t.type === 'view' ? 'View' : 'Table'} ${t.name}`,
    '',
    `Rows: ${t.rows === undefined ? 'unknown' : t.rowsEstimated ? `about ${t.rows} (estimate)` : t.rows}.`,
    ...(t.comment ? ['', t.comment] : []),
    '',
    '## Columns',
    '',
    markdownTable(['column', 'type', 'null', 'default', 'key', ...(withComment ? ['comment'] : [])], columns),
  ];
  if (t.primaryKey.length > 0) lines.push('', '## Primary key', '', `(${t.primaryKey.join(', ')})`);
  if (t.foreignKeys.length > 0) {
    lines.push('', '## Foreign keys', '');
    for (const fk of t.foreignKeys) {
      const target = fk.referencedColumns.length ? ` (${fk.referencedColumns.join(', ')})` : '';
      const actions = [
        fk.onUpdate && `on update ${fk.onUpdate}`,
        fk.onDelete && `on delete ${fk.onDelete}`,
      ].filter(Boolean);
      lines.push(
        `- (${fk.columns.join(', ')}) → ${fk.table}${target}${actions.length ? `, ${actions.join(', ')}` : ''}`,
      );
    }
  }
  if (t.indexes.length > 0) {
    lines.push('', '## Indexes', '');
    for (const index of t.indexes) {
      const kind = index.primary ? ', primary key' : index.unique ? ', unique' : '';
      lines.push(`- ${index.name} (${index.columns.join(', ')})${kind}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
