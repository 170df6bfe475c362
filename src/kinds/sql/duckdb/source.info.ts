/**
 * Source kind `duckdb`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that opens it, so a manifest that does not use it never
 * loads DuckDB's native module (../../builtin.ts). The kind itself: ./source.ts.
 */

import type { KindInfo } from '../../contract/kinds.js';
import { DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_MS, maxBytesSchema } from '../defaults.js';

export const DUCKDB_DEFAULTS = {
  memoryLimit: '512MB',
  threads: 2,
  poolSize: 2,
  maxTempSize: '1GB',
} as const;

/** A DuckDB size: a number and a unit, as `memory_limit` takes it. */
const SIZE = '^[0-9]+(\\.[0-9]+)?\\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$';

const UNITS: Readonly<Record<string, number>> = {
  B: 1,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  KiB: 2 ** 10,
  MiB: 2 ** 20,
  GiB: 2 ** 30,
  TiB: 2 ** 40,
};

/** A size as DuckDB reads it (`128MB` is 128 × 1000², `128MiB` 128 × 1024²), in bytes. */
export function sizeBytes(size: string): number {
  const [, number, unit] = /^([0-9.]+)\s*([A-Za-z]+)$/.exec(size) ?? [];
  return Number(number) * (UNITS[unit ?? ''] ?? Number.NaN);
}

export const duckdbSourceInfo: KindInfo = {
  kind: 'duckdb',
  description:
    'DuckDB over data files (CSV, Parquet, JSON) and an optional database file, read-only, for `sql` tools and `sql-schema` resources.',
  configSchema: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description:
          'A DuckDB database file, relative to the manifest folder, opened read-only (access_mode READ_ONLY). Leave it out for an in-memory database that only reads `files`.',
      },
      files: {
        type: 'array',
        minItems: 1,
        items: { type: 'string', minLength: 1 },
        description:
          "The folders, files or globs (`data/*.parquet`, `logs/**/*.json`) queries may read by absolute path (`FROM '/srv/data/x.csv'`), relative to the manifest folder here; nothing else on disk or on the network can be read. A glob opens the folder before its first wildcard. Each file or glob is listed in the schema with its columns.",
      },
      tables: {
        type: 'object',
        additionalProperties: { type: 'string', minLength: 1 },
        description:
          'Named views over a file or a glob, relative to the manifest folder (`sales: ./data/sales.parquet`): queries read `FROM sales`, and each is listed in the schema with its columns. Its files may be read as `files` are.',
      },
      extensions: {
        type: 'array',
        items: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' },
        description:
          'Extensions loaded when the source opens (already installed or built in, e.g. `icu`); nothing is installed, and no other extension loads later.',
      },
      memoryLimit: {
        type: 'string',
        pattern: SIZE,
        default: DUCKDB_DEFAULTS.memoryLimit,
        description:
          "DuckDB's memory_limit: a query that needs more spills to the temporary folder or fails. The process DuckDB runs in is killed past memoryLimit plus the result budgets, and the call fails (docs/kinds-sql.md).",
      },
      threads: {
        type: 'integer',
        minimum: 1,
        maximum: 64,
        default: DUCKDB_DEFAULTS.threads,
        description: 'Threads DuckDB runs a query on.',
      },
      poolSize: {
        type: 'integer',
        minimum: 1,
        maximum: 16,
        default: DUCKDB_DEFAULTS.poolSize,
        description:
          "Queries running at once (each holds one of Node's libuv threads while it runs); calls beyond it wait.",
      },
      maxTempSize: {
        type: 'string',
        pattern: SIZE,
        default: DUCKDB_DEFAULTS.maxTempSize,
        description:
          'Disk a query may spill to (max_temp_directory_size), in a private temporary folder removed when the source closes.',
      },
      timeoutMs: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_TIMEOUT_MS,
        description:
          'Default time limit of a query; DuckDB interrupts a query that runs longer, and one that does not stop within 3 s more is ended with its process.',
      },
      maxRows: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_MAX_ROWS,
        description: 'Default number of rows a query returns at most; tools may set their own.',
      },
      maxBytes: maxBytesSchema,
    },
    additionalProperties: false,
  },
};
