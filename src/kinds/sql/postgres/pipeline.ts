/**
 * One read-only PostgreSQL call in one round trip: the transaction's start, its limits, the
 * statement, the lock release and the ROLLBACK are written as extended-protocol messages (Parse,
 * Bind, Execute each) behind a single Sync, so the server runs them in order and answers once.
 *
 * The fixed steps are prepared once per connection (named statements, PipelineStep.name), so the
 * server does not parse and plan them again on each call. A prepared statement's columns are kept
 * from its first RowDescription, and later calls on that connection send no Describe: a schema
 * change that alters them makes the server refuse the statement (0A000, "cached plan must not
 * change result type"), and the source prepares it anew.
 *
 * The statement's Execute asks for at most `limit` rows, so the row cap is kept by the server's
 * portal (PortalSuspended) without a cursor. The other steps are fixed text written by the source.
 * An error makes the server skip to the Sync: the transaction is then in the failed state and the
 * caller closes the connection.
 *
 * A `pg` "submittable": `client.query(pipeline)` hands it the connection, and the client routes the
 * server's messages to its `handle…` methods until ReadyForQuery. The pipeline writes its messages
 * itself, as one buffer on the connection's socket (pg's serializer would write each one apart).
 */
import type pg from 'pg';

/** The part of pg's Connection the pipeline writes to: its socket (pg does not type it). */
interface Wire {
  stream: { writable: boolean; write(chunk: Buffer): boolean };
}

export interface Field {
  readonly name: string;
  readonly dataTypeID: number;
  readonly format: string;
}

export interface PipelineStep {
  readonly text: string;
  readonly values?: readonly unknown[] | undefined;
  /**
   * Prepared under this name the first time on a connection, then bound by name (fixed text
   * only): the server parses and plans it once per connection instead of on every call.
   */
  readonly name?: string | undefined;
}

export interface PipelineOptions {
  /** Steps before the statement (fixed text, values bound). */
  readonly before: readonly PipelineStep[];
  readonly statement: PipelineStep;
  /** Steps after the statement (fixed text). */
  readonly after: readonly PipelineStep[];
  /** Rows the statement's portal hands over at most. */
  readonly limit: number;
  readonly types: pg.CustomTypesConfig;
  /** The statement names this connection holds; the pipeline adds those it prepares. */
  readonly prepared?: Set<string>;
  /** The columns of the named statements this connection holds; the pipeline adds those it reads. */
  readonly described?: Map<string, readonly Field[]>;
  readonly prepareValue: (value: unknown) => unknown;
  /** Each row of the statement, as an array of parsed values. */
  readonly onRow: (row: unknown[]) => void;
}

export interface PipelineResult {
  readonly fields: readonly { name: string }[];
  /** The portal had more rows than `limit`. */
  readonly suspended: boolean;
  /** The statement's command tag had a row count (INSERT … RETURNING, SELECT, …). */
  readonly rowCount: number;
}

export class PgPipeline {
  readonly done: Promise<PipelineResult>;
  private step = 0;
  private fields: readonly Field[] = [];
  /** The statement's prepared name, when its columns are to be kept (PipelineOptions.described). */
  private describing: string | undefined;
  private parsers: ((value: string) => unknown)[] = [];
  private suspended = false;
  private rowCount = 0;
  private failure: Error | undefined;
  private settled = false;
  private wrote = false;
  private serverError = false;
  private resolve!: (result: PipelineResult) => void;
  private reject!: (err: Error) => void;

