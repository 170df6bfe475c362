/**
 * Source `mysql`: a MySQL or MariaDB database through a `mysql2` connection pool, read-only by
 * default.
 *
 * Every call runs in its own transaction as a server-side prepared statement, so values are bound
 * and a second statement cannot ride along: a read is one autocommit transaction made read-only by
 * `SET TRANSACTION READ ONLY` just before it (the next transaction only); a write runs in
 * `START TRANSACTION READ WRITE` … COMMIT.
 * The time limit is enforced twice: by the server (`max_statement_time` on MariaDB,
 * `max_execution_time` on MySQL, set a little past the limit, once per connection and again after
 * a write or when another limit is asked) and by the client, which sends
 * `KILL QUERY <thread>` over a separate connection when the limit passes or the caller cancels.
 * Rows stream in; once the row cap is passed a read is killed rather than read to its end.
 *
 * When it opens, the source reads SHOW GRANTS FOR CURRENT_USER() (privilege.ts): an account with
 * FILE, SUPER, PROCESS, … gets no `sql-query` tool unless the source says
 * `allowPrivilegedRole: true`. Every connection releases its user locks (`RELEASE_ALL_LOCKS()`)
 * before it goes back to the pool, so no `GET_LOCK` outlives its call.
 *
 * @example
 * ```yaml
 * sources:
 *   shop:
 *     kind: mysql
 *     url: ${env:SHOP_DATABASE_URL}   # mysql://user:password@host:3306/shop
 *     timeoutMs: 3000
 * ```
 */

import type { Connection as CoreConnection } from 'mysql2';
import type mysql from 'mysql2/promise';
import { problems } from '../../../errors.js';
import type { OpenedSource, SourceKind, SqlResult } from '../../contract/kinds.js';
import { shareOf } from '../../contract/share.js';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_MS } from '../defaults.js';
import { catalogQuery, type EngineRun, engineCapability, type SqlEngine } from '../engine.js';
import { quoteBackticked } from '../identifiers.js';
import { markPrivileged, mysqlReasons } from '../privilege.js';
import { CANCELLED_MESSAGE, RowBudget, redactor, rowObjects, uniqueColumns } from '../result.js';
import { CANCEL_SETTLE_MS, QueryWatch, urlSecrets } from '../watch.js';
import { mysqlSchemaReader } from './schema.js';
import { mysqlSourceInfo } from './source.info.js';

export interface MysqlConfig {
  readonly url: string;
  readonly poolSize?: number;
  readonly timeoutMs?: number;
  readonly maxRows?: number;
  readonly maxBytes?: number;
  readonly readOnly?: boolean;
  readonly allowPrivilegedRole?: boolean;
}

/** How far past the client's limit the server's own is set. */
const GRACE_MS = 1000;
const ER_QUERY_INTERRUPTED = 1317;
/** The session limit (serverLimit's text) each open connection was last given; a write forgets it. */
const applied = new WeakMap<object, string>();

/** One call's limits: the engine interface's (the name kept short for the functions below). */
type Run = EngineRun;

