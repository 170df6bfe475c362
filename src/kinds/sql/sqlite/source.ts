/**
 * Source `sqlite`: a SQLite database file, read-only unless the manifest says otherwise.
 *
 * A read-only source opens the file read-only; a read (a read-only source, or a call that asks for
 * one on a writable source) must also pass the statement classifier and SQLite's own verdict on the
 * prepared statement (`sqlite3_stmt_readonly`).
 *
 * better-sqlite3 is synchronous and cannot be interrupted, so queries and schema reads run in worker
 * processes (pool.ts, worker.ts), at most two per file and one connection each, started
 * on the first query. The server's event loop never waits on SQLite: it answers `ping` while a query
 * runs, and a query past its timeout (or a cancelled call) is ended by killing its worker. A
 * `:memory:` database lives inside one worker, so such a source has exactly one; what was written to
 * it is lost when a timeout ends that worker (the seed runs again in the next one).
 *
 * This process keeps its own connection only to prepare statements (`check`, `columns`, at compile
 * time); it never steps one. A read whose program SQLite can bound (no loop, no function call: a
 * lookup by key) runs here instead, on a read-only connection of its own (inline.ts), without the
 * round trip to a worker.
 *
 * Rows are capped by `maxRows` and by `maxBytes` (the sum of the value sizes, counted in the worker
 * as the rows are read), so one result cannot fill memory whatever its values hold.
 *
 * @example
 * ```yaml
 * sources:
 *   shop:
 *     kind: sqlite
 *     path: ./data/shop.db
 *     seed: ./data/seed.sql   # creates shop.db on first run
 *     maxRows: 200
 *     maxBytes: 4194304        # 4 MiB of values per result at most (the default)
 * ```
 */

import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { problems } from '../../../errors.js';
import { createdFilePlace } from '../../../util/data-folder.js';
import type { OpenedSource, SourceKind, SqlCapability, SqlStatement } from '../../contract/kinds.js';
import { shareOf } from '../../contract/share.js';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_MS } from '../defaults.js';
import { engineCapability, type SqlEngine } from '../engine.js';
import { quoteDoubled } from '../identifiers.js';
import { renderSql } from '../params.js';
import { rowObjects, uniqueColumns } from '../result.js';
import { InlineReader } from './inline.js';
import { SqlitePool } from './pool.js';
import type { WorkerQueryResult } from './read.js';
import { sqliteSourceInfo } from './source.info.js';
import { bindValue, packValue, unpackValue } from './wire.js';
import type { WorkerInit } from './worker.js';

export interface SqliteConfig {
  readonly path: string;
  readonly readOnly?: boolean;
  readonly timeoutMs?: number;
  readonly maxRows?: number;
  readonly seed?: string;
  readonly maxBytes?: number;
}

const MEMORY = ':memory:';
/** Prepared statements kept per database; model-written queries (sql-query) would grow it forever. */
const MAX_PREPARED = 500;
/** Worker processes per database file; a `:memory:` database has one. */
const FILE_WORKERS = 2;

