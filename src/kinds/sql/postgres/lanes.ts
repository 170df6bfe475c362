/**
 * Read lanes: connections in pg's pipeline mode, each carrying several calls' read pipelines at
 * once (pipeline.ts: one call's read is one buffer behind its own Sync). The reads that arrive in
 * one event-loop turn leave in one write, and the server answers them back to back: one wake-up of
 * its backend, and one read on the socket, for several calls. On a busy server that is most of what
 * a one-row read costs the machine (docs/kinds-sql.md, read lanes; docs/benchmarks.md).
 *
 * A lane is filled before the next one opens, up to LANE_DEPTH reads; one whose oldest read has run
 * STALLED_MS takes no more, so a slow read holds up only the reads already behind it. When every
 * lane is full or held up and no more may open, `take` says so and the read runs on the pool.
 *
 * The server runs a lane's reads one after the other: the one running is the first written that has
 * not settled (`running`). A read that fails on the server (its error, its time limit) retires its
 * lane: the connection is closed, since the server's transaction is left failed and it would refuse
 * each read written behind it. So does a cancel of the running read, a row far past its budget, or
 * the connection's loss. The reads written behind the running one fail with `LaneLost`, and the
 * caller runs each again on the pool. They are read-only and end in ROLLBACK, so one that the
 * server had already taken off the closed connection and run leaves nothing.
 */
import type pg from 'pg';
import type { PgPipeline, PipelineResult } from './pipeline.js';

/** Reads one lane carries at once at most. */
const LANE_DEPTH = 8;
/** A lane whose oldest read has run this long takes no more reads. */
const STALLED_MS = 20;
/** A lane with nothing in flight for this long is closed, as the pool closes an idle connection. */
const IDLE_MS = 10_000;
/** After a lane failed to open, none opens for this long (the reads go to the pool meanwhile). */
const RETRY_OPEN_MS = 1000;
/** The server's refusal of a statement in a transaction a failed statement left open. */
const IN_FAILED_TRANSACTION = '25P02';
/** How long an idle lane's session may take to end before its connection is closed. */
const END_MS = 1000;

/**
 * A read lost with its lane before its turn: the lane closed under the read before it, or the server
 * refused it after a failed read. The caller runs it again on the pool.
 */
export class LaneLost extends Error {
  constructor(cause: unknown) {
    super('the read lane was closed before this read ran', { cause });
  }
}

export interface Lane {
  readonly client: pg.Client;
  /** The server process behind the lane, for a cancel. */
  readonly pid: number;
}

/** A read written on a lane, until it settles. */
interface Written {
  readonly pipeline: PgPipeline;
  /** Called once when it is the read the server runs. */
  readonly onTurn: () => void;
  turned: boolean;
}

interface OpenLane extends Lane {
  /** When each read on the lane took its place, oldest first (the server answers in that order). */
  readonly started: number[];
  /** The reads written, in order, until each settles. */
  readonly written: Written[];
  /** Reads written behind the running one when the lane was retired: they did not run there. */
  readonly lost: Set<PgPipeline>;
  retired: boolean;
  corked: boolean;
  lastUsed: number;
}

export class ReadLanes {
  private readonly lanes: OpenLane[] = [];
  private opening = false;
  private closed = false;
  private closedUntil = 0;
  /** A lane failed to open, and none has opened since: said once. */
  private failing = false;
  private sweeper: NodeJS.Timeout | undefined;

  /**
   * `max` lanes at most; `open` connects one in pipeline mode (and checks it, as the pool does its
   * connections), in `openMs` at most; `warn` hears why one could not open; `cancel` stops the
   * statement a server process runs (when the lanes close under a read).
   */
  constructor(
    private readonly max: number,
    private readonly openMs: number,
    private readonly open: () => Promise<pg.Client>,
    private readonly warn: (err: unknown) => void,
    private readonly cancel: (pid: number) => Promise<void>,
  ) {}

  /** Lanes open now. */
  get count(): number {
    return this.lanes.length;
  }

  /** Lanes open now with no read in flight. */
  get idle(): number {
    let n = 0;
    for (const lane of this.lanes) if (lane.started.length === 0) n++;
    return n;
  }

  /**
   * A place on a lane for one read, opening a lane where none has room and more may open; undefined
   * when the read is to run on the pool instead. Each place taken is given back with `release`.
   */
  async take(): Promise<Lane | undefined> {
    const now = performance.now();
    for (const lane of this.lanes) {
      const oldest = lane.started[0];
      if (lane.started.length < LANE_DEPTH && (oldest === undefined || now - oldest < STALLED_MS)) {
        lane.started.push(now);
        return lane;
      }
    }
    if (this.closed || this.opening || this.lanes.length >= this.max || now < this.closedUntil)
      return undefined;
    this.opening = true;
    try {
      const client = await this.opened();
      if (this.closed) {
        client.end().catch(() => undefined);
        return undefined;
      }
      this.failing = false;
      const pid = (client as unknown as { processID: number }).processID;
      const at = performance.now();
      const lane: OpenLane = {
        client,
        pid,
        started: [at],
        written: [],
        lost: new Set(),
        retired: false,
        corked: false,
        lastUsed: at,
      };
      // A connection that dies under the lane (a server restart, a row past its budget) fails the
      // read running on it with its own error, and the reads behind it as lost.
      const died = () => this.retire(lane, this.running(lane));
      client.on('error', died);
      client.on('end', died);
      this.lanes.push(lane);
      this.sweeper ??= setInterval(() => this.sweep(), IDLE_MS / 2).unref();
      return lane;
    } catch (err) {
      this.closedUntil = performance.now() + RETRY_OPEN_MS;
      if (!this.failing) this.warn(err);
      this.failing = true;
      return undefined;
    } finally {
      this.opening = false;
    }
  }

