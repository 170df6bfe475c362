/**
 * The SQLite worker: a child process (forked by sqlite-pool.ts) holding one better-sqlite3
 * connection. It answers one request at a time over the IPC channel; the server's event loop never
 * waits on SQLite, and a query that must be stopped is stopped by killing this process.
 *
 * A child process, not a worker thread: better-sqlite3 has no interrupt, and `worker.terminate()`
 * cannot stop a thread that is inside `sqlite3_step` (a recursive CTE never returns to JavaScript),
 * so the thread would spin on and `process.exit` would wait for it forever. A process can be killed;
 * SQLite's journal makes that safe for the database file.
 *
 * Rows are read under two budgets, checked before a row is kept: `maxRows`, and `maxBytes`, the sum
 * of the sizes of the values kept (text and blob lengths, 8 per number), so a flood of big values
 * stops at the budget instead of filling memory.
 */
import Database from 'better-sqlite3';
import { sqliteSchemaReader } from './introspect-sqlite.js';
import { uniqueColumns } from './result.js';
import { packRow, unpackValue } from './sqlite-wire.js';

export interface WorkerInit {
  readonly op: 'init';
  readonly file: string;
  readonly readOnly: boolean;
  readonly memory: boolean;
  readonly timeoutMs: number;
  /** Run first on a :memory: database (each worker has its own). */
  readonly seedSql?: string;
}

export type WorkerRequest =
  | {
      readonly id: number;
      readonly op: 'query';
      readonly text: string;
      readonly values: readonly unknown[];
      /** The statement must be a read (SQLite's own verdict on the prepared statement). */
      readonly readsOnly: boolean;
      readonly refusal: string;
      readonly maxRows: number;
      readonly maxBytes: number;
      readonly offset: number;
      readonly deadline: number;
      readonly timeoutMessage: string;
    }
  | { readonly id: number; readonly op: 'tables' }
  | { readonly id: number; readonly op: 'describe'; readonly name: string };

export interface WorkerQueryResult {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly unknown[])[];
  readonly truncated: boolean;
  /** The byte budget cut the rows; the note says so. */
  readonly cutByBytes?: boolean;
  readonly changes?: number;
}

export type WorkerResponse =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly message: string };

/** Prepared statements kept per connection; model-written queries (sql-query) would grow it forever. */
const MAX_PREPARED = 500;

/** The bytes a value holds, as the budget counts them. */
export function valueBytes(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'string') return value.length;
  if (value instanceof Uint8Array) return value.byteLength;
  return 8;
}

function openConnection(init: WorkerInit): Database.Database {
  const fileReadOnly = init.readOnly && !init.memory;
  // The server opened (and, with a seed, created) the file before starting any worker.
  const db = new Database(init.file, {
    readonly: fileReadOnly,
    fileMustExist: !init.memory,
    timeout: init.timeoutMs,
  });
  if (init.memory) {
    if (init.seedSql !== undefined) db.exec(init.seedSql);
    if (init.readOnly) db.pragma('query_only = ON');
  }
  return db;
}

function serve(): void {
  let db: Database.Database | undefined;
  let openError: string | undefined;
  const prepared = new Map<string, Database.Statement<unknown[]>>();
  const prepare = (conn: Database.Database, text: string) => {
    let stmt = prepared.get(text);
    if (!stmt) {
      stmt = conn.prepare<unknown[]>(text);
      if (prepared.size >= MAX_PREPARED) prepared.delete(prepared.keys().next().value as string);
      prepared.set(text, stmt);
    }
    return stmt;
  };

  const query = (conn: Database.Database, r: WorkerRequest & { op: 'query' }): WorkerQueryResult => {
    const stmt = prepare(conn, r.text);
    const values = r.values.map(unpackValue);
    // SQLite's own verdict backs the classifier up: it knows what the compiled program does.
    if (r.readsOnly && !stmt.readonly) throw new Error(r.refusal);
    if (!stmt.reader) {
      const { changes } = stmt.run(...values);
      return { columns: [], rows: [], truncated: false, changes };
    }
    const columns = uniqueColumns(stmt.columns().map((c) => c.name));
    const rows: unknown[][] = [];
    let skip = r.offset;
    let bytes = 0;
    // Leaving the loop early (break or throw) resets the statement and releases its read lock.
    for (const row of stmt.raw(true).iterate(...values) as Iterable<unknown[]>) {
      if (skip > 0) skip--;
      else if (rows.length >= r.maxRows) return { columns, rows, truncated: true };
      else {
        let size = 0;
        for (const value of row) size += valueBytes(value);
        if (bytes + size > r.maxBytes) return { columns, rows, truncated: true, cutByBytes: true };
        bytes += size;
        rows.push(packRow(row));
      }
      if (Date.now() > r.deadline) throw new Error(r.timeoutMessage);
    }
    return { columns, rows, truncated: false };
  };

  const handle = async (message: WorkerRequest): Promise<WorkerResponse> => {
    try {
      if (!db) throw new Error(openError ?? 'the SQLite worker was not initialised');
      if (message.op === 'query') return { id: message.id, ok: true, value: query(db, message) };
      // The reader's methods are synchronous underneath; here they block only this process.
      const reader = sqliteSchemaReader(db);
      const signal = new AbortController().signal;
      const value =
        message.op === 'tables' ? await reader.tables(signal) : await reader.describe(message.name, signal);
      return { id: message.id, ok: true, value };
    } catch (err) {
      return { id: message.id, ok: false, message: (err as Error).message };
    }
  };

  process.on('message', (message: WorkerInit | WorkerRequest) => {
    if (message.op === 'init') {
      try {
        db = openConnection(message);
      } catch (err) {
        openError = `the SQLite worker could not open the database: ${(err as Error).message}`;
      }
      return;
    }
    void handle(message).then((response) => process.send?.(response));
  });
  // The server is gone (it ended, or closed the channel): so is this worker.
  process.on('disconnect', () => process.exit(0));
}

if (process.send) serve();
