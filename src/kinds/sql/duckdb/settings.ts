/**
 * The engine's own isolation of a DuckDB source, set on the first connection before any query of a
 * caller runs, then locked:
 *
 * - the manifest's `extensions` are loaded (nothing is installed; autoinstall and autoload are off
 *   from the instance's creation, so no later query loads one);
 * - `allowed_directories` / `allowed_paths`: the declared files, as real paths (files.ts); DuckDB adds
 *   its own temporary folder, a private one made for the source;
 * - `file_search_path`: the manifest folder, so that `FROM 'data/x.csv'` reads it from there;
 * - `enable_external_access = false`: no file outside those, no URL (http, s3), no ATTACH of another
 *   database, no extension load;
 * - `lock_configuration = true`: no SET, RESET or PRAGMA changes a setting from then on.
 *
 * The settings are read back and checked, so a DuckDB that ignored one fails the open instead of
 * serving without it.
 */
import { type DuckDBInstance, StatementType } from '@duckdb/node-api';
import { fileLiteral } from './schema.js';

export interface Isolation {
  readonly baseDir: string;
  readonly directories: readonly string[];
  readonly paths: readonly string[];
  readonly extensions: readonly string[];
}

/** Statement types DuckDB's parser gives a read (DESCRIBE, SHOW, SUMMARIZE and FROM … are SELECTs). */
export const READ_STATEMENTS: ReadonlySet<StatementType> = new Set([
  StatementType.SELECT,
  StatementType.EXPLAIN,
]);

export function statementRefusal(type: StatementType): string {
  const name = StatementType[type] ?? String(type);
  return `refused by DuckDB: the statement is a ${name} statement; only one read (SELECT, FROM …, DESCRIBE, SHOW, SUMMARIZE) runs here`;
}

const list = (items: readonly string[]) => `[${items.map(fileLiteral).join(', ')}]`;

export async function isolate(instance: DuckDBInstance, isolation: Isolation): Promise<void> {
  const conn = await instance.connect();
  try {
    for (const name of isolation.extensions) {
      if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`extension ${JSON.stringify(name)}: not a name`);
      try {
        await conn.run(`LOAD ${name}`);
      } catch (err) {
        throw new Error(
          `extension ${name} cannot be loaded (it must be installed already or built in): ${(err as Error).message}`,
        );
      }
    }
    if (isolation.directories.length > 0) {
      await conn.run(`SET GLOBAL allowed_directories = ${list(isolation.directories)}`);
    }
    if (isolation.paths.length > 0) await conn.run(`SET GLOBAL allowed_paths = ${list(isolation.paths)}`);
    await conn.run(`SET GLOBAL file_search_path = ${fileLiteral(isolation.baseDir)}`);
    await conn.run('SET GLOBAL enable_external_access = false');
    await conn.run('SET GLOBAL lock_configuration = true');
    const reader = await conn.runAndReadAll(
      `SELECT current_setting('enable_external_access') AS external, current_setting('lock_configuration') AS locked,
         current_setting('autoload_known_extensions') AS autoload, current_setting('autoinstall_known_extensions') AS autoinstall`,
    );
    const [row] = reader.getRowObjectsJS();
    if (
      row?.external !== false ||
      row.locked !== true ||
      row.autoload !== false ||
      row.autoinstall !== false
    ) {
      throw new Error(`DuckDB did not take its isolation settings (${JSON.stringify(row)})`);
    }
  } finally {
    conn.closeSync();
  }
}
