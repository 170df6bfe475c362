/**
 * One read-only PostgreSQL call in one round trip: the transaction's start, its limits, the
 * statement, the lock release and the ROLLBACK are written as extended-protocol messages (Parse,
 * Bind, Execute each) behind a single Sync, so the server runs them in order and answers once.
 *
 * The fixed steps are prepared once per connection (named statements, PipelineStep.name), so the
 * server does not parse and plan them again on each call.
 *
 * The statement's Execute asks for at most `limit` rows, so the row cap is kept by the server's
 * portal (PortalSuspended) without a cursor. The other steps are fixed text written by the source.
 * An error makes the server skip to the Sync: the transaction is then in the failed state and the
 * caller closes the connection.
 *
 * A `pg` "submittable": `client.query(pipeline)` hands it the connection, and the client routes the
 * server's messages to its `handle…` methods until ReadyForQuery.
 */
import type pg from 'pg';

/** The parts of pg's Connection the pipeline writes to (pg does not type them). */
interface Wire {
  stream: { cork?(): void; uncork?(): void };
  parse(query: { text: string; name: string; types: number[] }): void;
  bind(config: {
    portal: string;
    statement: string;
    values: readonly unknown[];
    valueMapper: (value: unknown) => unknown;
  }): void;
  describe(msg: { type: 'P'; name: string }): void;
  execute(config: { portal: string; rows: number }): void;
  sync(): void;
}

interface Field {
  readonly name: string;
  readonly dataTypeID: number;
  readonly format: string;
}

export interface PipelineStep {
  readonly text: string;
  readonly values?: readonly unknown[];
  /**
   * Prepared under this name the first time on a connection, then bound by name (fixed text
   * only): the server parses and plans it once per connection instead of on every call.
   */
  readonly name?: string;
}

export interface PipelineOptions {
  /** Steps before the statement (fixed text). */
  readonly before: readonly PipelineStep[];
  readonly statement: PipelineStep;
  /** Steps after the statement (fixed text). */
  readonly after: readonly PipelineStep[];
  /** Rows the statement's portal hands over at most. */
  readonly limit: number;
  readonly types: pg.CustomTypesConfig;
  /** The statement names this connection holds; the pipeline adds those it prepares. */
  readonly prepared?: Set<string>;
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
  private fields: Field[] = [];
  private parsers: ((value: string) => unknown)[] = [];
  private suspended = false;
  private rowCount = 0;
  private failure: Error | undefined;
  private settled = false;
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

  private get atStatement(): boolean {
    return this.step === this.o.before.length;
  }

  submit(connection: unknown): null {
    const wire = connection as Wire;
    wire.stream.cork?.();
    try {
      const all = [...this.o.before, this.o.statement, ...this.o.after];
      const prepared = this.o.prepared;
      all.forEach((s, i) => {
        const name = prepared && s.name !== undefined ? s.name : '';
        // A failed Parse fails the call, which closes the connection, and the set with it.
        if (!name || !prepared!.has(name)) {
          wire.parse({ text: s.text, name, types: [] });
          if (name) prepared!.add(name);
        }
        wire.bind({ portal: '', statement: name, values: s.values ?? [], valueMapper: this.o.prepareValue });
        const statement = i === this.o.before.length;
        if (statement) wire.describe({ type: 'P', name: '' });
        wire.execute({ portal: '', rows: statement ? this.o.limit : 0 });
      });
      wire.sync();
    } finally {
      wire.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(msg: { fields: Field[] }): void {
    if (!this.atStatement) return;
    this.fields = msg.fields;
    this.parsers = msg.fields.map((f) => {
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
  const n = Number(tag?.split(' ').at(-1));
  return Number.isSafeInteger(n) ? n : 0;
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
  }

  /** Every name held may be stale (a schema change): texts get new names from now on. */
  renew(): void {
    this.names.clear();
  }
}
