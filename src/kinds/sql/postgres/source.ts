/**
 * Source `postgres`: a PostgreSQL database through a `pg` connection pool, read-only by default.
 *
 * Every call runs in its own transaction (read-only unless the call may write) under its
 * statement_timeout, so the server itself stops a slow query; a client that cancels, or a server
 * that does not answer in time, gets a `pg_cancel_backend` from a separate connection.
 * A read-only row set from its first row is one round trip (pipeline.ts): BEGIN (READ ONLY where
 * the connection did not start read-only), the settings, the statement (its portal hands over at most maxRows + 1 rows), the release of any
 * session advisory lock and the ROLLBACK go behind one Sync, each prepared once per connection (a
 * named statement, so the server does not parse and plan it on every call). Other calls (writes,
 * continuation pages, statements that are not row sets) read through a cursor (`DECLARE … FETCH
 * n+1`, `MOVE` to skip rows on the server) in several round trips. The one-round-trip reads go
 * on a read lane where one has room (lanes.ts: several calls' reads on one connection at once,
 * half of the source's connections); the pool keeps the rest.
 *
 * Each pool connection starts with the source's defaults (statement_timeout = timeoutMs,
 * default_transaction_read_only on, standard_conforming_strings on, the declared schemas as search
 * path) in its `options` startup
 * parameter, after the URL's own (startup.ts), and is checked once that they are in force. On
 * such a connection a read begins with a plain BEGIN, and one whose timeout is the default skips the
 * settings step: the session already holds them, and nothing a call sets outlives it (below); a
 * write begins with BEGIN READ WRITE. A tool with its own timeoutMs, a
 * source with `role:` (SET ROLE is checked by the server on each call), and a connection whose
 * options a pooler dropped keep the step; a pooler that refuses the options gets none.
 *
 * @example
 * ```yaml
 * sources:
 *   crm:
 *     kind: postgres
 *     url: ${env:CRM_DATABASE_URL}
 *     schemas: [public, sales]   # what sql-schema shows (default: the search path)
 *     role: mcp_reader           # optional: every call runs as this role (SET LOCAL ROLE); not for sql-query
 * ```
 *
 * When it opens, the source inspects the effective role (privilege.ts): a role that can escape
 * read-only (superuser, pg_read_server_files, …) gets no `sql-query` tool unless the source says
 * `allowPrivilegedRole: true`; a source with `role:` gets none unless it says
 * `allowSqlQueryWithRole: true` (SQL run from a string can step back to the login, whose powers the
 * check then judges too). No advisory lock or setting outlives its call: a read-only call ends
 * in ROLLBACK, which undoes every SET and set_config of its transaction (session-level ones too),
 * after `pg_advisory_unlock_all()` (left out when the role can take no session-level lock: it can
 * execute no advisory lock function, no SECURITY DEFINER function and no extension's C function,
 * checked when the source opens); any other call resets its connection (`DISCARD ALL`, whose
 * RESET ALL goes back to the values the connection started with) before it goes back to the pool.
 * A call that fails closes its connection.
 */

import type pg from 'pg';
import { problems } from '../../../errors.js';
import type { OpenedSource, SourceKind, SqlResult } from '../../contract/kinds.js';
import { shareOf } from '../../contract/share.js';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_MS } from '../defaults.js';
import { catalogQuery, type EngineRun, engineCapability, type SqlEngine } from '../engine.js';
import {
  markPrivileged,
  markRoleSwitch,
  POSTGRES_DANGEROUS_ROLES,
  POSTGRES_GUARDED_FUNCTIONS,
  POSTGRES_LOCKLESS_QUERY,
  type PostgresRoleRow,
  postgresReasons,
  postgresRoleQuery,
  postgresSwitchReasons,
} from '../privilege.js';
import { CANCELLED_MESSAGE, RowBudget, redactor, rowObjects, uniqueColumns, valueBytes } from '../result.js';
import { CANCEL_SETTLE_MS, QueryWatch, urlSecrets } from '../watch.js';
import { type Lane, LaneLost, ReadLanes } from './lanes.js';
import {
  admitToPipelineMode,
  PgPipeline,
  type PipelineResult,
  type PipelineStep,
  PreparedStatements,
} from './pipeline.js';
import { postgresSchemaReader } from './schema.js';
import { postgresSourceInfo } from './source.info.js';
import {
  inForceQuery,
  mergeOptions,
  refusesOptions,
  type StartupSettings,
  startupOptions,
} from './startup.js';

