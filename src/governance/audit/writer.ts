/**
 * The one writer of an audit chain: records are queued in order, sealed into the chain as they
 * are written (so a rotation header is a link like any other), and written in chunks by one flush
 * loop. Nothing queued is ever dropped: a failed write is tried again (the file cut back to its
 * last whole line first), and while the queue is over its byte budget new requests either wait
 * (`block`) or are refused (`refuse`), each counted (ops hooks) and reported (log, then a
 * `backpressure` record once the sink has caught up).
 */
import type { Logger } from '../../log.js';
import { ops } from '../../ops/hooks.js';
import { settleWithin } from '../../util/with-timeout.js';
import { GovernanceRefusal } from '../refusal.js';
import { GENESIS, sealLine } from './chain.js';
import type { AuditSink } from './sinks.js';

export type BackpressureChoice = 'block' | 'refuse';

/** What a refused request is told to wait before trying again. */
const REFUSE_RETRY_MS = 1000;
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5000;
/** How long shutdown waits for the sink to take the last records before they go to stderr. */
const CLOSE_WAIT_MS = 10_000;
/** How long closing the sink itself may take once its records are out (a stuck write holds it). */
const SINK_CLOSE_MS = 1000;

/** A request refused because the audit trail cannot keep up (`onBackpressure: refuse`). */
export class AuditBackpressure extends GovernanceRefusal {
  constructor() {
    super(
      'limit',
      'audit',
      'The server is busy writing its audit trail and refused this request; try again shortly',
      REFUSE_RETRY_MS,
    );
  }
}

export interface WriterOptions {
  readonly sink: AuditSink;
  /** Names this writer in every line; default host+pid+start. */
  readonly name: string;
  /** Queued bytes above which new requests wait or are refused. */
  readonly budgetBytes: number;
  readonly onBackpressure: BackpressureChoice;
  readonly log: Logger;
  /** How long `close` waits for the sink before spilling to stderr (default 10 s). */
  readonly closeWaitMs?: number;
  /**
   * Told when the queue goes over its budget (true) and back under it (false): the primary of
   * `--workers` passes it on to the workers, whose requests this writer does not admit itself.
   */
  readonly onPressure?: (over: boolean) => void;
}

/**
 * What the trail and its records need of a writer: this one, or a worker's line to the primary's
 * (`--workers`, ipc-writer.ts).
 */
export type AuditWriting = Pick<
  AuditWriter,
  'name' | 'admit' | 'append' | 'appendRefused' | 'flush' | 'close'
>;

export class AuditWriter {
  private readonly sink: AuditSink;
  readonly name: string;
  private readonly log: Logger;
  /** Records not yet written, with their size in bytes (UTF-8), which the budget counts. */
  private queue: { readonly body: string; readonly bytes: number }[] = [];
  private queuedBytes = 0;
  private seq = 0;
  private prev: string | null = GENESIS;
  private flushing: Promise<void> | undefined = undefined;
  private waiters: (() => void)[] = [];
  private closed = false;
  private closing: Promise<void> | undefined = undefined;
  /** The current backpressure episode: when it began and what it cost. */
  private episode: { since: number; blocked: number; refused: number; unrecorded: number } | undefined =
    undefined;
  /** Lines written, for the `close` record. */
  private written = 0;
  /** The queue is over its budget, as last told to `onPressure`. */
  private over = false;

  constructor(private readonly options: WriterOptions) {
    this.sink = options.sink;
    this.name = options.name;
    this.log = options.log;
  }

  /** Opens the sink and writes the `start` record (chained to this writer's last line, if the file has it). */
  async open(): Promise<void> {
    const last = await this.sink.open();
    if (last !== undefined && last.writer === this.name) {
      this.seq = last.seq + 1;
      this.prev = last.hash;
    }
    this.enqueue(this.meta('start', { pid: process.pid, sink: this.sink.where }));
    if (this.sink.remote) this.flushing ??= this.flushLoop();
    else await this.flush();
  }

