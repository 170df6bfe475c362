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
 * The instance lives in a worker process of the source's own (worker.ts, host.ts), never in the
 * server's: DuckDB's memory_limit bounds its buffer manager only, and a string function allocates
 * outside it, so the server holds the worker's memory to a bound and kills it past the bound, or
 * when a query does not stop at its interrupt; the next call starts a fresh worker. In the worker,
 * queries run on DuckDB's threads, at most `poolSize` at once; at the time limit, or when the caller
 * cancels, the connection is interrupted (duckdb_interrupt) and the query stops in the engine. Rows
 * stream a chunk at a time and each row becomes JavaScript values only once the row and byte caps
 * still have room for it.
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
import { problems } from '../../../errors.js';
import type { KindContext, OpenedSource, SourceKind } from '../../contract/kinds.js';
import { processCount, shareOf } from '../../contract/share.js';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_MS } from '../defaults.js';
import { catalogQuery, catalogRun, type EngineRun, engineCapability, type SqlEngine } from '../engine.js';
import { quoteDoubled } from '../identifiers.js';
import { allowedFiles } from './files.js';
import { DuckdbHost } from './host.js';
import { DUCKDB_PACKAGE, duckdbInstallHint } from './install.js';
import { duckdbSchemaReader } from './schema.js';
import { DUCKDB_DEFAULTS, duckdbSourceInfo, sizeBytes } from './source.info.js';

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
 * classifier (the tests use it to show what the engine alone refuses), and its worker's host.
 */
export async function openDuckdb(
  config: DuckdbConfig,
  ctx: KindContext,
): Promise<{ opened: OpenedSource; engine: SqlEngine; host: DuckdbHost } | undefined> {
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

  const temp = await mkdtemp(join(tmpdir(), 'mcp-run-duckdb-'));
  // Spill files may be large: removed off the event loop.
  const removeTemp = () => rm(temp, { recursive: true, force: true }).catch(() => undefined);
  const file = config.path === undefined ? undefined : resolve(ctx.baseDir, config.path);
  // Memory, threads and connections are the server's: each of --workers N holds its share.
  const memoryLimit = memoryShare(config.memoryLimit ?? DUCKDB_DEFAULTS.memoryLimit);
  const poolSize = shareOf(config.poolSize ?? DUCKDB_DEFAULTS.poolSize);
  const maxBytes = config.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const tables = allowed.entries.filter((e) => e.table);
  const host = new DuckdbHost(
    {
      ...(file !== undefined && { file }),
      memoryLimit,
      threads: shareOf(config.threads ?? DUCKDB_DEFAULTS.threads),
      poolSize,
      maxTempSize: config.maxTempSize ?? DUCKDB_DEFAULTS.maxTempSize,
      isolation: {
        baseDir: ctx.baseDir,
        directories: allowed.directories,
        paths: allowed.paths,
        extensions: config.extensions ?? [],
      },
      tables: tables.map((t) => ({ name: t.name, pattern: t.pattern })),
    },
    temp,
    { memoryBytes: sizeBytes(memoryLimit), maxBytes, poolSize },
  );
  try {
    await host.open();
  } catch (err) {
    await host.close();
    await removeTemp();
    if (host.failure.notInstalled) {
      // At the source's `kind: duckdb`: the line that asks for the engine.
      const hint = duckdbInstallHint();
      ctx.error(['kind'], problems.SOURCE_ENGINE_NOT_INSTALLED(ctx.name, 'duckdb', DUCKDB_PACKAGE, hint));
      return undefined;
    }
    const at = host.failure.at;
    const reason = host.failure.failed || (err as Error).message;
    ctx.error(at !== undefined ? [at] : [], problems.SOURCE_OPEN_FAILED(ctx.name, reason));
    return undefined;
  }

  const reach = readable(
    allowed.directories,
    allowed.paths,
    tables.map((t) => t.name),
  );
  const engine: SqlEngine = {
    dialect: 'duckdb',
    placeholder: (index) => `$${index + 1}`,
    quoteIdentifier: quoteDoubled,
    run: (text, values, { signal, ...limits }: EngineRun) =>
      host.run(text, values, limits, signal).catch((err: Error) => {
        // A path refused: say what can be read, so the model's next query can.
        if (!/^Permission Error/.test(err.message)) throw err;
        const [first, ...context] = err.message.split('\n');
        throw new Error([`${first}. ${reach}.`, ...context].join('\n'));
      }),
    schema: duckdbSchemaReader(
      catalogQuery((text, values, o) => engine.run(text, values, o), maxBytes, timeoutMs),
      allowed.entries,
    ),
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
      await host.close();
      await removeTemp();
    },
    async ping(signal) {
      await engine.run('SELECT 1', [], catalogRun(maxBytes, timeoutMs, signal));
    },
    pool: () => host.stats(),
  };
  return { opened, engine, host };
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

/** This process's share of DuckDB's memory_limit (`--workers`), in MiB; the limit as written alone. */
function memoryShare(limit: string): string {
  const processes = processCount();
  if (processes === 1) return limit;
  return `${Math.max(1, Math.floor(sizeBytes(limit) / processes / 2 ** 20))}MiB`;
}