  constructor(private readonly o: PipelineOptions) {
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** The statement's columns, once its RowDescription has come (also when the read is cut off). */
  get columns(): readonly { name: string }[] {
    return this.fields;
  }

  /**
   * The answer to its first step (the BEGIN) has come. The server sends a pipeline's answers at its
   * Sync, so this tells, once the pipeline has settled, whether the server ran it: on a lane, one
   * that failed before it had begun was refused because a read before it failed.
   */
  get begun(): boolean {
    return this.step > 0;
  }

  /** It has its result or its error. */
  get finished(): boolean {
    return this.settled;
  }

  /** Its bytes were handed to the socket. */
  get written(): boolean {
    return this.wrote;
  }

  /** It ended with an error from the server or the connection (not one of the rows it parsed). */
  get failedThere(): boolean {
    return this.serverError;
  }

  private get atStatement(): boolean {
    return this.step === this.o.before.length;
  }

  /**
   * Writes the whole pipeline as one buffer (one write on the socket). The steps without values are
   * the same bytes on every call (Bind by name, Execute): those are made once per name.
   */
  submit(connection: unknown): Error | null {
    const { stream } = connection as Wire;
    const prepared = this.o.prepared;
    const parts: Buffer[] = [];
    const preparing: string[] = [];
    try {
      const add = (s: PipelineStep, statement: boolean) => {
        const name = prepared && s.name !== undefined ? s.name : '';
        if (!name || (!prepared!.has(name) && !preparing.includes(name))) {
          parts.push(parseMessage(name, s.text));
          if (name) preparing.push(name);
        }
        if (statement) {
          parts.push(bindMessage(name, s.values ?? [], this.o.prepareValue));
          const known = name && prepared!.has(name) ? this.o.described?.get(name) : undefined;
          if (known) this.describe(known);
          else {
            parts.push(DESCRIBE_PORTAL);
            if (name) this.describing = name;
          }
          parts.push(executeMessage(this.o.limit));
        } else if (name && !s.values?.length) parts.push(boundByName(name));
        else parts.push(bindMessage(name, s.values ?? [], this.o.prepareValue), EXECUTE_ALL);
      };
      for (const s of this.o.before) add(s, false);
      add(this.o.statement, true);
      for (const s of this.o.after) add(s, false);
      parts.push(SYNC);
    } catch (err) {
      // Nothing was written: pg hands the error to handleError and the connection stays in step.
      return err as Error;
    }
    // A failed Parse fails the call, which closes the connection, and the set with it.
    for (const name of preparing) prepared!.add(name);
    if (stream.writable) stream.write(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
    this.wrote = true;
    return null;
  }

  handleRowDescription(msg: { fields: Field[] }): void {
    if (!this.atStatement) return;
    this.describe(msg.fields);
    if (this.describing !== undefined) this.o.described?.set(this.describing, msg.fields);
  }

  private describe(fields: readonly Field[]): void {
    this.fields = fields;
    this.parsers = fields.map((f) => {
      const parse = this.o.types.getTypeParser(f.dataTypeID, f.format === 'binary' ? 'binary' : 'text');
      return parse as (value: string) => unknown;
    });
  }

  handleDataRow(msg: { fields: (string | null)[] }): void {
    if (!this.atStatement || this.failure) return;
    try {
      const row = msg.fields.map((value, i) => (value === null ? null : this.parsers[i]!(value)));
      this.o.onRow(row);
    } catch (err) {
      this.failure = err as Error;
    }
  }

  handleCommandComplete(msg: { text?: string; command?: string; rowCount?: number | null }): void {
    if (this.atStatement) this.rowCount = msg.rowCount ?? rowCountOf(msg.text);
    this.step++;
  }

  handlePortalSuspended(): void {
    if (this.atStatement) this.suspended = true;
    this.step++;
  }

  handleEmptyQuery(): void {
    this.step++;
  }

  handleError(err: Error): void {
    // pg also hands over here the error of a submit that wrote nothing (not the server's).
    if (this.wrote) this.serverError = true;
    this.finish(this.failure ?? err);
  }

  handleReadyForQuery(): void {
    if (this.failure) this.finish(this.failure);
    else this.finish(undefined, { fields: this.fields, suspended: this.suspended, rowCount: this.rowCount });
  }

  handleCopyInResponse(connection: unknown): void {
    (connection as { sendCopyFail(reason: string): void }).sendCopyFail('COPY is not served');
  }

  handleCopyData(): void {}

  private finish(err: Error | undefined, result?: PipelineResult): void {
    if (this.settled) return;
    this.settled = true;
    if (err) this.reject(err);
    else this.resolve(result!);
  }
}

/** The count at the end of a command tag ("SELECT 3", "INSERT 0 2"). */
function rowCountOf(tag: string | undefined): number {
  if (tag === undefined) return 0;
  const n = Number(tag.slice(tag.lastIndexOf(' ') + 1));
  return Number.isSafeInteger(n) ? n : 0;
}

/*
 * The frontend messages of the extended protocol the pipeline sends, as bytes: a type byte, then a
 * 32-bit length that counts itself and the body. Strings are NUL-terminated UTF-8.
 */
const SYNC = Buffer.from([0x53, 0, 0, 0, 4]);
/** Describe the unnamed portal: its RowDescription comes before its rows. */
const DESCRIBE_PORTAL = Buffer.from([0x44, 0, 0, 0, 6, 0x50, 0]);

/** Execute of the unnamed portal, at most `rows` rows (0: all of them). */
function executeMessage(rows: number): Buffer {
  const b = Buffer.allocUnsafe(10);
  b[0] = 0x45;
  b.writeInt32BE(9, 1);
  b[5] = 0;
  b.writeUInt32BE(rows, 6);
  return b;
}
const EXECUTE_ALL = executeMessage(0);

/** Parse `text` as the statement `name` ('' for the unnamed one), its parameter types inferred. */
function parseMessage(name: string, text: string): Buffer {
  const nameLength = Buffer.byteLength(name);
  const textLength = Buffer.byteLength(text);
  const b = Buffer.allocUnsafe(1 + 4 + nameLength + 1 + textLength + 1 + 2);
  b[0] = 0x50;
  b.writeInt32BE(b.length - 1, 1);
  let at = 5 + b.write(name, 5);
  b[at++] = 0;
  at += b.write(text, at);
  b[at++] = 0;
  b.writeInt16BE(0, at);
  return b;
}

/**
 * Bind the statement `name` to the unnamed portal with `values` (each through `prepare`, as pg
 * does: null, a Buffer sent as binary, or text); every result column in text.
 */
function bindMessage(name: string, values: readonly unknown[], prepare: (value: unknown) => unknown): Buffer {
  const mapped = values.map((v) => {
    const m = prepare(v);
    return m == null ? null : m instanceof Buffer ? m : String(m);
  });
  const nameLength = Buffer.byteLength(name);
  let size = 1 + 4 + 1 + nameLength + 1 + 2 + 2 * mapped.length + 2 + 2;
  for (const m of mapped)
    size += 4 + (m === null ? 0 : typeof m === 'string' ? Buffer.byteLength(m) : m.length);
  const b = Buffer.allocUnsafe(size);
  b[0] = 0x42;
  b.writeInt32BE(size - 1, 1);
  b[5] = 0; // the unnamed portal
  let at = 6 + b.write(name, 6);
  b[at++] = 0;
  at = b.writeInt16BE(mapped.length, at);
  for (const m of mapped) at = b.writeInt16BE(m instanceof Buffer ? 1 : 0, at);
  at = b.writeInt16BE(mapped.length, at);
  for (const m of mapped) {
    if (m === null) at = b.writeInt32BE(-1, at);
    else if (typeof m === 'string') {
      const n = b.write(m, at + 4);
      b.writeInt32BE(n, at);
      at += 4 + n;
    } else {
      at = b.writeInt32BE(m.length, at);
      at += m.copy(b, at);
    }
  }
  b.writeInt16BE(0, at);
  return b;
}

/** Bind (no values) and Execute of a named statement: the same bytes on every call, made once. */
const bound = new Map<string, Buffer>();
function boundByName(name: string): Buffer {
  let b = bound.get(name);
  if (!b) {
    if (bound.size >= 1000) bound.clear();
    b = Buffer.concat([bindMessage(name, [], (v) => v), EXECUTE_ALL]);
    bound.set(name, b);
  }
  return b;
}

/**
 * The names pipelined steps are prepared under: one per text, never reused (a counter), and which
 * of them each connection holds. A connection holds at most `max`; past that a new text runs
 * unnamed (model-written sql-query texts would otherwise grow the server's memory).
 */
export class PreparedStatements {
  private count = 0;
  private readonly names = new Map<string, string>();
  private readonly held = new WeakMap<object, Set<string>>();
  private readonly columns = new WeakMap<object, Map<string, readonly Field[]>>();

  constructor(private readonly max: number) {}

  /** The names `connection` holds (the set a pipeline on it fills). */
  on(connection: object): Set<string> {
    let names = this.held.get(connection);
    if (!names) {
      names = new Set();
      this.held.set(connection, names);
    }
    return names;
  }

  /** The columns of the statements `connection` holds, by name (the map a pipeline on it fills). */
  described(connection: object): Map<string, readonly Field[]> {
    let columns = this.columns.get(connection);
    if (!columns) {
      columns = new Map();
      this.columns.set(connection, columns);
    }
    return columns;
  }

  /** The name of `text` on a connection holding `held`, or undefined: run it unnamed. */
  name(text: string, held: ReadonlySet<string>): string | undefined {
    let name = this.names.get(text);
    if (name === undefined) {
      if (this.names.size >= 4 * this.max) this.names.clear();
      name = `mcp_run_${++this.count}`;
      this.names.set(text, name);
    }
    return held.has(name) || held.size < this.max ? name : undefined;
  }

  /** The connection's session was reset (DISCARD ALL): it holds none. */
  forget(connection: object): void {
    this.held.delete(connection);
    this.columns.delete(connection);
  }

  /** Every name held may be stale (a schema change): texts get new names from now on. */
  renew(): void {
    this.names.clear();
  }
}

/**
 * pg's pipeline mode takes only its own Query objects: a custom one may keep a portal open across
 * round trips (a cursor), and would take the answers of the queries written behind it. A PgPipeline
 * never does (its portal ends before its Sync), so it is made one of pg's Query objects (lanes.ts):
 * every method pg calls on it is its own.
 */
export function admitToPipelineMode(Query: abstract new (...args: never[]) => unknown): void {
  if (!(PgPipeline.prototype instanceof Query)) Object.setPrototypeOf(PgPipeline.prototype, Query.prototype);
}
