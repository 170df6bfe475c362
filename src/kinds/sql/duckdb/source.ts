/**
 * Source `duckdb`: DuckDB (the official client, `@duckdb/node-api`) over data files, CSV, Parquet
 * and JSON, and an optional database file. It only reads.
 *
 * Isolation is the engine's own, set before the first query and locked (settings.ts):
 * `enable_external_access` off but for the declared `files` (allowed_directories, allowed_paths),
 * no extension installed or autoloaded (only the manifest's `extensions` load, at open), the
 * database file opened with access_mode READ_ONLY, `memory_limit` and `threads` from the manifest, a
 * private temporary folder with a size cap, and `lock_configuration` on, so no SET or PRAGMA changes
 * any of it. Before that, every statement passes two checks: the family's classifier (one read) and
 * DuckDB's own parser (the prepared statement's type must be a SELECT or an EXPLAIN), which also
 * stops a COPY … TO or an EXPORT into a declared folder, the one write the engine's settings allow.
 *
 * Queries run on DuckDB's threads; the client waits on libuv's pool, so the event loop is never
 * blocked. A connection pool (poolSize) bounds how many run at once. At the time limit, or when the
 * caller cancels, the connection is interrupted (duckdb_interrupt) and the query stops in the engine.
 * Rows stream a chunk at a time and each row becomes JavaScript values only once the row and byte
 * caps still have room for it.
 *
 * @example
 * ```yaml
 * sources:
 *   sales:
 *     kind: duckdb
 *     files: [./data]          # every file below ./data, nothing else
 *     memoryLimit: 256MB
 * ```
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { DuckDBConnection, DuckDBInstance, DuckDBResult } from '@duckdb/node-api';
import { problems } from '../../../errors.js';
import type { KindContext, OpenedSource, SourceKind, SqlResult } from '../../contract/kinds.js';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_MS } from '../defaults.js';
import { catalogQuery, catalogRun, type EngineRun, engineCapability, type SqlEngine } from '../engine.js';
import { quoteDoubled } from '../identifiers.js';
import { CANCELLED_MESSAGE, RowBudget, rowObjects, uniqueColumns } from '../result.js';
import { QueryWatch } from '../watch.js';
import { allowedFiles } from './files.js';
import { ReadParser } from './parser.js';
import { ConnectionPool } from './pool.js';
import { duckdbSchemaReader, fileLiteral } from './schema.js';
import { isolate, READ_STATEMENTS, statementRefusal } from './settings.js';
import { DUCKDB_DEFAULTS, duckdbSourceInfo } from './source.info.js';
import { bindValues, toJson } from './values.js';

export interface DuckdbConfig {
  readonly path?: string;
  readonly files?: readonly string[];
  readonly tables?: Readonly<Record<string, string>>;
  readonly extensions?: readonly string[];
  readonly memoryLimit?: string;
  readonly threads?: number;
  readonly poolSize?: number;
  readonly maxTempSize?: string;
  readonly timeoutMs?: number;
  readonly maxRows?: number;
  readonly maxBytes?: number;
}

export const duckdbSource: SourceKind<DuckdbConfig> = {
  ...duckdbSourceInfo,
  open: async (config, ctx) => (await openDuckdb(config, ctx))?.opened,
};

/**
 * Opens the source; besides the opened source, its engine, whose `run` takes a statement past the
 * classifier (the tests use it to show what the engine alone refuses).
 */