export interface PostgresConfig {
  readonly url: string;
  readonly poolSize?: number;
  readonly timeoutMs?: number;
  readonly maxRows?: number;
  readonly maxBytes?: number;
  readonly readOnly?: boolean;
  readonly schemas?: readonly string[];
  readonly role?: string;
  readonly allowPrivilegedRole?: boolean;
  readonly allowSqlQueryWithRole?: boolean;
}

/** How long past statement_timeout the client waits before it cancels the query itself. */
const GRACE_MS = 1000;
/** Date and time types stay as the server writes them (no time-zone shift through JS Date). */
const TEXT_TYPES = new Set([1082, 1083, 1114, 1184, 1266, 1182, 1115, 1185]);
const INT8 = 20;
/**
 * A row whose bytes on the wire pass this many times the budget is not read to its end: the
 * connection is closed under it (pg would otherwise buffer the whole row, whatever its size).
 */
const UNREADABLE_FACTOR = 4;
/** Rows fetched at most per FETCH; the budget makes batches of big rows far smaller. */
const MAX_BATCH = 1000;
/** Statements one connection keeps prepared at most (pipelined reads, pipeline.ts). */
const MAX_PREPARED = 100;
/** statement_timeout's largest value; a longer timeoutMs is set (and refused) on each call. */
const MAX_TIMEOUT_MS = 2_147_483_647;
/** The server's refusal of a prepared statement whose result type a schema change altered. */
const STALE_PLAN = '0A000';

const typeParsers = (driver: typeof pg): pg.CustomTypesConfig => ({
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (TEXT_TYPES.has(oid)) return (value: string) => value;
    if (oid === INT8) return (value: string) => (Number.isSafeInteger(Number(value)) ? Number(value) : value);
    return driver.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
});

/**
 * The read lanes of a pool of `share` connections (lanes.ts): half of them, the pool keeping the
 * rest for writes, cursor reads and the reads the lanes cannot take. A pool of one has no lane.
 */
const lanesOf = (share: number): number => (share >= 2 ? Math.floor(share / 2) : 0);

/** One call's limits: the engine interface's (the name kept short for the functions below). */
type Run = EngineRun;

/** A call's outcome, and whether its connection can go back to the pool. */
interface Done {
  readonly result: SqlResult;
  /** The connection was closed under the read (a row far past the budget). */
  readonly broken: boolean;
  /** The session holds nothing of the call (it ended in ROLLBACK after releasing its locks). */
  readonly clean?: boolean;
}

/** What a call's transaction needs besides its statement. */
interface Session {
  readonly driver: typeof pg;
  readonly types: pg.CustomTypesConfig;
  /** `SET LOCAL` statements of the source (role, search path), fixed text. */
  readonly settings: readonly string[];
  /**
   * The same settings and the call's limits as one step of the pipeline: a `SELECT` of
   * `set_config(…, true)` (what `SET LOCAL` does, privilege checks included), its values bound.
   * `$1` is the call's statement_timeout, so one prepared text serves every timeout.
   */
  readonly limits: { readonly text: string; readonly values: readonly string[] };
  /**
   * The source's defaults, when its connections carry them from their start (startup.ts): a
   * call with this timeout on one of `connections` (checked when it connected) skips `limits`.
   */
  readonly preset: { readonly timeoutMs: number; readonly connections: WeakSet<object> } | undefined;
  readonly statements: PreparedStatements;
  /**
   * What ends a pipelined read: ROLLBACK, after `pg_advisory_unlock_all()` unless the role can take
   * no session-level lock (privilege.ts POSTGRES_LOCKLESS_QUERY, checked when the source opened).
   */
  readonly end: readonly string[];
}

