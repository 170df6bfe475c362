/**
 * A small pool of SQLite worker processes (worker.ts), one connection each, started on the
 * first request. A request waits for a free worker; its time limit counts from when it was asked.
 * When the limit passes or the caller's signal aborts, the worker running it is killed (SIGKILL:
 * better-sqlite3 cannot interrupt a statement) and the next request starts a fresh one, so a runaway
 * query ends at its timeout and never holds the server. A cancelled read is let run a little longer
 * first (`abandon`): most end in that time, and keep their worker.
 *
 * Requests go out once the event loop has taken in what is ready (`schedule`), so the calls that
 * arrived in one turn leave together. The reads queued then are shared out among the idle workers
 * (none waits behind another while a worker sits idle), and when every worker is busy they go to
 * the next free one together, as one batch (at most MAX_BATCH): one message and one wake-up each
 * way for all of them, which is most of what a one-row read costs (and the worker runs a batch in
 * one read transaction). A write or a schema read goes alone. When the worker running a batch is
 * killed for one request's timeout or cancel, the others of its batch (reads, which may run again)
 * go back to the front of the queue, to run alone, so no read is cut off twice.
 *
 * Each worker is started, reached and killed by the family's worker-process helper
 * (../worker-process.ts: its channel, a socket each way of newline-delimited JSON).
 */
import type { CallSignal } from '../../../util/call-signal.js';
import { CANCELLED_MESSAGE, timeoutMessage } from '../result.js';
import { startWorker, type WorkerProcess } from '../worker-process.js';
import { WORKER_ARG } from './wire.js';
import type { WorkerInit, WorkerRequest, WorkerResponse } from './worker.js';

/** A request without its id (the pool numbers them). */
type Job = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

interface Pending {
  readonly request: WorkerRequest;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: Error) => void;
  slot?: Slot;
  /** Cut off once with a batch it was in: it runs alone from now on. */
  alone?: boolean;
  settle(): void;
}

interface Slot {
  child?: WorkerProcess;
  /** The requests sent to the worker and not answered yet, in the order it runs them. */
  batch: Pending[];
}

const CLOSED_MESSAGE = 'the database is not open: the source was closed';
/** Requests sent to a worker at once at most. */
const MAX_BATCH = 16;
/** How long a cancelled read may go on running before its worker is killed (see `abandon`). */
const CANCEL_GRACE_MS = 250;

/** A statement that must be a read (a read-only source or tool): running it again, or a little longer, changes nothing. */
const mustRead = (p: Pending) => p.request.op === 'query' && p.request.readsOnly;
/** Reads may share a batch: they run again if the batch is cut off. */
const batchable = (p: Pending) => mustRead(p) && !p.alone;