  /**
   * Whether a new request may go ahead: undefined at once, a promise while it waits for the queue
   * to drain (`block`); throws AuditBackpressure (`refuse`).
   */
  admit(): Promise<void> | undefined {
    if (this.queuedBytes < this.options.budgetBytes) return undefined;
    const choice = this.options.onBackpressure;
    ops.auditPressure(choice);
    this.held(choice);
    if (choice === 'refuse') throw new AuditBackpressure();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Counts a request that another process held back for this writer (a worker of `--workers`, told
   * by `onPressure`), as `admit` counts its own. The word may come after the queue is back under
   * its budget: the request still counts, in an episode that then ends at once. (The worker counts
   * it in its metrics.)
   */
  countHeld(): void {
    this.held(this.options.onBackpressure);
    this.released();
  }

  private held(choice: BackpressureChoice): void {
    if (this.episode === undefined) {
      this.episode = { since: Date.now(), blocked: 0, refused: 0, unrecorded: 0 };
      this.log.warn(
        `audit: ${this.sink.where} is not keeping up (${this.queuedBytes} bytes queued); new requests ${choice === 'block' ? 'wait' : 'are refused'} until it does`,
      );
    }
    if (choice === 'refuse') this.episode.refused++;
    else this.episode.blocked++;
  }

  /**
   * Takes the record of a request it refused for backpressure: queued while the queue is under
   * twice its budget, else only counted (a flood of refused requests must not fill memory), and the
   * count goes in the episode's `backpressure` record and log line.
   */
  appendRefused(body: string): void {
    if (this.episode !== undefined && this.queuedBytes >= 2 * this.options.budgetBytes) {
      this.episode.unrecorded++;
      return;
    }
    this.append(body);
  }

  /** Queues one record body (record.ts); it is sealed and written in order. */
  append(body: string): void {
    if (this.closing !== undefined) {
      // The close record is queued as the last line: a later record goes to the log instead.
      this.log.error(`audit: a record came after the trail was closed: ${body}`);
      return;
    }
    this.enqueue(body);
    this.flushing ??= this.flushLoop();
  }

  /** Resolves once everything queued so far is written. */
  async flush(): Promise<void> {
    while (this.queue.length > 0 || this.flushing !== undefined) {
      this.flushing ??= this.flushLoop();
      await this.flushing;
    }
  }

  /** Writes the `close` record, flushes and closes the sink; once, however often it is called. */
  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    // Queued behind every record so far: the close record is the last line, written or spilled.
    this.endEpisode(this.queuedBytes >= this.options.budgetBytes / 2);
    this.enqueue(this.meta('close', { records: this.written + this.queue.length }));
    const written = this.flush();
    const waitMs = this.options.closeWaitMs ?? CLOSE_WAIT_MS;
    await settleWithin(written, waitMs);
    this.closed = true;
    // Requests still waiting for room are let go: their records now go to the log (append).
    for (const resolve of this.waiters.splice(0)) resolve();
    if (this.queue.length > 0) this.spill(waitMs);
    await settleWithin(this.sink.close(), SINK_CLOSE_MS);
  }

  /**
   * Shutdown cannot wait for a sink that does not take its writes (a hung disk, a pipe nobody
   * reads): the records left are written to stderr, unsealed, rather than lost with the process.
   */
  private spill(waitMs: number): void {
    const left = this.queue.splice(0);
    this.queuedBytes = 0;
    this.log.error(
      `audit: ${left.length} record(s) could not be written to ${this.sink.where} within ${waitMs} ms of shutdown; they follow on stderr, unsealed`,
    );
    for (const { body } of left) {
      try {
        process.stderr.write(`${body}\n`);
      } catch {
        // stderr is gone too: there is nowhere left to put them.
      }
    }
  }

  private enqueue(body: string): void {
    const bytes = Buffer.byteLength(body);
    this.queue.push({ body, bytes });
    this.queuedBytes += bytes;
    if (!this.over && this.queuedBytes >= this.options.budgetBytes) {
      this.over = true;
      this.options.onPressure?.(true);
    }
  }