export const postgresSource: SourceKind<PostgresConfig> = {
  ...postgresSourceInfo,

  async open(config, ctx) {
    // The driver loads only when a manifest uses it: it costs ~80 ms of start-up.
    const { default: driver } = await import('pg');
    const types = typeParsers(driver);
    const readOnly = config.readOnly ?? true;
    const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxBytes = config.maxBytes ?? DEFAULT_MAX_BYTES;
    const redact = redactor(urlSecrets(config.url));
    const fail = (err: unknown) => {
      ctx.error(
        ['url'],
        problems.SOURCE_OPEN_FAILED(ctx.name, redact((err as Error).message || String(err))),
      );
      return undefined;
    };
    const connection = { connectionString: config.url, connectionTimeoutMillis: timeoutMs, types };
    // Declared schemas are also where unqualified names resolve, as the schema resources show them.
    const schemaPath = config.schemas?.map((s) => driver.escapeIdentifier(s)).join(', ');
    // The source's session settings besides its timeout: in each connection's startup options
    // (startup.ts), and in a call's settings step where that step is needed.
    const sessionSettings: [string, string][] = [['standard_conforming_strings', 'on']];
    if (schemaPath !== undefined) sessionSettings.push(['search_path', schemaPath]);
    // The defaults each connection starts with. Not with a role: SET ROLE stays a step of every
    // call, so that the server checks the membership each time. Read-only by default, so that a
    // read there starts with a plain BEGIN (BEGIN READ ONLY sets transaction_read_only through the
    // settings machinery: a tenth of the backend's instructions per read); writes say READ WRITE.
    const defaults: StartupSettings = [
      ['statement_timeout', String(Math.trunc(timeoutMs))],
      ['default_transaction_read_only', 'on'],
      ...sessionSettings,
    ];
    const startup = {
      options: config.role || timeoutMs > MAX_TIMEOUT_MS ? undefined : startupOptions(defaults),
    };
    const preset = startup.options
      ? { timeoutMs: Math.trunc(timeoutMs), connections: new WeakSet() }
      : undefined;
    const check = inForceQuery(defaults);
    let warned = false;
    /** A pool connection that sends the defaults after the user's own options (the URL's, PGOPTIONS). */
    class StartupClient extends driver.Client {
      constructor(options?: string | pg.ClientConfig) {
        super(options);
        const params = (this as unknown as { connectionParameters: { options?: string } })
          .connectionParameters;
        if (startup.options) params.options = mergeOptions(params.options, startup.options);
      }
    }
    // The connections are the server's: each of --workers N holds its share, lanes and pool.
    const share = shareOf(config.poolSize ?? 5);
    /**
     * Once per connection, before its first call: are the defaults in force? A pooler may have
     * dropped them, or the user's own options overridden them; such a connection keeps the step.
     */
    const checkPreset = async (client: pg.ClientBase) => {
      if (!preset || !startup.options) return;
      const { rows } = await client.query<{ ok: boolean }>(check.text, check.values);
      if (rows[0]?.ok) preset.connections.add(client);
      else if (!warned) {
        warned = true;
        ctx.log.warn(
          `source ${ctx.name}: the connection options did not take effect (a pooler?); each call sets its limits`,
        );
      }
    };
    let pool: pg.Pool;
    try {
      pool = new driver.Pool({
        ...connection,
        max: share - lanesOf(share),
        idleTimeoutMillis: 10_000,
        ...(preset && {
          Client: StartupClient,
          onConnect: (client: pg.ClientBase) => checkPreset(client),
        }),
      });
    } catch (err) {
      return fail(err);
    }
    // An idle connection that dies (server restart) must not crash the process; the pool replaces it.
    pool.on('error', (err) => ctx.log.warn(`source ${ctx.name}: ${redact(err.message)}`));
    // A checked-out connection has no listener of the pool's: a server restart between two of a
    // call's statements ("terminating connection due to administrator command") would crash the
    // process. The call's next statement fails on it instead, and the connection is discarded.
    pool.on('connect', (client) => client.on('error', () => undefined));
    /** A new connection; a pooler that refuses startup options gets connections without them. */
    const tolerant = async <T>(open: () => Promise<T>): Promise<T> => {
      try {
        return await open();
      } catch (err) {
        if (!startup.options || !refusesOptions(err)) throw err;
        startup.options = undefined;
        ctx.log.warn(
          `source ${ctx.name}: the server refused the connection options (${redact((err as Error).message)}); each call sets its limits`,
        );
        return open();
      }
    };
    const connect = () => tolerant(() => pool.connect());
    admitToPipelineMode(driver.Query);
    const lanes = new ReadLanes(
      lanesOf(share),
      timeoutMs,
      () =>
        tolerant(async () => {
          const Client = preset ? StartupClient : driver.Client;
          const client = new Client({ ...connection, pipeline: true } as pg.ClientConfig);
          client.on('error', () => undefined);
          try {
            await client.connect();
            await checkPreset(client);
          } catch (err) {
            await client.end().catch(() => undefined);
            throw err;
          }
          return client;
        }),
      (err) => ctx.log.warn(`source ${ctx.name}: cannot open a read lane: ${redact((err as Error).message)}`),
      (pid) => cancel(pid),
    );
    // Calls run as `role` when one is set; SET LOCAL ends with each transaction.
    const asRole = config.role ? `SET LOCAL ROLE ${driver.escapeIdentifier(config.role)}` : undefined;
    let schemas: readonly string[];
    let roleRow: PostgresRoleRow | undefined;
    /** With `role:`, the login: SQL run from a string can return to it (privilege.ts). */
    let loginRow: PostgresRoleRow | undefined;
    let lockless = false;
    try {
      const client = await connect();
      try {
        await client.query(`BEGIN READ ONLY${asRole ? `; ${asRole}` : ''}`);
        const result = await client.query<{ schemas: string[] }>(
          'SELECT current_schemas(false)::text[] AS schemas',
        );
        schemas = config.schemas ?? result.rows[0]?.schemas ?? [];
        const missing = await client.query<{ name: string }>(
          'SELECT s AS name FROM unnest($1::text[]) s WHERE s NOT IN (SELECT nspname FROM pg_namespace)',
          [schemas],
        );
        if (missing.rows.length > 0) {
          throw new Error(
            `no schema ${missing.rows.map((r) => JSON.stringify(r.name)).join(', ')} in the database`,
          );
        }
        const inspect = async (of: 'current_user' | 'session_user') =>
          (
            await client.query<PostgresRoleRow>(postgresRoleQuery(of), [
              Object.keys(POSTGRES_DANGEROUS_ROLES),
              POSTGRES_GUARDED_FUNCTIONS,
            ])
          ).rows[0];
        roleRow = await inspect('current_user');
        if (config.role) loginRow = await inspect('session_user');
        // With `role:` the check would judge the read role, while a statement can reach the login's
        // own rights (set_config('role', 'none', true) inside query_to_xml's text): the unlock stays.
        lockless =
          config.role === undefined &&
          (await client.query<{ lockless: boolean }>(POSTGRES_LOCKLESS_QUERY)).rows[0]?.lockless === true;
        await client.query('ROLLBACK');
        client.release();
      } catch (err) {
        client.release(true);
        throw err;
      }
    } catch (err) {
      await pool.end().catch(() => undefined);
      return fail(err);
    }
    const searchPath = schemaPath !== undefined ? `SET LOCAL search_path TO ${schemaPath}` : undefined;
    const configs: [string, string][] = config.role
      ? [...sessionSettings, ['role', config.role]]
      : sessionSettings;
    const session: Session = {
      driver,
      types,
      settings: [asRole, searchPath].filter((s): s is string => s !== undefined),
      limits: {
        text: `SELECT ${['statement_timeout', ...configs.map(([name]) => name)].map((name, i) => `set_config('${name}', $${i + 1}, true)`).join(', ')}`,
        values: configs.map(([, value]) => value),
      },
      preset,
      statements: new PreparedStatements(MAX_PREPARED),
      end: lockless ? ['ROLLBACK'] : ['SELECT pg_advisory_unlock_all()', 'ROLLBACK'],
    };

    const cancel = async (pid: number) => {
      const client = new driver.Client(connection);
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('SELECT pg_cancel_backend($1)', [pid]);
      } catch (err) {
        ctx.log.warn(`source ${ctx.name}: cannot cancel a query: ${redact((err as Error).message)}`);
      } finally {
        await client.end().catch(() => undefined);
      }
    };

    const run = async (
      text: string,
      values: readonly unknown[],
      o: Run,
      again = true,
    ): Promise<SqlResult> => {
      if (o.signal.aborted) throw new Error(CANCELLED_MESSAGE);
      if (!Number.isSafeInteger(o.offset) || o.offset < 0) throw new Error(`invalid offset ${o.offset}`);
      const piped = o.readOnly && o.rowSet && o.offset === 0;
      const lane = piped ? await lanes.take() : undefined;
      if (lane) {
        const outcome = await onLane(lane, text, values, o, again);
        if (outcome === STALE_PLAN) return run(text, values, o, false);
        if (outcome !== undefined) return outcome;
      }
      let client: pg.PoolClient;
      try {
        client = await connect();
      } catch (err) {
        throw new Error(`cannot reach the database: ${redact((err as Error).message)}`);
      }
      if (o.signal.aborted) {
        // Cancelled while it waited for a connection: the connection was never used.
        client.release();
        throw new Error(CANCELLED_MESSAGE);
      }
      const pid = (client as unknown as { processID: number }).processID;
      const watch = new QueryWatch(
        o.signal,
        o.timeoutMs,
        o.timeoutMs + GRACE_MS,
        () => cancel(pid),
        o.readOnly ? CANCEL_SETTLE_MS : 0,
      );
      let healthy = false;
      try {
        const work = piped
          ? pipelined(session, client, text, values, o, (pipeline) => {
              client.query(pipeline as unknown as pg.QueryConfig);
              return pipeline.done;
            })
          : transaction(session, client, text, values, o);
        work.catch(() => undefined); // when abandoned, its late failure is of no interest
        const { result, broken, clean } = await Promise.race([work, watch.abandoned]);
        if (watch.reason) throw new Error('stopped after the end');
        watch.ended();
        if (broken) return result;
        // Back to a fresh session before the pool hands it on: session advisory locks, settings,
        // prepared statements and temporary tables do not outlive the call.
        if (!clean) {
          await client.query('DISCARD ALL');
          session.statements.forget(client);
        }
        healthy = true;
        return result;
      } catch (err) {
        await watch.finish();
        const code = (err as { code?: string }).code;
        if (code === '57014' && !watch.reason) watch.reason = 'timeout';
        if (!(piped && again && code === STALE_PLAN && !watch.reason)) throw watch.error(err, redact);
      } finally {
        await watch.finish();
        // A failed or cancelled call closes its connection (which ends its transaction) rather
        // than handing the pool one that a late cancel could still hit: a cancel sent (the
        // deadline's) while the session was being cleaned up too.
        client.release(healthy && !watch.reason ? undefined : true);
      }
      // A schema change altered what a prepared statement returns: prepare anew, and read once more.
      session.statements.renew();
      return run(text, values, o, false);
    };

    /**
     * One read on a lane: its result; STALE_PLAN when a schema change altered what a prepared
     * statement returns (read once more, prepared anew); undefined when it was lost with its lane
     * before its turn (lanes.ts LaneLost: run it on the pool).
     */
    const onLane = async (
      lane: Lane,
      text: string,
      values: readonly unknown[],
      o: Run,
      again: boolean,
    ): Promise<SqlResult | typeof STALE_PLAN | undefined> => {
      if (o.signal.aborted) {
        lanes.release(lane, true);
        throw new Error(CANCELLED_MESSAGE);
      }
      let read: PgPipeline | undefined;
      let cancelOnTurn = false;
      let letGo!: (err: Error) => void;
      const waiting = new Promise<never>((_, reject) => {
        letGo = reject;
      });
      waiting.catch(() => undefined);
      // A cancel stops whatever runs on the lane's backend: the lane goes with it, and the reads
      // behind this one run again on the pool. A read still waiting for its turn is not running:
      // the call is let go at once, and its read is cancelled when its turn comes.
      const stop = async () => {
        if (read && lanes.running(lane) === read) {
          lanes.retire(lane, read);
          return cancel(lane.pid);
        }
        cancelOnTurn = true;
        letGo(new Error('let go before its turn'));
      };
      const onTurn = () => {
        if (cancelOnTurn) void stop();
      };
      const watch = new QueryWatch(o.signal, o.timeoutMs, o.timeoutMs + GRACE_MS, stop, CANCEL_SETTLE_MS);
      try {
        const work = pipelined(session, lane.client, text, values, o, (pipeline) => {
          read = pipeline;
          return lanes.run(lane, pipeline, onTurn);
        });
        work.catch(() => undefined); // when abandoned, its late failure is of no interest
        const { result } = await Promise.race([work, watch.abandoned, waiting]);
        if (watch.reason) throw new Error('stopped after the end');
        return result;
      } catch (err) {
        await watch.finish();
        if (err instanceof LaneLost && !watch.reason) return undefined;
        const code = (err as { code?: string }).code;
        if (code === '57014' && !watch.reason) watch.reason = 'timeout';
        if (again && code === STALE_PLAN && !watch.reason) {
          session.statements.renew();
          return STALE_PLAN;
        }
        throw watch.error(err, redact);
      } finally {
        await watch.finish();
        // A read written gives its place back when it settles (lanes.run).
        if (!read) lanes.release(lane, true);
      }
    };

    const engine: SqlEngine = {
      dialect: 'postgres',
      placeholder: (i) => `$${i + 1}`,
      quoteIdentifier: driver.escapeIdentifier,
      run,
      schema: postgresSchemaReader(catalogQuery(run, maxBytes, timeoutMs), schemas),
    };
    const sql = engineCapability(engine, {
      readOnly,
      maxRows: config.maxRows ?? DEFAULT_MAX_ROWS,
      timeoutMs,
      maxBytes,
    });
    if (roleRow) {
      // Under role:, ad-hoc SQL reaches the login too; only with the opt-in is it served at all.
      const login = loginRow && loginRow.role !== roleRow.role ? loginRow : undefined;
      const withRole = login !== undefined && config.allowSqlQueryWithRole === true;
      if (login) markRoleSwitch(sql, { role: roleRow.role, login: login.role, allowed: withRole });
      const reasons = withRole ? postgresSwitchReasons(roleRow, login) : postgresReasons(roleRow);
      const allowed = config.allowPrivilegedRole === true;
      markPrivileged(sql, {
        role: roleRow.role,
        ...(withRole && { login: login.role }),
        reasons,
        allowed,
        dialect: 'postgres',
      });
      if (withRole) {
        ctx.log.warn(
          `source ${ctx.name}: sql-query can step back from role "${roleRow.role}" to the login "${login.role}" and read what it can; served because allowSqlQueryWithRole is true`,
        );
      }
      if (reasons.length > 0 && allowed) {
        ctx.log.warn(
          `source ${ctx.name}: role "${roleRow.role}" can escape read-only (${reasons.join('; ')}); served because allowPrivilegedRole is true`,
        );
      }
    }
    const opened: OpenedSource = {
      capabilities: { sql },
      dispose: async () => {
        await lanes.close();
        await pool.end().catch(() => undefined);
      },
      async ping() {
        try {
          await pool.query('SELECT 1');
        } catch (err) {
          throw new Error(`cannot reach the database: ${redact((err as Error).message)}`);
        }
      },
      pool: () => ({
        total: pool.totalCount + lanes.count,
        idle: pool.idleCount + lanes.idle,
        waiting: pool.waitingCount,
      }),
    };
    return opened;
  },
};

