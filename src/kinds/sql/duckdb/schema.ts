/**
 * The live schema of a DuckDB source: the database's tables and views (duckdb_tables, duckdb_views,
 * duckdb_columns, duckdb_constraints; names bound, never spliced), then each declared file or glob
 * as a view whose columns are what DuckDB's DESCRIBE reads from the files themselves (a Parquet
 * file's schema, a CSV file's sniffed header and types). Row counts of tables are DuckDB's estimate;
 * files are left uncounted (counting a CSV reads all of it).
 */
import type { CallSignal } from '../../../util/call-signal.js';
import type {
  SqlColumnDetail,
  SqlSchemaReader,
  SqlTableDetail,
  SqlTableSummary,
} from '../../contract/kinds.js';
import type { CatalogQuery } from '../engine.js';
import type { DeclaredFiles } from './files.js';

const TABLES = `SELECT schema_name AS schema, table_name AS name, 'table' AS type, column_count AS columns,
    estimated_size AS rows, comment
  FROM duckdb_tables() WHERE database_name = current_database() AND NOT temporary
  UNION ALL
  SELECT v.schema_name, v.view_name, 'view', (SELECT count(*) FROM duckdb_columns() c
      WHERE c.database_name = v.database_name AND c.schema_name = v.schema_name AND c.table_name = v.view_name),
    NULL, v.comment
  FROM duckdb_views() v
  WHERE (v.database_name = current_database() OR v.temporary) AND NOT v.internal`;

/** The database's own catalog, or the temporary one of the source's tables (views over files). */
const CATALOG = "(database_name = current_database() OR database_name = 'temp')";

const COLUMNS = `SELECT column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS dflt, comment
  FROM duckdb_columns() WHERE ${CATALOG} AND schema_name = $1 AND table_name = $2
  ORDER BY column_index`;

const PRIMARY_KEY = `SELECT constraint_column_names AS columns FROM duckdb_constraints()
  WHERE ${CATALOG} AND schema_name = $1 AND table_name = $2 AND constraint_type = 'PRIMARY KEY'`;

/** A file path as a SQL string literal (paths come from the manifest, never from a caller). */
export function fileLiteral(path: string): string {
  return `'${path.replaceAll("'", "''")}'`;
}

export function duckdbSchemaReader(query: CatalogQuery, files: readonly DeclaredFiles[]): SqlSchemaReader {
  // The `tables` are views, listed with the database's own; a folder has no one schema.
  const readable = files.filter((f) => f.kind !== 'folder' && !f.table);
  const comments = new Map(
    files
      .filter((f) => f.table)
      .map((f) => [f.name, `a view of the ${f.kind === 'glob' ? 'files' : 'file'} ${f.pattern}`]),
  );

  const fileColumns = async (file: DeclaredFiles, signal: CallSignal) => {
    const rows = await query(`DESCRIBE SELECT * FROM ${fileLiteral(file.pattern)}`, [], signal);
    return rows.map(
      (r): SqlColumnDetail => ({
        name: String(r.column_name),
        type: String(r.column_type),
        nullable: r.null !== 'NO',
      }),
    );
  };

  const databaseTables = async (signal: CallSignal) => {
    const rows = await query(TABLES, [], signal);
    return rows.map((r) => {
      const schema = String(r.schema);
      const name = schema === 'main' ? String(r.name) : `${schema}.${String(r.name)}`;
      const summary: SqlTableSummary & { schema: string; table: string } = {
        schema,
        table: String(r.name),
        name,
        type: r.type === 'view' ? 'view' : 'table',
        columnCount: Number(r.columns),
        ...(r.rows !== null && r.rows !== undefined && { rows: Number(r.rows) }),
        rowsEstimated: true,
        ...(typeof r.comment === 'string' && r.comment !== '' && { comment: r.comment }),
        ...(comments.has(name) && { comment: comments.get(name) }),
      };
      return summary;
    });
  };

  const fileSummary = (file: DeclaredFiles, columns: number): SqlTableSummary => ({
    name: file.name,
    type: 'view',
    columnCount: columns,
    rowsEstimated: false,
    comment: `${file.kind === 'glob' ? 'files' : 'file'} read with FROM '${file.pattern}'`,
  });

  const summaries = async (signal: CallSignal) => {
    const tables = await databaseTables(signal);
    const declared: SqlTableSummary[] = [];
    for (const file of readable) {
      // A glob that matches nothing yet, or an unreadable file, is listed with no columns.
      const columns = await fileColumns(file, signal).catch(() => []);
      declared.push(fileSummary(file, columns.length));
    }
    return [...tables, ...declared];
  };

  return {
    async tables(signal) {
      const all = await summaries(signal);
      return all
        .map(({ name, type, columnCount, rows, rowsEstimated, comment }) => ({
          name,
          type,
          columnCount,
          ...(rows !== undefined && { rows }),
          rowsEstimated,
          ...(comment !== undefined && { comment }),
        }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    async describe(name, signal): Promise<SqlTableDetail | undefined> {
      const file = readable.find((f) => f.name === name);
      if (file) {
        const columns = await fileColumns(file, signal);
        return {
          ...fileSummary(file, columns.length),
          columns,
          primaryKey: [],
          foreignKeys: [],
          indexes: [],
        };
      }
      const table = (await databaseTables(signal)).find((t) => t.name === name);
      if (!table) return undefined;
      const { schema, table: bare, ...summary } = table;
      const columns = await query(COLUMNS, [schema, bare], signal);
      const keys = await query(PRIMARY_KEY, [schema, bare], signal);
      return {
        ...summary,
        columns: columns.map((c) => ({
          name: String(c.name),
          type: String(c.type),
          nullable: c.nullable !== false,
          ...(typeof c.dflt === 'string' && { default: c.dflt }),
          ...(typeof c.comment === 'string' && c.comment !== '' && { comment: c.comment }),
        })),
        primaryKey: Array.isArray(keys[0]?.columns) ? (keys[0].columns as unknown[]).map(String) : [],
        foreignKeys: [],
        indexes: [],
      };
    },
  };
}
