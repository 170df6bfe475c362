/**
 * The SQLite worker: a child process (started by pool.ts) holding one better-sqlite3
 * connection. It answers one request at a time over its own channel (fd 3 in, fd 4 out); the
 * server's event loop never waits on SQLite, and a query that must be stopped is stopped by killing
 * this process.
 *
 * A child process, not a worker thread: better-sqlite3 has no interrupt, and `worker.terminate()`
 * cannot stop a thread that is inside `sqlite3_step` (a recursive CTE never returns to JavaScript),
 * so the thread would spin on and `process.exit` would wait for it forever. A process can be killed;
 * SQLite's journal makes that safe for the database file.
 *
 * The channel is newline-delimited JSON (JSON text never holds a raw newline): requests on fd 3,
 * answers on fd 4, two sockets the pool made for this process (one each way:
 * ../worker-process.ts says why), read and written with blocking calls. The worker has nothing else to wait for, so it sleeps
 * in `read` and wakes straight into the next batch, without a turn of an event loop or node's IPC
 * machinery on either side (half the round trip of `process.send`). The first line is the
 * WorkerInit; every line after it a batch. When the server goes away its request socket reads end
 * of file, and the worker exits.
 *
 * Rows are read under the budgets of read.ts, the deadline checked before a query starts and
 * after each row.
 *
 * A message holds a batch of requests (the pool sends several reads at once when they queue up:
 * one write and one wake-up each way for all of them), run in order. Their answers go back together,
 * or sooner once they hold more than FLUSH_BYTES, so a batch never holds more than one big result.
 * A request whose deadline passed while it waited is answered with its timeout, not run.
 */
import { readSync, writeSync } from 'node:fs';
import Database from 'better-sqlite3';
import { LineFramer } from '../../../util/line-framer.js';
import { READ_ONLY_SOURCE_REFUSAL, timeoutMessage, uniqueColumns } from '../result.js';
import { type ReadLimits, readRows, type WorkerQueryResult } from './read.js';
import { sqliteSchemaReader } from './schema.js';
import { ANSWER_FD, bindValue, packRow, REQUEST_FD, WORKER_ARG } from './wire.js';

export interface WorkerInit {
  readonly op: 'init';
  readonly file: string;
  readonly readOnly: boolean;
  readonly memory: boolean;
  readonly timeoutMs: number;
  /** Run first on a :memory: database (each worker has its own). */
  readonly seedSql?: string;
}

export type WorkerRequest =
  | (ReadLimits & {
      readonly id: number;
      readonly op: 'query';
      readonly text: string;
      readonly values: readonly unknown[];
      /** The statement must be a read (SQLite's own verdict on the prepared statement). */
      readonly readsOnly: boolean;
    })
  | { readonly id: number; readonly op: 'tables' }
  | { readonly id: number; readonly op: 'describe'; readonly name: string };

/** The answers to a batch come back as an array of these, in the batch's order. */
export type WorkerResponse =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly message: string };

/** Prepared statements kept per connection; model-written queries (sql-query) would grow it forever. */
const MAX_PREPARED = 500;
/** Answers of a batch are sent once they hold about this many bytes of values, not at its end only. */
const FLUSH_BYTES = 64 * 1024;
const WRITE_REFUSAL = 'refused: this statement writes, and this tool only reads';

/** A prepared statement with what every run of it asks (each a call into the native module). */
interface Prepared {
  readonly stmt: Database.Statement<unknown[]>;
  readonly reader: boolean;
  readonly readonly: boolean;
  /** The unique column names of a reader. */
  readonly columns: readonly string[];
}

function openConnection(init: WorkerInit): Database.Database {
  const fileReadOnly = init.readOnly && !init.memory;
  // The server opened (and, with a seed, created) the file before starting any worker.
  const db = new Database(init.file, {
    readonly: fileReadOnly,
    fileMustExist: !init.memory,
    timeout: init.timeoutMs,
  });
  if (init.memory) {
    if (init.seedSql !== undefined) db.exec(init.seedSql);
    if (init.readOnly) db.pragma('query_only = ON');
  }
  return db;
}