/**
 * The start of every transaction: fixed text, integers and identifiers quoted by escapeIdentifier.
 * standard_conforming_strings is set so that the server reads strings as the classifier did.
 */
function opening(session: Session, o: Run): string[] {
  return [
    // READ WRITE: the connection may have started read-only (its defaults, startup.ts).
    o.readOnly ? 'BEGIN READ ONLY' : 'BEGIN READ WRITE',
    `SET LOCAL statement_timeout = ${Math.trunc(o.timeoutMs)}`,
    'SET LOCAL standard_conforming_strings = on',
    ...session.settings,
  ];
}

/**
 * A read-only row set from its first row, in one round trip (pipeline.ts). Rows are kept as
 * they arrive, under the byte budget; once the budget has cut the result, the connection is closed
 * under the rows still coming if they pass the budget again (what crosses the network stays
 * bounded by about twice the budget, plus the one-row guard of `guardSocket`).
 */
async function pipelined(
  session: Session,
  client: pg.ClientBase,
  text: string,
  values: readonly unknown[],
  o: Run,
  submit: (pipeline: PgPipeline) => Promise<PipelineResult>,
): Promise<Done> {
  const budget = new RowBudget(o.maxBytes);
  const kept: unknown[][] = [];
  let truncated = false;
  const prepared = session.statements.on(client);
  const step = (text: string, values?: readonly unknown[]): PipelineStep => ({
    text,
    values,
    name: session.statements.name(text, prepared),
  });
  // A connection checked to carry the defaults starts read-only: a plain BEGIN is a read-only
  // transaction there (nothing a call sets outlives it, so the default stands). The limits step is
  // left out only where the call's timeout is the one the connection started with.
  const { preset } = session;
  const started = preset !== undefined && preset.connections.has(client);
  const begin = step(started ? 'BEGIN' : 'BEGIN READ ONLY');
  const atDefaults = started && Math.trunc(o.timeoutMs) === preset.timeoutMs;
  const pipeline = new PgPipeline({
    before: atDefaults
      ? [begin]
      : [begin, step(session.limits.text, [String(Math.trunc(o.timeoutMs)), ...session.limits.values])],
    statement: step(text, values),
    after: session.end.map((text) => step(text)),
    limit: o.maxRows + 1,
    types: session.types,
    prepared,
    described: session.statements.described(client),
    prepareValue: (session.driver as unknown as { utils: { prepareValue(v: unknown): unknown } }).utils
      .prepareValue,
    onRow: (row) => {
      guard.row();
      if (truncated) {
        guard.overflowing();
        return;
      }
      const taken = kept.length < o.maxRows ? budget.take(row, kept.length) : undefined;
      if (taken !== undefined) kept.push(taken);
      if (taken === undefined || budget.cut !== undefined) truncated = true;
    },
  });
  // On a lane the socket carries the other reads' answers too: count the bytes of this one's.
  const guard = guardSocket(client, o.maxBytes, budget, () => pipeline.begun && !pipeline.finished);
  let fields: readonly { name: string }[] = [];
  try {
    const done = await submit(pipeline);
    fields = done.fields;
    if (done.suspended) truncated = true;
  } catch (err) {
    if (!guard.broken) throw err;
    fields = pipeline.columns;
  } finally {
    guard.stop();
  }
  if (guard.broken) truncated = true;
  if (fields.length === 0 && kept.length === 0 && !guard.broken) {
    return { result: { columns: [], rows: [], truncated: false, changes: 0 }, broken: false, clean: true };
  }
  const columns = uniqueColumns(fields.map((f) => f.name));
  const note = budget.note(kept.length);
  return {
    result: { columns, rows: rowObjects(columns, kept), truncated, ...(note !== undefined && { note }) },
    broken: guard.broken,
    clean: true,
  };
}