export const sqliteSource: SourceKind<SqliteConfig> = {
  ...sqliteSourceInfo,

  async open(config, ctx) {
    // Loaded on use: a manifest without SQLite never loads the native module.
    const { default: Driver } = await import('better-sqlite3');
    const readOnly = config.readOnly ?? true;
    const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const fail = (at: string, reason: string) => {
      ctx.error([at], problems.SOURCE_OPEN_FAILED(ctx.name, reason));
      return undefined;
    };
    const memory = config.path === MEMORY;
    const declared = memory ? MEMORY : resolve(ctx.baseDir, config.path);
    // A file this source creates (from its seed, or an empty writable one) never goes into an
    // installed package: there it goes to the data folder (util/data-folder.ts).
    const creates = config.seed !== undefined || !readOnly;
    const file = memory || !creates ? declared : createdFilePlace(declared, ctx.dataDir);
    if (file !== declared) {
      try {
        mkdirSync(ctx.dataDir, { recursive: true });
      } catch (err) {
        return fail(
          'path',
          `${JSON.stringify(declared)} lies in an installed package, which mcp-run never writes into, and the data folder ${JSON.stringify(ctx.dataDir)} cannot be created (${(err as Error).message}); set XDG_DATA_HOME to a folder you can write`,
        );
      }
      // Said on every start: the manifest names another place, so the user must be told this one.
      ctx.log.info(
        `source ${ctx.name}: ${JSON.stringify(declared)} lies in an installed package, which mcp-run never writes into; the database is ${JSON.stringify(file)} (delete it to start again${config.seed === undefined ? '' : ' from the seed'})`,
      );
    }

    let seedSql: string | undefined;
    if (config.seed !== undefined && (memory || !existsSync(file))) {
      const seedFile = resolve(ctx.baseDir, config.seed);
      try {
        seedSql = readFileSync(seedFile, 'utf8');
        if (!memory) seedDatabase(Driver, file, seedSql, timeoutMs);
      } catch (err) {
        const reason = (err as Error).message;
        return fail(
          'seed',
          seedSql === undefined ? `cannot read the seed file ${JSON.stringify(seedFile)}: ${reason}` : reason,
        );
      }
    }
    if (!memory && readOnly && !existsSync(file)) {
      return fail(
        'path',
        `no database file at ${JSON.stringify(file)}; add \`seed:\` to create it on first run, or set readOnly: false to create an empty one`,
      );
    }

    const fileReadOnly = readOnly && !memory; // SQLite cannot open :memory: read-only
    let db: Database.Database | undefined;
    try {
      db = new Driver(file, { readonly: fileReadOnly, fileMustExist: fileReadOnly, timeout: timeoutMs });
      // Reads the header now, so "file is not a database" fails here rather than on the first call.
      db.pragma('schema_version');
    } catch (err) {
      db?.close();
      return fail('path', (err as Error).message);
    }
    if (memory) {
      try {
        if (seedSql !== undefined) db.exec(seedSql);
      } catch (err) {
        db.close();
        return fail('seed', `the seed failed: ${(err as Error).message}`);
      }
      if (readOnly) db.pragma('query_only = ON');
    }
    const init: WorkerInit = {
      op: 'init',
      file,
      readOnly,
      memory,
      timeoutMs,
      ...(memory && seedSql !== undefined && { seedSql }),
    };
    // The worker processes are the server's: each of --workers N runs its share.
    const pool = new SqlitePool(init, memory ? 1 : shareOf(FILE_WORKERS));
    // Never waits for a lock (timeout 0): a read that meets one goes to a worker.
    const inline = memory
      ? undefined
      : new InlineReader(() => new Driver(file, { readonly: true, fileMustExist: true, timeout: 0 }));
    return openedSource(db, pool, inline, readOnly, config.maxBytes ?? DEFAULT_MAX_BYTES, {
      maxRows: config.maxRows ?? DEFAULT_MAX_ROWS,
      timeoutMs,
    });
  },
};

/** Creates the database from the seed under a temporary name, then renames it into place. */
function seedDatabase(Driver: typeof Database, file: string, sql: string, timeoutMs: number): void {
  const temp = `${file}.seeding-${process.pid}`;
  rmSync(temp, { force: true });
  let db: Database.Database;
  try {
    db = new Driver(temp, { timeout: timeoutMs });
  } catch (err) {
    throw new Error(`cannot create ${JSON.stringify(file)}: ${(err as Error).message}`);
  }
  try {
    db.exec(sql);
    db.close();
    renameSync(temp, file);
  } catch (err) {
    if (db.open) db.close();
    rmSync(temp, { force: true });
    throw new Error(`the seed failed, so the database was not created: ${(err as Error).message}`);
  }
}