export const mysqlSource: SourceKind<MysqlConfig> = {
  ...mysqlSourceInfo,

  async open(config, ctx) {
    // The driver loads only when a manifest uses it: it costs ~70 ms of start-up.
    const { default: driver } = await import('mysql2/promise');
    const readOnly = config.readOnly ?? true;
    const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxBytes = config.maxBytes ?? DEFAULT_MAX_BYTES;
    const redact = redactor(urlSecrets(config.url));
    const fail = (reason: string) => {
      ctx.error(['url'], problems.SOURCE_OPEN_FAILED(ctx.name, redact(reason)));
      return undefined;
    };
    const connection = { uri: config.url, connectTimeout: timeoutMs, charset: 'utf8mb4' };
    let pool: mysql.Pool;
    let mariadb: boolean;
    let account = '';
    let reasons: string[] = [];
    try {
      pool = driver.createPool({
        ...connection,
        // The pool is the server's: each of --workers N holds its share.
        connectionLimit: shareOf(config.poolSize ?? 5),
        multipleStatements: false,
        dateStrings: true,
        supportBigNumbers: true,
        // Statements are cached per connection; model-written queries would otherwise pile up.
        maxPreparedStatements: 100,
      });
    } catch (err) {
      return fail((err as Error).message);
    }
    try {
      const [rows] = await pool.query<mysql.RowDataPacket[]>('SELECT VERSION() AS version, DATABASE() AS db');
      if (!rows[0]?.db) {
        await pool.end();
        return fail('the URL names no database; end it with /<database name>');
      }
      mariadb = /mariadb/i.test(String(rows[0].version));
      const [grants] = await pool.query<mysql.RowDataPacket[]>({
        sql: 'SHOW GRANTS FOR CURRENT_USER()',
        rowsAsArray: true,
      });
      const [who] = await pool.query<mysql.RowDataPacket[]>('SELECT CURRENT_USER() AS account');
      account = String(who[0]?.account ?? '');
      reasons = mysqlReasons(grants.map((row) => String((row as unknown as unknown[])[0])));
    } catch (err) {
      await pool.end().catch(() => undefined);
      return fail((err as Error).message);
    }

    const kill = async (thread: number) => {
      try {
        const killer = await driver.createConnection(connection);
        await killer.query(`KILL QUERY ${Math.trunc(thread)}`).finally(() => killer.end());
      } catch (err) {
        ctx.log.warn(`source ${ctx.name}: cannot stop a query: ${redact((err as Error).message)}`);
      }
    };

    const run = async (text: string, values: readonly unknown[], o: Run): Promise<SqlResult> => {
      if (o.signal.aborted) throw new Error(CANCELLED_MESSAGE);
      let conn: mysql.PoolConnection;
      try {
        conn = await pool.getConnection();
      } catch (err) {
        throw new Error(`cannot reach the database: ${redact((err as Error).message)}`);
      }
      if (o.signal.aborted) {
        // Cancelled while it waited for a connection: the connection was never used.
        conn.release();
        throw new Error(CANCELLED_MESSAGE);
      }
      const thread = conn.threadId;
      const watch = new QueryWatch(
        o.signal,
        o.timeoutMs,
        o.timeoutMs,
        () => kill(thread),
        o.readOnly ? CANCEL_SETTLE_MS : 0,
      );
      let healthy = false;
      try {
        const core = (conn as unknown as { connection: CoreConnection }).connection;
        const stopAtCap = o.readOnly ? () => kill(thread) : undefined;
        const work = transaction(conn, core, serverLimit(mariadb, o.timeoutMs), text, values, o, stopAtCap);
        work.catch(() => undefined); // when abandoned, its late failure is of no interest
        const streamed = await Promise.race([work, watch.abandoned]);
        if (watch.reason) throw new Error('stopped after the end');
        watch.ended();
        // User locks (GET_LOCK) belong to the session, not the transaction: released before the
        // pool hands the connection on. (COM_RESET_CONNECTION would also drop the prepared
        // statements mysql2 keeps cached per connection.)
        if (!streamed.killed) await conn.query('DO RELEASE_ALL_LOCKS()');
        healthy = !streamed.killed;
        const { columns, rows, changes } = streamed;
        if (columns === undefined) return { columns: [], rows: [], truncated: false, changes: changes ?? 0 };
        return {
          columns,
          rows: rowObjects(columns, rows),
          truncated: streamed.truncated,
          ...(streamed.note !== undefined && { note: streamed.note }),
        };
      } catch (err) {
        await watch.finish();
        throw watch.error(err, redact);
      } finally {
        await watch.finish();
        // A connection a KILL was aimed at (the deadline's, while the locks were being released
        // too) is closed rather than handed to the next call.
        if (healthy && !watch.reason) conn.release();
        else conn.destroy();
      }
    };

    const engine: SqlEngine = {
      dialect: 'mysql',
      placeholder: () => '?',
      quoteIdentifier: quoteBackticked,
      run,
      schema: mysqlSchemaReader(catalogQuery(run, maxBytes, timeoutMs)),
    };
    const sql = engineCapability(engine, {
      readOnly,
      maxRows: config.maxRows ?? DEFAULT_MAX_ROWS,
      timeoutMs,
      maxBytes,
    });
    const allowed = config.allowPrivilegedRole === true;
    markPrivileged(sql, { role: account, reasons, allowed, dialect: 'mysql' });
    if (reasons.length > 0 && allowed) {
      ctx.log.warn(
        `source ${ctx.name}: account ${account} can escape read-only (${reasons.join('; ')}); served because allowPrivilegedRole is true`,
      );
    }
    const opened: OpenedSource = {
      capabilities: { sql },
      dispose: () => pool.end().catch(() => undefined),
      async ping() {
        try {
          await pool.query('SELECT 1');
        } catch (err) {
          throw new Error(`cannot reach the database: ${redact((err as Error).message)}`);
        }
      },
    };
    return opened;
  },
};

