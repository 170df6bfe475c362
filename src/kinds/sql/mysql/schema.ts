/**
 * The live schema of a MySQL or MariaDB database (the one the URL names), from information_schema.
 * Row counts are `TABLE_ROWS`: exact for MyISAM and Aria, an estimate for InnoDB.
 */
import type { CallSignal } from '../../../util/call-signal.js';
import type { SqlIndex, SqlSchemaReader, SqlTableDetail, SqlTableSummary } from '../../contract/kinds.js';
import type { CatalogQuery } from '../engine.js';
import { byName } from '../schema-text.js';

const TABLES = `
SELECT t.TABLE_NAME AS name, t.TABLE_TYPE AS type, t.TABLE_ROWS AS estimate, t.TABLE_COMMENT AS comment,
  (SELECT COUNT(*) FROM information_schema.COLUMNS c
   WHERE c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME) AS columns
FROM information_schema.TABLES t WHERE t.TABLE_SCHEMA = DATABASE()`;

const COLUMNS = `
SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, IS_NULLABLE AS nullable, COLUMN_DEFAULT AS dflt,
  EXTRA AS extra, COLUMN_COMMENT AS comment
FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?
ORDER BY ORDINAL_POSITION`;

const FOREIGN_KEYS = `
SELECT k.CONSTRAINT_NAME AS name, k.COLUMN_NAME AS col, k.REFERENCED_TABLE_NAME AS ref_table,
  k.REFERENCED_COLUMN_NAME AS ref_col, r.UPDATE_RULE AS on_update, r.DELETE_RULE AS on_delete
FROM information_schema.KEY_COLUMN_USAGE k
JOIN information_schema.REFERENTIAL_CONSTRAINTS r
  ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME AND r.TABLE_NAME = k.TABLE_NAME
WHERE k.TABLE_SCHEMA = DATABASE() AND k.TABLE_NAME = ? AND k.REFERENCED_TABLE_NAME IS NOT NULL
ORDER BY k.CONSTRAINT_NAME, k.ORDINAL_POSITION`;

const INDEXES = `
SELECT INDEX_NAME AS name, NON_UNIQUE AS non_unique, COLUMN_NAME AS col
FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?
ORDER BY INDEX_NAME, SEQ_IN_INDEX`;

/** Rules that are the default say nothing; the others are shown. */
const rule = (r: unknown) => (r === 'RESTRICT' || r === 'NO ACTION' || r == null ? undefined : String(r));

/** MariaDB shows "no default" on a nullable column as the text NULL. */
const columnDefault = (d: unknown) => (d === null || d === undefined || d === 'NULL' ? undefined : String(d));

export function mysqlSchemaReader(query: CatalogQuery): SqlSchemaReader {
  const tables = async (signal: CallSignal): Promise<SqlTableSummary[]> =>
    (await query(TABLES, [], signal))
      .map((r) => {
        const view = r.type === 'VIEW';
        return {
          name: String(r.name),
          type: view ? ('view' as const) : ('table' as const),
          columnCount: Number(r.columns),
          ...(!view && r.estimate !== null && { rows: Number(r.estimate) }),
          rowsEstimated: true,
          ...(typeof r.comment === 'string' && r.comment !== '' && !view && { comment: r.comment }),
        };
      })
      .sort(byName);

  return {
    tables,
    async describe(name, signal) {
      const summary = (await tables(signal)).find((t) => t.name === name);
      if (!summary) return undefined;
      const [columns, keys, indexRows] = await Promise.all([
        query(COLUMNS, [name], signal),
        query(FOREIGN_KEYS, [name], signal),
        query(INDEXES, [name], signal),
      ]);
      const indexes = new Map<string, { unique: boolean; columns: string[] }>();
      for (const r of indexRows) {
        const index = indexes.get(String(r.name)) ?? { unique: Number(r.non_unique) === 0, columns: [] };
        index.columns.push(r.col === null ? '<expression>' : String(r.col));
        indexes.set(String(r.name), index);
      }
      const foreign = new Map<string, Record<string, unknown>[]>();
      for (const k of keys) foreign.set(String(k.name), [...(foreign.get(String(k.name)) ?? []), k]);
      const detail: SqlTableDetail = {
        ...summary,
        columns: columns.map((c) => {
          const dflt = columnDefault(c.dflt);
          return {
            name: String(c.name),
            type: [String(c.type), String(c.extra ?? '')].join(' ').trim(),
            nullable: c.nullable === 'YES',
            ...(dflt !== undefined && { default: dflt }),
            ...(typeof c.comment === 'string' && c.comment !== '' && { comment: c.comment }),
          };
        }),
        primaryKey: indexes.get('PRIMARY')?.columns ?? [],
        foreignKeys: [...foreign].map(([fkName, parts]) => {
          const first = parts[0]!;
          return {
            name: fkName,
            columns: parts.map((p) => String(p.col)),
            table: String(first.ref_table),
            referencedColumns: parts.map((p) => String(p.ref_col)),
            ...(rule(first.on_update) && { onUpdate: rule(first.on_update) }),
            ...(rule(first.on_delete) && { onDelete: rule(first.on_delete) }),
          };
        }),
        indexes: [...indexes]
          .map(([indexName, i]): SqlIndex => ({ name: indexName, ...i, primary: indexName === 'PRIMARY' }))
          .sort(byName),
      };
      return detail;
    },
  };
}