function serve(): void {
  let db: Database.Database | undefined;
  let openError: string | undefined;
  let refusal = WRITE_REFUSAL;
  const prepared = new Map<string, Prepared>();
  const prepare = (conn: Database.Database, text: string): Prepared => {
    let entry = prepared.get(text);
    if (!entry) {
      const stmt = conn.prepare<unknown[]>(text);
      const reader = stmt.reader;
      // Raw rows (arrays) once and for all: the statement is only ever run by `query`.
      if (reader) stmt.raw(true);
      entry = {
        stmt,
        reader,
        readonly: stmt.readonly,
        columns: reader ? uniqueColumns(stmt.columns().map((c) => c.name)) : [],
      };
      if (prepared.size >= MAX_PREPARED) prepared.delete(prepared.keys().next().value as string);
      prepared.set(text, entry);
    }
    return entry;
  };

  /** The result, and the bytes of values it holds. */
  const query = (
    conn: Database.Database,
    r: WorkerRequest & { op: 'query' },
  ): { value: WorkerQueryResult; bytes: number } => {
    if (Date.now() > r.deadline) throw new Error(timeoutMessage(r.timeoutMs));
    const { stmt, reader, readonly, columns } = prepare(conn, r.text);
    const values = r.values.map(bindValue);
    // SQLite's own verdict backs the classifier up: it knows what the compiled program does.
    if (r.readsOnly && !readonly) throw new Error(refusal);
    if (!reader) {
      const { changes } = stmt.run(...values);
      return { value: { columns: [], rows: [], truncated: false, changes }, bytes: 0 };
    }
    const read = readRows(stmt.iterate(...values) as Iterable<unknown[]>, columns, r);
    for (const row of read.value.rows) packRow(row as unknown[]);
    return read;
  };

  /** The answer to a request, and the bytes of values it holds (toward FLUSH_BYTES). */
  const answer = (
    r: WorkerRequest,
  ): { response: WorkerResponse; bytes: number } | Promise<{ response: WorkerResponse; bytes: number }> => {
    try {
      if (!db) throw new Error(openError ?? 'the SQLite worker was not initialised');
      if (r.op === 'query') {
        const { value, bytes } = query(db, r);
        return { response: { id: r.id, ok: true, value }, bytes };
      }
      return schema(db, r);
    } catch (err) {
      return failed(r, err);
    }
  };
  const failed = (r: WorkerRequest, err: unknown) => ({
    response: { id: r.id, ok: false, message: (err as Error).message } as const,
    bytes: 0,
  });
  const schema = async (conn: Database.Database, r: WorkerRequest & { op: 'tables' | 'describe' }) => {
    try {
      // The reader's methods are synchronous underneath; here they block only this process.
      const reader = sqliteSchemaReader(conn);
      const signal = new AbortController().signal;
      const value = r.op === 'tables' ? await reader.tables(signal) : await reader.describe(r.name, signal);
      return { response: { id: r.id, ok: true, value } as const, bytes: FLUSH_BYTES };
    } catch (err) {
      return failed(r, err);
    }
  };

  const send = (answers: readonly WorkerResponse[]) => writeAll(`${JSON.stringify(answers)}\n`);

  const run = async (batch: readonly WorkerRequest[]) => {
    let answers: WorkerResponse[] = [];
    let bytes = 0;
    const together = db !== undefined && batch.length > 1 && batch.every(isRead);
    if (together) begin(db!);
    try {
      for (const request of batch) {
        // A query is answered synchronously; only a schema read is awaited.
        let a = answer(request);
        if (a instanceof Promise) a = await a;
        answers.push(a.response);
        bytes += a.bytes;
        if (bytes >= FLUSH_BYTES) {
          send(answers);
          answers = [];
          bytes = 0;
        }
      }
    } finally {
      if (together) end(db!);
    }
    if (answers.length > 0) send(answers);
  };

  const start = (init: WorkerInit) => {
    if (init.readOnly) refusal = READ_ONLY_SOURCE_REFUSAL;
    try {
      db = openConnection(init);
    } catch (err) {
      openError = `the SQLite worker could not open the database: ${(err as Error).message}`;
    }
  };

  // Lines in the order they came, each run to its end before the next is read. The awaits inside
  // (a schema read) settle in microtasks, so the loop never gives the event loop a turn: it needs none.
  const loop = async () => {
    let started = false;
    for (const line of lines()) {
      const message = JSON.parse(line) as WorkerInit | readonly WorkerRequest[];
      if (!started) {
        started = true;
        start(message as WorkerInit);
      } else await run(message as readonly WorkerRequest[]);
    }
  };
  // The server is gone (end of file, or the socket broke): so is this worker.
  loop().then(
    () => process.exit(0),
    () => process.exit(0),
  );
}

/** A request that only reads (the pool batches only these; the worker checks it again). */
const isRead = (r: WorkerRequest) => r.op === 'query' && r.readsOnly;

/**
 * A batch of reads runs in one read transaction (deferred: the first read takes the shared lock,
 * the end gives it back): one lock, one change-counter check and one round of the journal's and
 * WAL's checks for the whole batch instead of one per read, about half what a one-row read costs
 * SQLite on a file. The reads cannot end it (a read starts with SELECT, WITH, VALUES, EXPLAIN or
 * a pragma that only reads), and a worker never stays in it: if it cannot end, the worker exits.
 */
function begin(db: Database.Database): void {
  if (!db.inTransaction) control(db, 'BEGIN').run();
}

function end(db: Database.Database): void {
  if (!db.inTransaction) return;
  try {
    control(db, 'COMMIT').run();
  } catch {
    try {
      control(db, 'ROLLBACK').run();
    } catch {
      // Held open, its lock would block the database's writers: the pool starts a new worker.
      process.exit(1);
    }
  }
}

const controls = new Map<string, Database.Statement>();
/** BEGIN, COMMIT and ROLLBACK, prepared once (the worker has one connection). */
function control(db: Database.Database, text: string): Database.Statement {
  let stmt = controls.get(text);
  if (!stmt) {
    stmt = db.prepare(text);
    controls.set(text, stmt);
  }
  return stmt;
}

/** The lines read from the channel, until end of file. */
function* lines(): Generator<string> {
  const chunk = Buffer.allocUnsafe(64 * 1024);
  const ready: string[] = [];
  // The server's requests: no limit of the framer's (the server is the only writer).
  const framer = new LineFramer(
    Number.POSITIVE_INFINITY,
    (line) => ready.push(line),
    () => undefined,
  );
  for (;;) {
    const n = readSync(REQUEST_FD, chunk, 0, chunk.length, null);
    if (n === 0) return;
    framer.push(chunk.subarray(0, n));
    yield* ready.splice(0);
  }
}

function writeAll(text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length; ) at += writeSync(ANSWER_FD, bytes, at);
}

// Started by the pool with this argument; imported for its types, it does nothing.
if (process.argv[2] === WORKER_ARG) serve();