  private meta(type: string, fields: Record<string, unknown>): string {
    return JSON.stringify({ v: 1, type, writer: this.name, time: new Date().toISOString(), ...fields });
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.writeSome();
    } finally {
      this.flushing = undefined;
    }
  }

  /** Seals and writes what fits before the sink must rotate; rotates when it must. */
  private async writeSome(): Promise<void> {
    const room = this.sink.room();
    let chunk = '';
    let bytes = 0;
    let taken = 0;
    let seq = this.seq;
    let prev = this.prev;
    for (const { body } of this.queue) {
      const { line, hash } = sealLine(body, seq, prev);
      const size = Buffer.byteLength(line) + 1;
      if (bytes + size > room && (taken > 0 || !this.sink.fresh())) break;
      chunk += `${line}\n`;
      bytes += size;
      taken++;
      seq++;
      prev = hash;
    }
    if (taken === 0) {
      await this.rotate();
      return;
    }
    await this.writeWithRetry(chunk);
    this.seq = seq;
    this.prev = prev;
    for (const { bytes } of this.queue.splice(0, taken)) this.queuedBytes -= bytes;
    this.written += taken;
    this.released();
  }

  /** The new file starts with a header naming the file it follows; the chain runs through it. */
  private async rotate(): Promise<void> {
    const predecessor = await this.sink.rotate();
    const { line, hash } = sealLine(this.meta('rotated', { predecessor }), this.seq, this.prev);
    await this.writeWithRetry(`${line}\n`);
    this.seq++;
    this.prev = hash;
  }

  private async writeWithRetry(chunk: string): Promise<void> {
    let wait = RETRY_FIRST_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.sink.write(chunk);
        if (attempt > 1) this.log.info(`audit: writing to ${this.sink.where} works again`);
        return;
      } catch (err) {
        // After shutdown spilled the records to stderr there is nothing left to retry for.
        if (this.closed) return;
        ops.auditSinkError(this.sink.kind);
        if (attempt === 1)
          this.log.error(
            `audit: cannot write to ${this.sink.where} (${(err as Error).message}); records are kept and the write is tried again`,
          );
        await new Promise((r) => setTimeout(r, wait));
        wait = Math.min(wait * 2, RETRY_MAX_MS);
      }
    }
  }

  /** Lets waiting requests go once the queue is under budget; ends an episode once it is half empty. */
  private released(): void {
    if (this.over && this.queuedBytes < this.options.budgetBytes) {
      this.over = false;
      this.options.onPressure?.(false);
    }
    if (this.queuedBytes < this.options.budgetBytes && this.waiters.length > 0) {
      const go = this.waiters;
      this.waiters = [];
      for (const resolve of go) resolve();
    }
    if (this.episode !== undefined && this.queuedBytes < this.options.budgetBytes / 2) this.endEpisode();
  }

  /** Ends a backpressure episode: logged, and recorded unless the close record is already queued. */
  private endEpisode(atShutdown = false): void {
    const episode = this.episode;
    if (episode === undefined) return;
    this.episode = undefined;
    const { since, blocked, refused, unrecorded } = episode;
    const uncounted =
      unrecorded === 0 ? '' : ` (${unrecorded} of them counted only, not recorded one by one)`;
    const ended = atShutdown ? 'was still behind at shutdown' : 'caught up';
    this.log.warn(
      `audit: ${this.sink.where} ${ended} after ${Date.now() - since} ms; ${blocked} request(s) waited, ${refused} were refused${uncounted}`,
    );
    if (this.closing !== undefined && !atShutdown) return;
    this.enqueue(
      this.meta('backpressure', {
        since: new Date(since).toISOString(),
        choice: this.options.onBackpressure,
        blocked,
        refused,
        unrecorded,
      }),
    );
    this.flushing ??= this.flushLoop();
  }
}
