/**
 * The live schema of a Postgres database, from pg_catalog (what information_schema shows, plus
 * what it hides: row estimates from `reltuples`, index definitions, comments). Only the source's
 * schemas are read; names in them are unqualified when the source exposes one schema.
 */
import type { CallSignal } from '../../../util/call-signal.js';
import type { SqlIndex, SqlSchemaReader, SqlTableDetail, SqlTableSummary } from '../../contract/kinds.js';
import type { CatalogQuery } from '../engine.js';
import { byName } from '../schema-text.js';

const TABLES = `
SELECT n.nspname AS schema, c.relname AS name, c.oid::int8 AS oid,
  CASE WHEN c.relkind IN ('v', 'm') THEN 'view' ELSE 'table' END AS type,
  (SELECT count(*) FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns,
  CASE WHEN c.relkind IN ('r', 'p', 'm', 'f') AND c.reltuples >= 0 THEN c.reltuples::int8 END AS estimate,
  obj_description(c.oid, 'pg_class') AS comment
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname = ANY($1::text[])`;

const COLUMNS = `
SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable,
  pg_get_expr(d.adbin, d.adrelid) AS "default", col_description(a.attrelid, a.attnum) AS comment
FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attrelid = $1::int8::oid AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum`;

const KEYS = `
SELECT con.conname AS name, con.contype AS type, fn.nspname AS ref_schema, fc.relname AS ref_table,
  ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY k(num, pos)
        JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.pos)::text[] AS columns,
  ARRAY(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY k(num, pos)
        JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num ORDER BY k.pos)::text[] AS ref_columns,
  con.confupdtype AS on_update, con.confdeltype AS on_delete
FROM pg_constraint con
LEFT JOIN pg_class fc ON fc.oid = con.confrelid LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace
WHERE con.conrelid = $1::int8::oid AND con.contype IN ('p', 'f')
ORDER BY con.conname`;

const INDEXES = `
SELECT ic.relname AS name, i.indisunique AS "unique", i.indisprimary AS "primary",
  ARRAY(SELECT CASE WHEN i.indkey[k - 1] = 0 THEN pg_get_indexdef(i.indexrelid, k, true)
                    ELSE (SELECT a.attname FROM pg_attribute a WHERE a.attrelid = i.indrelid AND a.attnum = i.indkey[k - 1]) END
        FROM generate_series(1, i.indnkeyatts) k ORDER BY k)::text[] AS columns
FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
WHERE i.indrelid = $1::int8::oid`;

const ACTIONS: Record<string, string> = { r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL', d: 'SET DEFAULT' };

interface Listed extends SqlTableSummary {
  readonly oid: number;
}

export function postgresSchemaReader(query: CatalogQuery, schemas: readonly string[]): SqlSchemaReader {
  const display = (schema: string, table: string) =>
    schemas.length === 1 && schema === schemas[0] ? table : `${schema}.${table}`;

  const list = async (signal: CallSignal): Promise<Listed[]> => {
    const rows = await query(TABLES, [schemas], signal);
    return rows
      .map((r) => ({
        name: display(String(r.schema), String(r.name)),
        oid: Number(r.oid),
        type: r.type as 'table' | 'view',
        columnCount: Number(r.columns),
        ...(r.estimate !== null && { rows: Number(r.estimate) }),
        rowsEstimated: true,
        ...(r.comment !== null && { comment: String(r.comment) }),
      }))
      .sort(byName);
  };

  return {
    tables: async (signal) => (await list(signal)).map(({ oid: _oid, ...summary }) => summary),
    async describe(name, signal) {
      const found = (await list(signal)).find((t) => t.name === name);
      if (!found) return undefined;
      const { oid, ...summary } = found;
      const [columns, keys, indexes] = await Promise.all([
        query(COLUMNS, [oid], signal),
        query(KEYS, [oid], signal),
        query(INDEXES, [oid], signal),
      ]);
      const detail: SqlTableDetail = {
        ...summary,
        columns: columns.map((c) => ({
          name: String(c.name),
          type: String(c.type),
          nullable: c.nullable === true,
          ...(c.default !== null && { default: String(c.default) }),
          ...(c.comment !== null && { comment: String(c.comment) }),
        })),
        primaryKey: (keys.find((k) => k.type === 'p')?.columns as string[] | undefined) ?? [],
        foreignKeys: keys
          .filter((k) => k.type === 'f')
          .map((k) => ({
            name: String(k.name),
            columns: k.columns as string[],
            table: display(String(k.ref_schema), String(k.ref_table)),
            referencedColumns: k.ref_columns as string[],
            ...(ACTIONS[String(k.on_update)] && { onUpdate: ACTIONS[String(k.on_update)] }),
            ...(ACTIONS[String(k.on_delete)] && { onDelete: ACTIONS[String(k.on_delete)] }),
          })),
        indexes: indexes
          .map(
            (i): SqlIndex => ({
              name: String(i.name),
              columns: i.columns as string[],
              unique: i.unique === true,
              primary: i.primary === true,
            }),
          )
          .sort(byName),
      };
      return detail;
    },
  };
}