/**
 * Watches the bytes a read takes off the socket: a row whose bytes pass UNREADABLE_FACTOR × the
 * budget (`row()` is called at each row), or rows after the cut that pass the budget again
 * (`overflowing()`), close the connection under the read. pg would otherwise buffer the whole row.
 */
function guardSocket(client: pg.ClientBase, maxBytes: number, budget: RowBudget, reading = () => true) {
  const socket = (client as unknown as { connection: { stream: NodeJS.EventEmitter & { destroy(): void } } })
    .connection.stream;
  let sinceRow = 0;
  let sinceCut = -1;
  const state = {
    broken: false,
    row() {
      sinceRow = 0;
    },
    overflowing() {
      if (sinceCut < 0) sinceCut = 0;
    },
    stop() {
      socket.off('data', onData);
    },
  };
  const breakUnder = () => {
    state.broken = true;
    // The client reports the closed connection as an error too; the caller discards it.
    client.on('error', () => undefined);
    socket.destroy();
  };
  const onData = (chunk: Buffer) => {
    if (state.broken || !reading()) return;
    sinceRow += chunk.length;
    if (sinceCut >= 0) sinceCut += chunk.length;
    if (sinceRow > UNREADABLE_FACTOR * maxBytes + 65536) {
      budget.unreadable();
      breakUnder();
    } else if (sinceCut > maxBytes + 65536) breakUnder();
  };
  socket.on('data', onData);
  return state;
}