function openedSource(
  db: Database.Database,
  pool: SqlitePool,
  inline: InlineReader | undefined,
  readOnly: boolean,
  maxBytes: number,
  defaults: { maxRows: number; timeoutMs: number },
): OpenedSource {
  // Statements come from the manifest (and from sql-query calls, hence the bound on the cache).
  // Here they are only prepared, never run: running is the workers' job (or the inline reader's).
  const prepared = new Map<string, Database.Statement<unknown[]>>();
  const prepare = (text: string) => {
    let stmt = prepared.get(text);
    if (!stmt) {
      stmt = db.prepare<unknown[]>(text);
      if (prepared.size >= MAX_PREPARED) prepared.delete(prepared.keys().next().value as string);
      prepared.set(text, stmt);
    }
    return stmt;
  };

  const engine: SqlEngine = {
    dialect: 'sqlite',
    placeholder: () => '?',
    quoteIdentifier: quoteDoubled,
    async run(text, values, run) {
      const limits = {
        maxRows: run.maxRows,
        maxBytes: run.maxBytes,
        offset: run.offset,
        deadline: Date.now() + run.timeoutMs,
        timeoutMs: run.timeoutMs,
      };
      const bound = values.map(bindable);
      const result =
        (run.readOnly && !run.signal.aborted
          ? inline?.read(text, bound.map(bindValue), limits)
          : undefined) ??
        (await pool.run<WorkerQueryResult>(
          { op: 'query', text, values: bound, readsOnly: run.readOnly, ...limits },
          run.timeoutMs,
          run.signal,
        ));
      if (result.changes !== undefined) {
        return { columns: [], rows: [], truncated: false, changes: result.changes };
      }
      return {
        columns: result.columns,
        rows: rowObjects(result.columns, result.rows as unknown[][], unpackValue),
        truncated: result.truncated,
        ...(result.cutByBytes && {
          note: `The rows were cut at ${result.rows.length} because the next row would pass the source's byte budget (maxBytes: ${run.maxBytes}); select fewer or smaller columns, e.g. length(col) or substr(col, 1, 200) instead of a big value.`,
        }),
      };
    },
    schema: {
      tables: (signal) => pool.run({ op: 'tables' }, defaults.timeoutMs, signal),
      describe: (name, signal) => pool.run({ op: 'describe', name }, defaults.timeoutMs, signal),
    },
  };

  const sql: SqlCapability & { readonly pool: SqlitePool; readonly inline?: InlineReader } = {
    ...engineCapability(engine, { readOnly, maxBytes, ...defaults }),
    pool,
    ...(inline && { inline }),
    check(statement) {
      try {
        prepare(sqliteText(statement));
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    },
    columns(statement) {
      const stmt = prepare(sqliteText(statement));
      if (!stmt.reader) return undefined;
      const columns = stmt.columns();
      const names = uniqueColumns(columns.map((c) => c.name));
      return columns.map((c, i) => ({ name: names[i]!, ...(c.type !== null && { type: c.type }) }));
    },
  };

  return {
    capabilities: { sql },
    async ping() {
      // The file is local: reachable means this process's handle still reads it.
      db.prepare('SELECT 1').get();
    },
    async dispose() {
      pool.close();
      inline?.close();
      try {
        if (db.open) db.close();
      } catch {
        // dispose never throws; a handle that cannot close is gone with the process anyway
      }
    },
  };
}

/**
 * Booleans as 1/0, objects as JSON text, bigints and bytes tagged for the channel (the worker binds
 * a safe integer as SQLite INTEGER: wire.ts).
 */
function bindable(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' || typeof value === 'string') return value;
  if (typeof value === 'bigint' || value instanceof Uint8Array) return packValue(value);
  return JSON.stringify(value);
}

/** The SQLite text of a statement (`?` placeholders), made once per statement object. */
const texts = new WeakMap<SqlStatement, string>();
function sqliteText(statement: SqlStatement): string {
  let text = texts.get(statement);
  if (text === undefined) {
    text = renderSql(statement, () => '?');
    texts.set(statement, text);
  }
  return text;
}
