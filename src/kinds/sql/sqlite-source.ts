/**
 * Source `sqlite`: a SQLite database file, read-only unless the manifest says otherwise.
 *
 * A read-only source opens the file read-only; a read (a read-only source, or a call that asks for
 * one on a writable source) must also pass the statement classifier and SQLite's own verdict on the
 * prepared statement (`sqlite3_stmt_readonly`).
 *
 * better-sqlite3 is synchronous, so a query cannot be interrupted from outside. The timeout and
 * cancellation are checked between rows: a query that streams many rows stops promptly, but one
 * long step (a big sort or aggregate before the first row) runs to its end before the check.
 *
 * @example
 * ```yaml
 * sources:
 *   shop:
 *     kind: sqlite
 *     path: ./data/shop.db
 *     seed: ./data/seed.sql   # creates shop.db on first run
 *     maxRows: 200
 * ```
 */
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { problems } from '../../errors.js';
import type {
  OpenedSource,
  SourceKind,
  SqlCapability,
  SqlQueryOptions,
  SqlResult,
  SqlStatement,
} from '../contract/kinds.js';
import { classifySql } from './classify.js';
import { DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_MS } from './defaults.js';
import { quoteDoubled } from './identifiers.js';
import { sqliteSchemaReader } from './introspect-sqlite.js';
import { renderSql } from './params.js';
import {
  CANCELLED_MESSAGE,
  READ_ONLY_SOURCE_REFUSAL,
  readOnlyRefusal,
  rowObjects,
  timeoutMessage,
  uniqueColumns,
} from './result.js';

export interface SqliteConfig {
  readonly path: string;
  readonly readOnly?: boolean;
  readonly timeoutMs?: number;
  readonly maxRows?: number;
  readonly seed?: string;
}

const MEMORY = ':memory:';
const WRITE_REFUSAL = 'refused: this statement writes, and this tool only reads';
/** Prepared statements kept per database; model-written queries (sql-query) would grow it forever. */
const MAX_PREPARED = 500;

export const sqliteSource: SourceKind<SqliteConfig> = {
  kind: 'sqlite',
  description: 'A SQLite database file (read-only by default), for `sql` tools.',
  configSchema: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description: 'The database file, relative to the manifest folder, or `:memory:`.',
      },
      readOnly: {
        type: 'boolean',
        default: true,
        description: 'Open the database read-only (the default). Set false to let tools write.',
      },
      timeoutMs: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_TIMEOUT_MS,
        description: 'Default time limit of a query, and how long to wait for a locked database.',
      },
      maxRows: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_MAX_ROWS,
        description: 'Default number of rows a query returns at most; tools may set their own.',
      },
      seed: {
        type: 'string',
        minLength: 1,
        description: 'A SQL file run once to create the database when the file at `path` does not exist yet.',
      },
    },
    required: ['path'],
    additionalProperties: false,
  },

  async open(config, ctx) {
    const readOnly = config.readOnly ?? true;
    const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const memory = config.path === MEMORY;
    const file = memory ? MEMORY : resolve(ctx.baseDir, config.path);
    const fail = (at: string, reason: string) => {
      ctx.error([at], problems.SOURCE_OPEN_FAILED(ctx.name, reason));
      return undefined;
    };

    let seedSql: string | undefined;
    if (config.seed !== undefined && (memory || !existsSync(file))) {
      const seedFile = resolve(ctx.baseDir, config.seed);
      try {
        seedSql = readFileSync(seedFile, 'utf8');
        if (!memory) seedDatabase(file, seedSql, timeoutMs);
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
      db = new Database(file, { readonly: fileReadOnly, fileMustExist: fileReadOnly, timeout: timeoutMs });
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
    return openedSource(db, readOnly, { maxRows: config.maxRows ?? DEFAULT_MAX_ROWS, timeoutMs });
  },
};

/** Creates the database from the seed under a temporary name, then renames it into place. */
function seedDatabase(file: string, sql: string, timeoutMs: number): void {
  const temp = `${file}.seeding-${process.pid}`;
  rmSync(temp, { force: true });
  let db: Database.Database;
  try {
    db = new Database(temp, { timeout: timeoutMs });
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
  readOnly: boolean,
  defaults: { maxRows: number; timeoutMs: number },
): OpenedSource {
  // Statements come from the manifest (and from sql-query calls, hence the bound on the cache).
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

  const sql: SqlCapability = {
    dialect: 'sqlite',
    readOnly,
    defaults,
    check(statement) {
      try {
        prepare(renderSql(statement, () => '?'));
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    },
    columns(statement) {
      const stmt = prepare(renderSql(statement, () => '?'));
      if (!stmt.reader) return undefined;
      const columns = stmt.columns();
      const names = uniqueColumns(columns.map((c) => c.name));
      return columns.map((c, i) => ({ name: names[i]!, ...(c.type !== null && { type: c.type }) }));
    },
    async query(
      statement: SqlStatement,
      values: readonly unknown[],
      options: SqlQueryOptions,
    ): Promise<SqlResult> {
      if (values.length !== statement.params.length) {
        throw new Error(`expected ${statement.params.length} values, got ${values.length}`);
      }
      if (options.signal.aborted) throw new Error(CANCELLED_MESSAGE);
      const text = renderSql(statement, () => '?');
      const readsOnly = readOnly || options.readOnly === true;
      if (readsOnly) {
        const verdict = classifySql(text, 'sqlite');
        if (!verdict.read) throw new Error(readOnlyRefusal(verdict, readOnly));
      }
      const stmt = prepare(text);
      // SQLite's own verdict backs the classifier up: it knows what the compiled program does.
      if (readsOnly && !stmt.readonly) throw new Error(readOnly ? READ_ONLY_SOURCE_REFUSAL : WRITE_REFUSAL);
      const bound = values.map(bindable);
      if (!stmt.reader) {
        const { changes } = stmt.run(...bound);
        return { columns: [], rows: [], truncated: false, changes };
      }
      const columns = uniqueColumns(stmt.columns().map((c) => c.name));
      const raw: unknown[][] = [];
      let skip = options.offset ?? 0;
      let truncated = false;
      const deadline = Date.now() + options.timeoutMs;
      // Leaving the loop early (break or throw) resets the statement and releases its read lock.
      for (const row of stmt.raw(true).iterate(...bound)) {
        if (skip > 0) skip--;
        else if (raw.length >= options.maxRows) {
          truncated = true;
          break;
        } else raw.push(row as unknown[]);
        if (options.signal.aborted) throw new Error(CANCELLED_MESSAGE);
        if (Date.now() > deadline) throw new Error(timeoutMessage(options.timeoutMs));
      }
      return { columns, rows: rowObjects(columns, raw), truncated };
    },
    quoteIdentifier: quoteDoubled,
    schema: sqliteSchemaReader(db),
  };

  return {
    capabilities: { sql },
    async dispose() {
      try {
        if (db.open) db.close();
      } catch {
        // dispose never throws; a handle that cannot close is gone with the process anyway
      }
    },
  };
}

/** Booleans as 1/0, objects as JSON text, integers as SQLite INTEGER (a JS number binds as REAL). */
function bindable(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (typeof value === 'string' || typeof value === 'bigint' || value instanceof Uint8Array) return value;
  return JSON.stringify(value);
}