/** The server's own limit, set past the client's so that the client's KILL comes first. */
function serverLimit(mariadb: boolean, timeoutMs: number): string {
  const ms = Math.trunc(timeoutMs) + GRACE_MS;
  // Backslash escapes stay on, so the server reads strings as the classifier did.
  const mode = "sql_mode = REPLACE(@@sql_mode, 'NO_BACKSLASH_ESCAPES', '')";
  return mariadb
    ? `SET SESSION max_statement_time = ${ms / 1000}, ${mode}`
    : `SET SESSION max_execution_time = ${ms}, ${mode}`;
}

/** One call's transaction: the server's limit, the statement, the end (unless it was killed). */
async function transaction(
  conn: mysql.PoolConnection,
  core: CoreConnection,
  limit: string,
  text: string,
  values: readonly unknown[],
  o: Run,
  stopAtCap: (() => Promise<void>) | undefined,
): Promise<Streamed> {
  // A write may change any session setting: the limit is set again before the next call.
  if (!o.readOnly) applied.delete(core);
  if (applied.get(core) !== limit) {
    await conn.query(limit);
    if (o.readOnly) applied.set(core, limit);
  }
  if (o.readOnly) {
    // The statement is the next transaction (autocommit): read-only, and over when it ends.
    await conn.query('SET TRANSACTION READ ONLY');
    return stream(core, text, values, o, stopAtCap);
  }
  await conn.query('START TRANSACTION READ WRITE');
  // A write is read to its end so that it commits whole.
  const streamed = await stream(core, text, values, o, stopAtCap);
  if (!streamed.killed) await conn.query('COMMIT');
  return streamed;
}

interface Streamed {
  columns?: string[];
  rows: unknown[][];
  truncated: boolean;
  changes?: number;
  /** The query was killed at the row cap or the byte budget. */
  killed: boolean;
  /** Why the byte budget cut the rows. */
  note?: string;
}

/**
 * Runs one prepared statement, keeping rows `offset` to `offset + maxRows` as they stream in, under
 * the byte budget. A read stopped at either cap pauses the socket (no further row is parsed) and
 * ends once the KILL QUERY is answered, without waiting for the rows already in flight; its
 * connection is then closed. A single row is bounded by the server's max_allowed_packet.
 */
function stream(
  core: CoreConnection,
  text: string,
  values: readonly unknown[],
  o: Run,
  stopAtCap: (() => Promise<void>) | undefined,
): Promise<Streamed> {
  return new Promise((resolve, reject) => {
    const out: Streamed = { rows: [], truncated: false, killed: false };
    const budget = new RowBudget(o.maxBytes);
    let skip = o.offset;
    let stopping: Promise<void> | undefined;
    let settled = false;
    // mysql2 tells a connection reset (a server restart, a cut network) to the connection only,
    // not to the command in flight, which would then wait for ever: the call fails at once instead.
    const lost = (err?: { code?: string; message?: string }) =>
      finish(
        new Error(
          `the connection to the database was lost during the query (${err?.code ?? err?.message ?? 'closed'}); try again`,
        ),
      );
    core.once('error', lost);
    core.once('end', lost);
    const finish = (err?: unknown) => {
      if (settled) return;
      settled = true;
      core.off('error', lost);
      core.off('end', lost);
      Promise.resolve(stopping).then(() => (err ? reject(err) : resolve(out)));
    };
    const cmd = core.execute({ sql: text, values: values.map(bindable), rowsAsArray: true });
    // A statement without a result set still emits 'fields', with nothing.
    cmd.on('fields', (fields: { name: string }[] | undefined) => {
      if (fields) out.columns = uniqueColumns(fields.map((f) => f.name));
    });
    cmd.on('result', (row: unknown) => {
      if (!Array.isArray(row)) {
        out.changes = (row as { affectedRows?: number }).affectedRows;
      } else if (skip > 0) skip--;
      else if (out.truncated) return;
      else {
        const taken = out.rows.length < o.maxRows ? budget.take(row, out.rows.length) : undefined;
        if (taken !== undefined) out.rows.push(taken);
        // A row whose values were cut ends the read too: nothing after it would fit.
        if (taken !== undefined && budget.cut === undefined) return;
        out.truncated = true;
        const note = budget.note(out.rows.length);
        if (note !== undefined) out.note = note;
        if (stopAtCap) {
          out.killed = true;
          // No more rows are read off the socket: the connection is closed after the KILL.
          core.pause();
          stopping = stopAtCap();
          finish();
        }
      }
    });
    cmd.on('error', (err: { errno?: number }) =>
      finish(out.killed && err.errno === ER_QUERY_INTERRUPTED ? undefined : err),
    );
    cmd.on('end', () => finish());
  });
}

/** Booleans as 1/0 and objects as JSON text, as the other sources bind them. */
function bindable(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'object' && !(value instanceof Uint8Array)) return JSON.stringify(value);
  return value;
}