export class SqlitePool {
  private readonly slots: Slot[];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly init: WorkerInit,
    size: number,
  ) {
    this.slots = Array.from({ length: size }, () => ({ batch: [] }));
  }

  /** How many worker processes are running now (for tests and diagnostics). */
  get running(): number {
    return this.slots.filter((s) => s.child).length;
  }

  /** How many batches were sent to workers so far (for tests and diagnostics). */
  sent = 0;

  /** The process ids of the running workers. */
  get pids(): number[] {
    return this.slots.flatMap((s) => (s.child?.pid !== undefined ? [s.child.pid] : []));
  }

  run<T>(job: Job, timeoutMs: number, signal: CallSignal): Promise<T> {
    if (this.closed) return Promise.reject(new Error(CLOSED_MESSAGE));
    if (signal.aborted) return Promise.reject(new Error(CANCELLED_MESSAGE));
    return new Promise<T>((resolve, reject) => {
      const stop = (message: string, grace: boolean) => {
        const at = this.queue.indexOf(pending);
        if (at >= 0) this.queue.splice(at, 1);
        if (pending.slot) {
          if (grace && mustRead(pending)) this.abandon(pending);
          else this.kill(pending.slot, pending);
        }
        pending.settle();
        reject(new Error(message));
      };
      const timer = setTimeout(() => stop(timeoutMessage(timeoutMs), false), timeoutMs);
      const onAbort = () => stop(CANCELLED_MESSAGE, true);
      signal.addEventListener('abort', onAbort, { once: true });
      const pending: Pending = {
        request: { ...job, id: this.nextId++ } as WorkerRequest,
        resolve: (value) => {
          pending.settle();
          resolve(value as T);
        },
        reject: (err) => {
          pending.settle();
          reject(err);
        },
        settle() {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
        },
      };
      this.queue.push(pending);
      this.schedule();
    });
  }

  /** Kills every worker; requests in flight fail. */
  close(): void {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(new Error(CLOSED_MESSAGE));
    for (const slot of this.slots) {
      const batch = slot.batch;
      this.kill(slot);
      for (const pending of batch) pending.reject(new Error(CLOSED_MESSAGE));
    }
  }

  private scheduled = false;

  /**
   * Dispatches once the event loop has taken in what is ready now: the requests of every call that
   * arrived in this turn (each its own socket callback) queue up first and go as one batch, not the
   * first alone. A write costs a wake-up of the worker and one of the server for its answer, so
   * fewer, fuller batches are most of what a busy pool saves.
   */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.dispatch();
    });
  }

  private dispatch(): void {
    let free = 0;
    for (const slot of this.slots) if (slot.batch.length === 0) free++;
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.batch.length > 0) continue;
      // Shared out among the free workers: a read never waits behind another while one sits idle.
      const batch = this.take(Math.ceil(this.queue.length / free--));
      if (!slot.child) this.spawn(slot);
      slot.batch = batch;
      for (const pending of batch) pending.slot = slot;
      // One request costs one line; an answer comes back before the request's timer is due, and
      // that timer keeps the server's loop alive meanwhile (the channel itself never does).
      slot.child!.send(JSON.stringify(batch.map((p) => p.request)));
      this.sent++;
    }
  }

  /** The next request, with up to `most - 1` reads queued right behind it when it is a read itself. */
  private take(most: number): Pending[] {
    const first = this.queue.shift()!;
    if (!batchable(first)) return [first];
    const batch = [first];
    const limit = Math.min(most, MAX_BATCH);
    while (batch.length < limit && this.queue.length > 0 && batchable(this.queue[0]!)) {
      batch.push(this.queue.shift()!);
    }
    return batch;
  }

  private spawn(slot: Slot): void {
    const child = startWorker('kinds/sql/sqlite/worker', WORKER_ARG, {
      line: (line) => this.answered(slot, JSON.parse(line) as readonly WorkerResponse[]),
      gone: (why) => {
        if (slot.child !== child) return;
        slot.child = undefined;
        const batch = slot.batch;
        slot.batch = [];
        for (const pending of batch) {
          pending.slot = undefined;
          pending.reject(new Error(`the SQLite worker stopped (${why}); try again`));
        }
        if (!this.closed) this.dispatch();
      },
    });
    child.send(JSON.stringify(this.init));
    slot.child = child;
  }

  private answered(slot: Slot, answers: readonly WorkerResponse[]): void {
    for (const answer of answers) {
      // In the batch's order, so almost always the first one.
      const at = slot.batch.findIndex((p) => p.request.id === answer.id);
      if (at < 0) continue;
      const pending = slot.batch.splice(at, 1)[0]!;
      pending.slot = undefined;
      if (answer.ok) pending.resolve(answer.value);
      else pending.reject(new Error(answer.message));
    }
    // Only when requests wait for it: a turn scheduled for nothing costs a one-at-a-time server
    // (every answer empties the queue) a few percent of each call's CPU.
    if (slot.batch.length === 0 && this.queue.length > 0) this.schedule();
  }

  /**
   * A cancelled read that is running: its caller has its answer already, and the worker is killed
   * only if the read is still running CANCEL_GRACE_MS later. Most reads end well before that, and a
   * worker costs a process start to replace: a caller that cancels every call it makes must not
   * make the server start a process per call. (A write is killed at once: it must not commit after
   * its caller was told it was cancelled.)
   */
  private abandon(pending: Pending): void {
    const slot = pending.slot!;
    const child = slot.child;
    const grace = setTimeout(() => {
      if (slot.child === child && slot.batch.includes(pending)) this.kill(slot, pending);
    }, CANCEL_GRACE_MS);
    grace.unref();
  }

  /**
   * Ends the slot's worker now; the slot's next request starts a new one. The reads of the batch
   * other than `culprit` go back to the front of the queue, to run alone.
   */
  private kill(slot: Slot, culprit?: Pending): void {
    const child = slot.child;
    slot.child = undefined;
    const batch = slot.batch;
    slot.batch = [];
    const again: Pending[] = [];
    for (const pending of batch) {
      pending.slot = undefined;
      if (pending === culprit || !culprit) continue;
      pending.alone = true;
      again.push(pending);
    }
    this.queue.unshift(...again);
    child?.kill();
    if (!this.closed) queueMicrotask(() => this.dispatch());
  }
}