/** One call's transaction: its limits, the statement (through a cursor for a row set), the end. */
async function transaction(
  session: Session,
  client: pg.PoolClient,
  text: string,
  values: readonly unknown[],
  o: Run,
): Promise<Done> {
  // Several statements in one simple-protocol round trip.
  await client.query(opening(session, o).join('; '));
  const { driver } = session;
  if (o.rowSet) {
    await client.query({
      text: `DECLARE mcp_run_rows NO SCROLL CURSOR FOR ${text}`,
      values: [...values],
      queryMode: 'extended',
    } as pg.QueryConfig);
    if (o.offset > 0) await client.query(`MOVE FORWARD ${o.offset} IN mcp_run_rows`);
    const read = await readCursor(driver, client, o);
    if (!read.broken) await client.query(o.readOnly ? 'ROLLBACK' : 'COMMIT');
    return read;
  }
  // Extended protocol even without values: it refuses a second statement in the text.
  const result = await client.query({
    text,
    values: [...values],
    rowMode: 'array',
    queryMode: 'extended',
  } as pg.QueryConfig);
  await client.query(o.readOnly ? 'ROLLBACK' : 'COMMIT');
  const changes = result.rowCount ?? 0;
  if (result.fields.length === 0)
    return { result: { columns: [], rows: [], truncated: false, changes }, broken: false };
  const columns = uniqueColumns(result.fields.map((f) => f.name));
  const budget = new RowBudget(o.maxBytes);
  const kept: unknown[][] = [];
  let truncated = false;
  for (const row of (result.rows as unknown[][]).slice(o.offset)) {
    const taken = kept.length < o.maxRows ? budget.take(row, kept.length) : undefined;
    if (taken !== undefined) kept.push(taken);
    if (taken === undefined || budget.cut !== undefined) {
      truncated = true;
      break;
    }
  }
  const note = budget.note(kept.length);
  return {
    result: { columns, rows: rowObjects(columns, kept), truncated, ...(note !== undefined && { note }) },
    broken: false,
  };
}

