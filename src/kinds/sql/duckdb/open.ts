/**
 * The DuckDB instance of a source, opened in its worker process (worker.ts) from what the server
 * resolved (source.ts): the database file read-only, no extension installed or autoloaded, the
 * memory and thread limits and the private temporary folder, then the isolation of settings.ts, then
 * the first connection (a table whose files cannot be read fails the open).
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { quoteDoubled } from '../identifiers.js';
import { ConnectionPool } from './pool.js';
import { fileLiteral } from './schema.js';
import { type Isolation, isolate } from './settings.js';

/** What the server sends a new worker first: everything it needs to open the source. */
export interface WorkerInit {
  /** The database file (absolute), or none for an in-memory database. */
  readonly file?: string;
  readonly memoryLimit: string;
  readonly threads: number;
  readonly poolSize: number;
  /** The worker's own temporary folder (a new one for each worker of the source). */
  readonly temp: string;
  readonly maxTempSize: string;
  readonly isolation: Isolation;
  /** The `tables`: a temporary view of each connection reads the files. */
  readonly tables: readonly { readonly name: string; readonly pattern: string }[];
}

/** An open that failed: why, and which field of the source it is about. */
export class OpenFailure extends Error {
  constructor(
    message: string,
    readonly at: 'path' | 'tables' | undefined,
  ) {
    super(message);
  }
}

export async function openInstance(
  init: WorkerInit,
): Promise<{ instance: DuckDBInstance; pool: ConnectionPool }> {
  // The client loads only in the worker: its native module is 70 MB.
  const { DuckDBInstance } = await import('@duckdb/node-api');
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(init.file ?? ':memory:', {
      ...(init.file !== undefined && { access_mode: 'READ_ONLY' }),
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      allow_community_extensions: 'false',
      allow_unsigned_extensions: 'false',
      memory_limit: init.memoryLimit,
      threads: String(init.threads),
      temp_directory: init.temp,
      max_temp_directory_size: init.maxTempSize,
    });
  } catch (err) {
    throw new OpenFailure((err as Error).message, init.file !== undefined ? 'path' : undefined);
  }
  try {
    await isolate(instance, init.isolation);
  } catch (err) {
    instance.closeSync();
    throw new OpenFailure((err as Error).message, undefined);
  }
  // Each table is a temporary view of every connection (a read-only database file takes no view).
  const connect = async (): Promise<DuckDBConnection> => {
    const conn = await instance.connect();
    try {
      for (const table of init.tables) {
        await conn.run(
          `CREATE TEMP VIEW ${quoteDoubled(table.name)} AS SELECT * FROM ${fileLiteral(table.pattern)}`,
        );
      }
    } catch (err) {
      conn.closeSync();
      throw err;
    }
    return conn;
  };
  const pool = new ConnectionPool(connect, init.poolSize);
  try {
    pool.release(await pool.acquire(new AbortController().signal));
  } catch (err) {
    await pool.close();
    instance.closeSync();
    throw new OpenFailure((err as Error).message, 'tables');
  }
  return { instance, pool };
}