  /**
   * Gives back the place `take` gave (`run` does, once its read settles: the oldest, as the reads
   * settle in order). `unwritten`: the read was never written, and gives back the newest.
   */
  release(lane: Lane, unwritten = false): void {
    const open = lane as OpenLane;
    if (unwritten) open.started.pop();
    else open.started.shift();
    open.lastUsed = performance.now();
  }

  /**
   * The read the server runs on `lane` now: the first written that has not settled, unless one
   * before it failed on the server (which then refuses it). None on a retired lane.
   */
  running(lane: Lane): PgPipeline | undefined {
    const open = lane as OpenLane;
    if (open.retired) return undefined;
    for (const { pipeline } of open.written) {
      if (!pipeline.finished) return pipeline;
      if (pipeline.failedThere) return undefined;
    }
    return undefined;
  }

  /**
   * Writes `pipeline` on `lane`, with the other reads of this event-loop turn in one write; `onTurn`
   * is called when the server comes to it. Its result, its own error, or `LaneLost` when it did not
   * run there: the lane was retired while it waited, or the server refused it after a failed read.
   */
  async run(lane: Lane, pipeline: PgPipeline, onTurn: () => void = () => undefined): Promise<PipelineResult> {
    const open = lane as OpenLane;
    if (open.retired) throw new LaneLost(undefined);
    const stream = (open.client as unknown as { connection: { stream: import('node:net').Socket } })
      .connection.stream;
    // Written at the end of the event loop's turn (setImmediate: after every request its poll phase
    // read), with every read the turn put on this lane: one write, and one wake-up of the backend.
    if (!open.corked) {
      open.corked = true;
      stream.cork();
      setImmediate(() => {
        open.corked = false;
        stream.uncork();
      });
    }
    const written: Written = { pipeline, onTurn, turned: false };
    open.written.push(written);
    open.client.query(pipeline as unknown as pg.QueryConfig);
    this.turn(open);
    try {
      return await pipeline.done;
    } catch (err) {
      if (!pipeline.written) throw err; // a value it could not send: nothing left
      const refused = !pipeline.begun && (err as { code?: string }).code === IN_FAILED_TRANSACTION;
      if (open.lost.has(pipeline) || refused) {
        this.retire(open);
        throw new LaneLost(err);
      }
      // It failed on the server: what is written behind it would be refused. A read that failed
      // here (a row it could not parse) leaves the lane as it was.
      if (pipeline.failedThere) this.retire(open);
      throw err;
    } finally {
      open.written.splice(open.written.indexOf(written), 1);
      this.release(open);
      this.turn(open);
    }
  }

  /**
   * Closes `lane`. Every read written on it but `running` (the one the server runs, which ends
   * with its own error) fails with LaneLost.
   */
  retire(lane: Lane, running?: PgPipeline): void {
    const open = lane as OpenLane;
    if (open.retired) return;
    for (const w of open.written)
      if (w.pipeline !== running && !w.pipeline.finished) open.lost.add(w.pipeline);
    this.drop(open);
    this.destroy(open);
  }

  /** Tells the read the server runs now that its turn has come. */
  private turn(open: OpenLane): void {
    const running = this.running(open);
    const next = running && open.written.find((w) => w.pipeline === running);
    if (next && !next.turned) {
      next.turned = true;
      next.onTurn();
    }
  }

  /**
   * Closes every lane, and opens none from now on (the source is disposed). A read running on one
   * is cancelled on the server: closing its connection would not stop it.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    await Promise.all(
      [...this.lanes].map((lane) => {
        if (lane.started.length === 0) return this.end(lane);
        const running = this.running(lane);
        this.retire(lane, running);
        return running ? this.cancel(lane.pid) : undefined;
      }),
    );
  }

  private sweep(): void {
    const now = performance.now();
    for (const lane of [...this.lanes]) {
      if (lane.started.length === 0 && now - lane.lastUsed > IDLE_MS) void this.end(lane);
    }
    if (this.lanes.length === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  /** A new lane's connection, in openMs at most: one that comes later is closed. */
  private async opened(): Promise<pg.Client> {
    const opening = this.open();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no connection in ${this.openMs} ms`)), this.openMs);
    });
    try {
      return await Promise.race([opening, late]);
    } catch (err) {
      opening.then((client) => client.end().catch(() => undefined)).catch(() => undefined);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends an idle lane's session (Terminate), or closes its connection if that takes too long. */
  private async end(lane: OpenLane): Promise<void> {
    this.drop(lane);
    const timer = setTimeout(() => this.destroy(lane), END_MS).unref();
    await lane.client.end().catch(() => undefined);
    clearTimeout(timer);
  }

  private drop(lane: OpenLane): void {
    lane.retired = true;
    const at = this.lanes.indexOf(lane);
    if (at >= 0) this.lanes.splice(at, 1);
  }

  private destroy(lane: OpenLane): void {
    (lane.client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  }
}