export async function openDuckdb(
  config: DuckdbConfig,
  ctx: KindContext,
): Promise<{ opened: OpenedSource; engine: SqlEngine } | undefined> {
  const { allowed, problems: missing } = await allowedFiles(
    ctx.baseDir,
    config.files ?? [],
    config.tables ?? {},
  );
  for (const { at, message } of missing) ctx.error(at, problems.SOURCE_OPEN_FAILED(ctx.name, message));
  if (config.path === undefined && allowed.entries.length === 0 && missing.length === 0) {
    ctx.error(
      [],
      problems.MANIFEST_INVALID_VALUE(
        'a duckdb source needs a database file (path), files to read (files) or tables over files (tables)',
        'add files: [./data] for the folder of your CSV, Parquet or JSON files',
      ),
    );
  }
  if (missing.length > 0 || (config.path === undefined && allowed.entries.length === 0)) return undefined;

  // The client loads only when a manifest uses it: its native module is 70 MB.
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const temp = await mkdtemp(join(tmpdir(), 'mcp-run-duckdb-'));
  // Spill files may be large: removed off the event loop.
  const removeTemp = () => rm(temp, { recursive: true, force: true }).catch(() => undefined);
  const file = config.path === undefined ? undefined : resolve(ctx.baseDir, config.path);
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(file ?? ':memory:', {
      ...(file !== undefined && { access_mode: 'READ_ONLY' }),
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      allow_community_extensions: 'false',
      allow_unsigned_extensions: 'false',
      memory_limit: config.memoryLimit ?? DUCKDB_DEFAULTS.memoryLimit,
      threads: String(config.threads ?? DUCKDB_DEFAULTS.threads),
      temp_directory: temp,
      max_temp_directory_size: config.maxTempSize ?? DUCKDB_DEFAULTS.maxTempSize,
    });
  } catch (err) {
    await removeTemp();
    ctx.error(
      file !== undefined ? ['path'] : [],
      problems.SOURCE_OPEN_FAILED(ctx.name, (err as Error).message),
    );
    return undefined;
  }
  try {
    await isolate(instance, {
      baseDir: ctx.baseDir,
      directories: allowed.directories,
      paths: allowed.paths,
      extensions: config.extensions ?? [],
    });
  } catch (err) {
    instance.closeSync();
    await removeTemp();
    ctx.error([], problems.SOURCE_OPEN_FAILED(ctx.name, (err as Error).message));
    return undefined;
  }

  const tables = allowed.entries.filter((e) => e.table);
  // Each table is a temporary view of every connection (a read-only database file takes no view).
  const connect = async () => {
    const conn = await instance.connect();
    try {
      for (const table of tables) {
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
  const pool = new ConnectionPool(connect, config.poolSize ?? DUCKDB_DEFAULTS.poolSize);
  // The first connection now: a table whose files cannot be read fails the open.
  try {
    pool.release(await pool.acquire(new AbortController().signal), true);
  } catch (err) {
    await pool.close();
    instance.closeSync();
    await removeTemp();
    ctx.error(['tables'], problems.SOURCE_OPEN_FAILED(ctx.name, (err as Error).message));
    return undefined;
  }
  const reach = readable(
    allowed.directories,
    allowed.paths,
    tables.map((t) => t.name),
  );
  const parser = new ReadParser();
  const maxBytes = config.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const run = (text: string, values: readonly unknown[], o: EngineRun) =>
    runOn(pool, parser, text, values, o).catch((err: Error) => {
      // A path refused: say what can be read, so the model's next query can.
      if (!/^Permission Error/.test(err.message)) throw err;
      const [first, ...context] = err.message.split('\n');
      throw new Error([`${first}. ${reach}.`, ...context].join('\n'));
    });
  const engine: SqlEngine = {
    dialect: 'duckdb',
    placeholder: (index) => `$${index + 1}`,
    quoteIdentifier: quoteDoubled,
    run,
    schema: duckdbSchemaReader(catalogQuery(run, maxBytes, timeoutMs), allowed.entries),
  };
  const sql = engineCapability(engine, {
    readOnly: true,
    maxRows: config.maxRows ?? DEFAULT_MAX_ROWS,
    timeoutMs,
    maxBytes,
  });
  const opened: OpenedSource = {
    capabilities: { sql },
    async dispose() {
      await pool.close();
      try {
        instance.closeSync();
      } catch {
        // closing twice, or a connection still busy: the instance goes with the process
      }
      await removeTemp();
    },
    async ping(signal) {
      await run('SELECT 1', [], catalogRun(maxBytes, timeoutMs, signal));
    },
    pool: () => pool.stats(),
  };
  return { opened, engine };
}

/** The sentence that says what a source can read. */
function readable(
  directories: readonly string[],
  paths: readonly string[],
  tables: readonly string[],
): string {
  const places = [...directories.map((d) => `${d}…`), ...paths];
  const files =
    places.length > 0 ? `the files ${places.join(', ')} (by absolute path)` : 'no file by its path';
  return `This source reads ${files}${tables.length > 0 ? ` and the tables ${tables.join(', ')}` : ''}, and nothing else`;
}

/** One statement on a connection of the pool, stopped by the engine at the limit or on cancel. */
async function runOn(
  pool: ConnectionPool,
  parser: ReadParser,
  text: string,
  values: readonly unknown[],
  o: EngineRun,
): Promise<SqlResult> {
  if (o.signal.aborted) throw new Error(CANCELLED_MESSAGE);
  const conn = await pool.acquire(o.signal);
  const watch = new QueryWatch(o.signal, o.timeoutMs, o.timeoutMs, async () => conn.interrupt());
  // A query that did not answer its interrupt still holds the connection: it is not reused.
  let abandoned = false;
  watch.abandoned.catch(() => {
    abandoned = true;
  });
  try {
    const work = statement(conn, parser, text, values, o);
    work.catch(() => undefined); // when abandoned, its late failure is of no interest
    const result = await Promise.race([work, watch.abandoned]);
    if (watch.reason) throw new Error('stopped after the end');
    return result;
  } catch (err) {
    await watch.finish();
    throw watch.error(err, (t) => t);
  } finally {
    await watch.finish();
    pool.release(conn, !abandoned);
  }
}

async function statement(
  conn: DuckDBConnection,
  parser: ReadParser,
  text: string,
  values: readonly unknown[],
  o: EngineRun,
): Promise<SqlResult> {
  // The second check, DuckDB's own parser, before anything is bound: a read is one SELECT.
  const refused = o.readOnly ? await parser.refusal(conn, text) : undefined;
  if (refused !== undefined) throw new Error(refused);
  const prepared = await conn.prepare(text);
  try {
    // The third: the prepared statement's type, as DuckDB's planner sees it.
    if (o.readOnly && !READ_STATEMENTS.has(prepared.statementType)) {
      throw new Error(statementRefusal(prepared.statementType));
    }
    bindValues(prepared, values);
    return await readRows(await prepared.stream(), o);
  } finally {
    prepared.destroySync();
  }
}

/**
 * The rows `offset` to `offset + maxRows` under the byte budget, a chunk at a time; each row is
 * converted only when it is kept, and reading stops at the first row past either cap.
 */
async function readRows(result: DuckDBResult, o: EngineRun): Promise<SqlResult> {
  const columns = uniqueColumns(result.columnNames());
  const budget = new RowBudget(o.maxBytes);
  const rows: unknown[][] = [];
  let skip = o.offset;
  let truncated = false;
  read: for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    for (let r = 0; r < chunk.rowCount; r++) {
      if (skip > 0) {
        skip--;
        continue;
      }
      if (rows.length >= o.maxRows) {
        truncated = true;
        break read;
      }
      const taken = budget.take(chunk.convertRowValues(r, toJson), rows.length);
      if (taken !== undefined) rows.push(taken);
      if (taken === undefined || budget.cut !== undefined) {
        truncated = true;
        break read;
      }
    }
  }
  const note = budget.note(rows.length);
  return { columns, rows: rowObjects(columns, rows), truncated, ...(note !== undefined && { note }) };
}
