/**
 * The in-process fast path of a SQLite read. Reads go to worker processes (pool.ts) because
 * better-sqlite3 cannot be interrupted: a statement that loops would hold the event loop for as long
 * as it loops. Some statements cannot loop at all, and for them the round trip to a worker is most of
 * what a call costs (a one-row lookup by key). This reader runs those, and only those, on the event
 * loop, on a read-only connection of its own:
 *
 * - SQLite's own program for the statement (`EXPLAIN`) is bounded: every opcode is one of a short
 *   list, each doing a bounded amount of work (seek in a b-tree, read a column, compare, emit a
 *   row), and its control flow has no cycle, so no opcode runs twice. A scan (`Next`), a function
 *   call (`randomblob(?)`), a sort, `count(*)`, a subquery, a virtual table or a recursive CTE is not
 *   on the list, nor is anything the list does not know: those go to a worker.
 * - The program that runs is the one that was checked. SQLite prepares a statement again when the
 *   schema changed (the cookie its Transaction opcode holds), or when a bound value may change the
 *   plan, which it considers only with `sqlite_stat4` samples (written by ANALYZE). So each read runs
 *   in a read transaction that first reads the schema cookie: when it moved, every plan is checked
 *   again; and no plan is fast while the database has a `sqlite_stat4` table.
 * - It never waits: the connection's busy timeout is 0, and a read that meets a lock (or any error)
 *   goes to a worker, which waits for the lock within the call's time limit and says what failed.
 * - A value is read whole before any budget can look at it, so a big one would hold the event loop
 *   while it is read (and the memory it takes): the first read that meets a row over BIG_ROW_BYTES
 *   turns this path off for the source, and every read after it goes to a worker, where a big
 *   value costs that worker only. Rows of that size are not what this path is for.
 *
 * A `:memory:` database lives in its worker and has no fast path.
 */
import type Database from 'better-sqlite3';
import { uniqueColumns } from '../result.js';
import { type ReadLimits, readRows, type WorkerQueryResult } from './read.js';

/** One instruction of an `EXPLAIN` listing. */
export interface Instruction {
  readonly opcode: string;
  readonly p1: number;
  readonly p2: number;
  readonly p3: number;
}

/** Opcodes that jump to P2 or go on to the next instruction; each does a bounded amount of work. */
const BRANCHES = new Set([
  'SeekRowid',
  'NotExists',
  'SeekGE',
  'SeekGT',
  'SeekLE',
  'SeekLT',
  'IdxGE',
  'IdxGT',
  'IdxLE',
  'IdxLT',
  'IsNull',
  'NotNull',
  'MustBeInt',
  'DecrJumpZero',
  'Once',
  'If',
  'IfNot',
  'Eq',
  'Ne',
  'Lt',
  'Le',
  'Gt',
  'Ge',
]);

/** Opcodes that go on to the next instruction; each does a bounded amount of work. */
const STEPS = new Set([
  'Transaction',
  'TableLock',
  'OpenRead',
  'ColumnsUsed',
  'CursorHint',
  'DeferredSeek',
  'Column',
  'Rowid',
  'IdxRowid',
  'NullRow',
  'Affinity',
  'RealAffinity',
  'Variable',
  'Integer',
  'Int64',
  'Real',
  'String8',
  'String',
  'Null',
  'Copy',
  'SCopy',
  'Move',
  'ResultRow',
  'Close',
  'Noop',
]);

/**
 * The addresses an instruction may go to next, or undefined when it is not one a bounded program
 * may hold.
 */
function successors(program: readonly Instruction[], at: number): readonly number[] | undefined {
  const { opcode, p2 } = program[at]!;
  if (opcode === 'Halt') return [];
  if (opcode === 'Init' || opcode === 'Goto') return [p2];
  if (STEPS.has(opcode)) return [at + 1];
  // MustBeInt with P2 0 fails instead of jumping.
  if (BRANCHES.has(opcode)) return p2 === 0 ? [at + 1] : [at + 1, p2];
  return undefined;
}

/**
 * Whether a program runs each of its instructions at most once, each doing bounded work: only
 * opcodes of the lists above, and no cycle in its control flow (a depth-first walk from the first
 * instruction meets no instruction that is still on its path).
 */
export function bounded(program: readonly Instruction[]): boolean {
  if (program.length === 0) return false;
  const ON_PATH = 1;
  const DONE = 2;
  const state = new Uint8Array(program.length);
  const path: { at: number; next: readonly number[]; i: number }[] = [];
  const enter = (at: number): boolean => {
    const next = successors(program, at);
    if (next === undefined || next.some((to) => !Number.isInteger(to) || to < 0 || to >= program.length)) {
      return false;
    }
    state[at] = ON_PATH;
    path.push({ at, next, i: 0 });
    return true;
  };
  if (!enter(0)) return false;
  while (path.length > 0) {
    const top = path[path.length - 1]!;
    if (top.i === top.next.length) {
      state[top.at] = DONE;
      path.pop();
      continue;
    }
    const to = top.next[top.i++]!;
    if (state[to] === ON_PATH) return false;
    if (state[to] === 0 && !enter(to)) return false;
  }
  return true;
}

