/**
 * The live schema of a SQLite database, from `sqlite_schema` and the table-valued pragmas (names are
 * bound, never spliced). Row counts are exact (`count(*)`): SQLite keeps no estimate unless ANALYZE
 * ran, and a count on one machine's file is cheap next to a network round trip.
 */
import type Database from 'better-sqlite3';
import type { SqlIndex, SqlSchemaReader, SqlTableDetail, SqlTableSummary } from '../../contract/kinds.js';
import { quoteDoubled } from '../identifiers.js';

interface TableRow {
  name: string;
  type: 'table' | 'view';
  columns: number;
}

const ACTION = (a: string) => (a === 'NO ACTION' ? undefined : a);

export function sqliteSchemaReader(db: Database.Database): SqlSchemaReader {
  const summaries = (): SqlTableSummary[] => {
    const rows = db
      .prepare<[], TableRow>(
        `SELECT s.name, s.type, (SELECT count(*) FROM pragma_table_info(s.name)) AS columns
         FROM sqlite_schema s
         WHERE s.type IN ('table', 'view') AND s.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'`,
      )
      .all();
    return rows
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((t) => ({
        name: t.name,
        type: t.type,
        columnCount: t.columns,
        // Views are left uncounted: counting one runs its whole query.
        ...(t.type === 'table' && { rows: count(db, t.name) }),
        rowsEstimated: false,
      }));
  };

  return {
    tables: async () => summaries(),
    async describe(name) {
      const summary = summaries().find((t) => t.name === name);
      return summary && describeTable(db, summary);
    },
  };
}

function count(db: Database.Database, table: string): number {
  const row = db.prepare(`SELECT count(*) AS n FROM ${quoteDoubled(table)}`).get() as { n: number };
  return row.n;
}

function describeTable(db: Database.Database, summary: SqlTableSummary): SqlTableDetail {
  const name = summary.name;
  const columns = db
    .prepare<
      [string],
      { name: string; type: string; notnull: number; dflt_value: string | null; pk: number }
    >('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?) ORDER BY cid')
    .all(name);
  const primaryKey = columns
    .filter((c) => c.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((c) => c.name);

  const fkRows = db
    .prepare<
      [string],
      { id: number; table: string; from: string; to: string | null; on_update: string; on_delete: string }
    >(
      'SELECT id, "table", "from", "to", on_update, on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq',
    )
    .all(name);
  const foreignKeys = groupBy(fkRows, (r) => r.id).map((group) => {
    const first = group[0]!;
    const referenced = group.map((r) => r.to);
    return {
      columns: group.map((r) => r.from),
      table: first.table,
      // A reference without columns means the referenced table's primary key.
      referencedColumns: referenced.every((c) => c !== null) ? (referenced as string[]) : [],
      ...(ACTION(first.on_update) && { onUpdate: first.on_update }),
      ...(ACTION(first.on_delete) && { onDelete: first.on_delete }),
    };
  });

  const indexes: SqlIndex[] = db
    .prepare<[string], { name: string; unique: number; origin: string }>(
      'SELECT name, "unique", origin FROM pragma_index_list(?)',
    )
    .all(name)
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((index) => ({
      name: index.name,
      columns: db
        .prepare<[string], { name: string | null }>('SELECT name FROM pragma_index_info(?) ORDER BY seqno')
        .all(index.name)
        .map((c) => c.name ?? '<expression>'),
      unique: index.unique === 1,
      primary: index.origin === 'pk',
    }));

  return {
    ...summary,
    columns: columns.map((c) => ({
      name: c.name,
      type: c.type || 'ANY',
      nullable:
        c.notnull === 0 && !(c.pk > 0 && c.type.toUpperCase() === 'INTEGER' && primaryKey.length === 1),
      ...(c.dflt_value !== null && { default: c.dflt_value }),
    })),
    primaryKey,
    foreignKeys,
    indexes,
  };
}

function groupBy<T>(items: readonly T[], key: (item: T) => number): T[][] {
  const groups = new Map<number, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return [...groups.values()];
}
