/**
 * Read lanes: connections in pg's pipeline mode, each carrying several calls' read pipelines at
 * once (pipeline.ts: one call's read is one buffer behind its own Sync). The reads that arrive in
 * one event-loop turn leave in one write, and the server answers them back to back: one wake-up of
 * its backend, and one read on the socket, for several calls. On a busy server that is most of what
 * a one-row read costs the machine (bench/misses.md).
 *
 * A lane is filled before the next one opens, up to LANE_DEPTH reads; one whose oldest read has run
 * STALLED_MS takes no more, so a slow read holds up only the reads already behind it. When every
 * lane is full or held up and no more may open, `take` says so and the read runs on the pool.
 *
 * The first read on a lane that fails for its own reason (its error, a cancel, a row past its
 * budget) retires the lane: its connection is closed, which is the only way to stop what was
 * written behind that read (the server's transaction is left failed, and each read behind it would
 * be refused). The reads that were behind it fail with `LaneLost`: nothing of them ran, and the
 * caller runs each again on the pool.
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

/** A read that never ran: the lane it was written on was retired by a read before it. */
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

interface OpenLane extends Lane {
  /** When each read in flight was written, oldest first (the server answers in that order). */
  readonly started: number[];
  retired: boolean;
  corked: boolean;
  lastUsed: number;
}

export class ReadLanes {
  private readonly lanes: OpenLane[] = [];
  private opening = false;
  private closedUntil = 0;
  private sweeper: NodeJS.Timeout | undefined;

  /**
   * `max` lanes at most; `open` connects one in pipeline mode (and checks it, as the pool does its
   * connections); `warn` hears why one could not open.
   */
  constructor(
    private readonly max: number,
    private readonly open: () => Promise<pg.Client>,
    private readonly warn: (err: unknown) => void,
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
   * A lane with room for one more read, opening one where none has and more may open; undefined
   * when the read is to run on the pool instead.
   */
  async take(): Promise<Lane | undefined> {
    const now = performance.now();
    for (const lane of this.lanes) {
      const oldest = lane.started[0];
      if (lane.started.length < LANE_DEPTH && (oldest === undefined || now - oldest < STALLED_MS))
        return lane;
    }
    if (this.opening || this.lanes.length >= this.max || now < this.closedUntil) return undefined;
    this.opening = true;
    try {
      const client = await this.open();
      const pid = (client as unknown as { processID: number }).processID;
      const lane: OpenLane = { client, pid, started: [], retired: false, corked: false, lastUsed: now };
      // A connection that dies under the lane (a server restart) fails what is in flight on it.
      client.on('error', () => this.retire(lane));
      client.on('end', () => this.retire(lane));
      this.lanes.push(lane);
      this.sweeper ??= setInterval(() => this.sweep(), IDLE_MS / 2).unref();
      return lane;
    } catch (err) {
      this.closedUntil = performance.now() + RETRY_OPEN_MS;
      this.warn(err);
      return undefined;
    } finally {
      this.opening = false;
    }
  }

  /**
   * Writes `pipeline` on `lane`, with the other reads of this event-loop turn in one write. Its
   * result, its own error, or `LaneLost` when a read before it retired the lane.
   */
  async run(lane: Lane, pipeline: PgPipeline): Promise<PipelineResult> {
    const open = lane as OpenLane;
    if (open.retired) throw new LaneLost(undefined);
    const stream = (open.client as unknown as { connection: { stream: import('node:net').Socket } })
      .connection.stream;
    if (!open.corked) {
      open.corked = true;
      stream.cork();
      process.nextTick(() => {
        open.corked = false;
        stream.uncork();
      });
    }
    open.started.push(performance.now());
    open.client.query(pipeline as unknown as pg.QueryConfig);
    try {
      return await pipeline.done;
    } catch (err) {
      // The reads settle in the order they were written: the first to fail is the one that failed.
      if (open.retired) throw new LaneLost(err);
      this.retire(open);
      throw err;
    } finally {
      open.started.shift();
      open.lastUsed = performance.now();
    }
  }

  /** Closes `lane`: the reads written behind the one in progress fail with LaneLost. */
  retire(lane: Lane): void {
    const open = lane as OpenLane;
    if (open.retired) return;
    open.retired = true;
    const at = this.lanes.indexOf(open);
    if (at >= 0) this.lanes.splice(at, 1);
    (open.client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  }

  /** Closes every lane (the source is disposed). */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const closing = this.lanes.splice(0).map((lane) => {
      lane.retired = true;
      return lane.client.end().catch(() => undefined);
    });
    await Promise.all(closing);
  }

  private sweep(): void {
    const now = performance.now();
    for (const lane of [...this.lanes]) {
      if (lane.started.length === 0 && now - lane.lastUsed > IDLE_MS) {
        lane.retired = true;
        this.lanes.splice(this.lanes.indexOf(lane), 1);
        lane.client.end().catch(() => undefined);
      }
    }
    if (this.lanes.length === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }
}