/** A statement found bounded, ready to run. */
interface Plan {
  readonly stmt: Database.Statement<unknown[]>;
  readonly columns: readonly string[];
}

/** Plans (and statements found unbounded) kept per connection; sql-query texts would grow it forever. */
const MAX_PLANS = 500;
/** A row this big read here turns the path off for the source (see above). */
export const BIG_ROW_BYTES = 1024 * 1024;

export class InlineReader {
  /** Reads answered here, not by a worker (for tests and diagnostics). */
  served = 0;
  /** A read met a row over BIG_ROW_BYTES: every read goes to a worker from then on. */
  off = false;
  private conn: Database.Database | undefined;
  private readonly plans = new Map<string, Plan | null>();
  private readonly controls = new Map<string, Database.Statement>();
  /** The schema cookie the plans were checked under. */
  private cookie = -1;
  private stat4 = false;

  /** `open` opens the read-only connection, with a busy timeout of 0. */
  constructor(private readonly open: () => Database.Database) {}

  /** The rows of a read, or undefined when it must run in a worker. `values` are bound as they are. */
  read(text: string, values: readonly unknown[], limits: ReadLimits): WorkerQueryResult | undefined {
    if (this.off) return undefined;
    let conn: Database.Database;
    try {
      conn = this.connection();
      this.control(conn, 'BEGIN').run();
    } catch {
      return undefined;
    }
    try {
      const cookie = this.control(conn, 'PRAGMA schema_version').pluck().get() as number;
      if (cookie !== this.cookie) this.renew(conn, cookie);
      const plan = this.plan(conn, text, values);
      if (!plan) return undefined;
      const { value, largest } = readRows(
        plan.stmt.iterate(...values) as Iterable<unknown[]>,
        plan.columns,
        limits,
      );
      if (largest > BIG_ROW_BYTES) this.off = true;
      this.served++;
      return value;
    } catch {
      return undefined;
    } finally {
      this.end(conn);
    }
  }

  close(): void {
    try {
      this.conn?.close();
    } catch {
      // a handle that cannot close is gone with the process anyway
    }
    this.conn = undefined;
  }

  private connection(): Database.Database {
    if (!this.conn) {
      this.conn = this.open();
      this.plans.clear();
      this.controls.clear();
      this.cookie = -1;
    }
    return this.conn;
  }

  /**
   * The schema moved: every plan is checked again. Reading sqlite_schema also brings this
   * connection's copy of the schema up to date (a statement that finds its cookie stale makes SQLite
   * read the schema again), so the plans made next are made against the schema of this cookie.
   */
  private renew(conn: Database.Database, cookie: number): void {
    this.plans.clear();
    this.stat4 =
      this.control(
        conn,
        "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_stat4'",
      ).get() !== undefined;
    this.cookie = cookie;
  }

  private plan(conn: Database.Database, text: string, values: readonly unknown[]): Plan | undefined {
    const known = this.plans.get(text);
    if (known !== undefined) return known ?? undefined;
    const stmt = conn.prepare<unknown[]>(text);
    let plan: Plan | null = null;
    if (!this.stat4 && stmt.reader && stmt.readonly) {
      const program = conn.prepare(`EXPLAIN ${text}`).all(...values) as Instruction[];
      // Made against another schema than the cookie's: it would be prepared again when run.
      const transactions = program.filter((op) => op.opcode === 'Transaction');
      if (transactions.some((op) => op.p1 !== 0 || op.p3 !== this.cookie)) return undefined;
      if (bounded(program)) {
        stmt.raw(true);
        plan = { stmt, columns: uniqueColumns(stmt.columns().map((c) => c.name)) };
      }
    }
    if (this.plans.size >= MAX_PLANS) this.plans.delete(this.plans.keys().next().value as string);
    this.plans.set(text, plan);
    return plan ?? undefined;
  }

  /** Ends the read transaction; a connection that cannot end it is closed (its lock goes with it). */
  private end(conn: Database.Database): void {
    if (!conn.inTransaction) return;
    try {
      this.control(conn, 'COMMIT').run();
    } catch {
      this.close();
    }
  }

  /** BEGIN, COMMIT and the cookie and schema reads, prepared once per connection. */
  private control(conn: Database.Database, text: string): Database.Statement {
    let stmt = this.controls.get(text);
    if (!stmt) {
      stmt = conn.prepare(text);
      this.controls.set(text, stmt);
    }
    return stmt;
  }
}