/**
 * Reads the cursor's rows in batches sized by the byte budget (one row first, then as many as the
 * biggest row seen so far leaves room for), keeping each row only if it fits: pg hands each row
 * over as it is parsed and holds none of them, so memory is the kept rows plus the one being read.
 * A row whose bytes on the wire pass UNREADABLE_FACTOR × the budget closes the connection under it.
 */
async function readCursor(driver: typeof pg, client: pg.PoolClient, o: Run): Promise<Done> {
  const budget = new RowBudget(o.maxBytes);
  const kept: unknown[][] = [];
  let fields: { name: string }[] = [];
  let truncated = false;
  let biggest = 0;
  let batch = 1;
  const guard = guardSocket(client, o.maxBytes, budget);
  try {
    while (!truncated) {
      const n = Math.min(batch, o.maxRows + 1 - kept.length);
      let got = 0;
      const query = new driver.Query({
        text: `FETCH FORWARD ${n} FROM mcp_run_rows`,
        rowMode: 'array',
      } as pg.QueryConfig);
      query.on('row', (row: unknown[], result?: { fields: { name: string }[] }) => {
        guard.row();
        if (result) fields = result.fields;
        got++;
        let size = 0;
        for (const value of row) size += valueBytes(value);
        biggest = Math.max(biggest, size);
        if (truncated) return;
        const taken = kept.length < o.maxRows ? budget.take(row, kept.length) : undefined;
        if (taken !== undefined) kept.push(taken);
        // A row whose values were cut ends the read too: nothing after it would fit.
        if (taken === undefined || budget.cut !== undefined) truncated = true;
      });
      const done = new Promise<void>((resolve, reject) => {
        query.on('end', (result: pg.QueryResult) => {
          fields = result.fields;
          resolve();
        });
        query.on('error', reject);
      });
      guard.row();
      client.query(query);
      try {
        await done;
      } catch (err) {
        if (guard.broken) break;
        throw err;
      }
      if (got < n) break;
      const left = o.maxBytes - budget.used;
      batch = Math.max(1, Math.min(MAX_BATCH, batch * 4, Math.floor(left / Math.max(biggest, 1))));
    }
  } finally {
    guard.stop();
  }
  const { broken } = guard;
  if (broken) truncated = true;
  if (fields.length === 0 && kept.length === 0 && !broken) {
    return { result: { columns: [], rows: [], truncated: false, changes: 0 }, broken };
  }
  const columns = uniqueColumns(fields.map((f) => f.name));
  const note = budget.note(kept.length);
  return {
    result: { columns, rows: rowObjects(columns, kept), truncated, ...(note !== undefined && { note }) },
    broken,
  };
}
