/**
 * One statement of a DuckDB source, as its worker process (worker.ts) runs it: on a connection of
 * the pool, past DuckDB's parser and the prepared statement's type, its rows read under the call's
 * caps. At the time limit, or when the caller cancels, the connection is interrupted
 * (duckdb_interrupt) and the query stops in the engine; one that does not stop is the server's to
 * end, with the whole process (host.ts).
 */
import type { DuckDBConnection, DuckDBResult } from '@duckdb/node-api';
import type { SqlResult } from '../../contract/kinds.js';
import type { EngineRun } from '../engine.js';
import { RowBudget, rowObjects, uniqueColumns } from '../result.js';
import { QueryWatch } from '../watch.js';
import type { ReadParser } from './parser.js';
import type { ConnectionPool } from './pool.js';
import { READ_STATEMENTS, statementRefusal } from './settings.js';
import { bindValues, toJson } from './values.js';

/** A call's limits as the worker gets them: the time left of its limit, `deadlineMs`, besides the limit. */
export type WorkerRun = Omit<EngineRun, 'signal'> & { readonly deadlineMs: number };

export async function runOn(
  pool: ConnectionPool,
  parser: ReadParser,
  text: string,
  values: readonly unknown[],
  o: WorkerRun,
  signal: AbortSignal,
): Promise<SqlResult> {
  const conn = await pool.acquire(signal);
  const watch = new QueryWatch(signal, o.timeoutMs, o.deadlineMs, async () => conn.interrupt());
  try {
    const result = await statement(conn, parser, text, values, o);
    if (watch.reason) throw new Error('stopped after the end');
    return result;
  } catch (err) {
    throw watch.error(err, (t) => t);
  } finally {
    await watch.finish();
    pool.release(conn);
  }
}

async function statement(
  conn: DuckDBConnection,
  parser: ReadParser,
  text: string,
  values: readonly unknown[],
  o: WorkerRun,
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
async function readRows(result: DuckDBResult, o: WorkerRun): Promise<SqlResult> {
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
