/**
 * One SQL engine behind the `sql` capability: what differs between engines (how a value is bound,
 * how a statement runs and its rows stream, how the schema is read), with what every source does
 * the same way (the text rendered with the engine's placeholders, the read-only classifier, the
 * source's limits) written once in `engineCapability`.
 *
 * Each engine is a folder of its own (./sqlite/, ./duckdb/, …) that imports only this family root,
 * never another engine (.dependency-cruiser.cjs).
 */
import type { CallSignal } from '../../util/call-signal.js';
import type { SqlCapability, SqlResult, SqlSchemaReader, SqlStatement } from '../contract/kinds.js';
import { verdicts } from './classify.js';
import { renderSql } from './params.js';
import { readOnlyRefusal } from './result.js';

/** One call's limits, as the engine must enforce them while its rows arrive. */
export interface EngineRun {
  /** Only reads may run (the classifier has already said the text is one read). */
  readonly readOnly: boolean;
  /** The classifier read the text as a read that returns rows (SELECT, VALUES, …, not SHOW or EXPLAIN). */
  readonly rowSet: boolean;
  readonly maxRows: number;
  /** The byte budget (RowBudget), counted as rows arrive, before a row is kept. */
  readonly maxBytes: number;
  /** The engine stops the statement at this limit (its own interrupt, not an abandoned promise). */
  readonly timeoutMs: number;
  /** Rows to skip before the first one kept. */
  readonly offset: number;
  /** Aborting it stops the statement as the timeout does. */
  readonly signal: CallSignal;
}

/**
 * The limits of a read of the catalog (names and types, for the schema resources and tools): many
 * rows, and the budget of a whole catalog.
 */
export function catalogRun(maxBytes: number, timeoutMs: number, signal: CallSignal): EngineRun {
  return {
    readOnly: true,
    rowSet: true,
    maxRows: 100_000,
    maxBytes: Math.max(maxBytes, 64 * 1024 * 1024),
    timeoutMs,
    offset: 0,
    signal,
  };
}

/** Runs one read of the catalog with bound values and returns its rows (each engine's schema reader). */
export type CatalogQuery = (
  text: string,
  values: readonly unknown[],
  signal: CallSignal,
) => Promise<readonly Record<string, unknown>[]>;

/** The catalog query of a schema reader: `run` under the limits of a catalog read (catalogRun). */
export function catalogQuery(
  run: (text: string, values: readonly unknown[], limits: EngineRun) => Promise<SqlResult>,
  maxBytes: number,
  timeoutMs: number,
): CatalogQuery {
  return async (text, values, signal) =>
    (await run(text, values, catalogRun(maxBytes, timeoutMs, signal))).rows;
}

export interface SqlEngine {
  readonly dialect: string;
  /** The placeholder of the `index`-th bound value (0-based) in the engine's syntax: `$1`, `?`. */
  placeholder(index: number, name: string): string;
  quoteIdentifier(name: string): string;
  /** Runs one statement with its values bound, under the call's limits. */
  run(text: string, values: readonly unknown[], run: EngineRun): Promise<SqlResult>;
  readonly schema: SqlSchemaReader;
}

export interface EngineLimits {
  /** The source serves reads only. */
  readonly readOnly: boolean;
  readonly maxRows: number;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

/** The `sql` capability of an engine: the tools ask for it and never learn which engine it is. */
export function engineCapability(engine: SqlEngine, limits: EngineLimits): SqlCapability {
  const verdictOf = verdicts(engine.dialect);
  // The engine's text of a statement, made once per statement object (the manifest's are reused).
  const texts = new WeakMap<SqlStatement, string>();
  return {
    dialect: engine.dialect,
    readOnly: limits.readOnly,
    defaults: { maxRows: limits.maxRows, timeoutMs: limits.timeoutMs },
    query(statement, values, options) {
      if (values.length !== statement.params.length) {
        return Promise.reject(new Error(`expected ${statement.params.length} values, got ${values.length}`));
      }
      let text = texts.get(statement);
      if (text === undefined) {
        text = renderSql(statement, (index, name) => engine.placeholder(index, name));
        texts.set(statement, text);
      }
      const readsOnly = limits.readOnly || options.readOnly === true;
      const verdict = verdictOf(text);
      if (readsOnly && !verdict.read) {
        return Promise.reject(new Error(readOnlyRefusal(verdict, limits.readOnly, engine.dialect)));
      }
      return engine.run(text, values, {
        readOnly: readsOnly,
        rowSet: verdict.read && verdict.rowSet,
        maxRows: options.maxRows,
        maxBytes: limits.maxBytes,
        timeoutMs: options.timeoutMs,
        offset: options.offset ?? 0,
        signal: options.signal,
      });
    },
    quoteIdentifier: (name) => engine.quoteIdentifier(name),
    schema: engine.schema,
  };
}
