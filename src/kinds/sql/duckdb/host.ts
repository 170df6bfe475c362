/**
 * The server's side of a DuckDB source's worker process (worker.ts): the process holds the DuckDB
 * instance, and the server holds it to two hard limits that DuckDB cannot hold in-process.
 *
 * - **Memory.** DuckDB's memory_limit bounds its buffer manager only; a string function allocates
 *   outside it. While a query runs, the worker's resident memory (VmRSS, read from /proc every
 *   WATCH_MS) is held under its `bound`: its own size once open, plus memoryLimit, plus the result
 *   budgets of the queries that may run at once (RESULT_COPIES × maxBytes each), plus SLACK_BYTES.
 *   Past it, the process is killed.
 * - **Time.** At a call's time limit the worker interrupts its query (run.ts); a query that does not
 *   stop (a string function does not look at the interrupt) is ended with its process GRACE_MS
 *   later. A cancelled call is answered at once, and its process killed if the query still runs
 *   GRACE_MS later.
 *
 * The source keeps serving: the next request starts a fresh process. A kill costs no call but its
 * culprit's. The others that were running are reads, so they run again; when the memory bound was
 * passed with several running, which one passed it is not known, so each runs again alone (nothing
 * else with it), and one that passes the bound alone is the culprit.
 *
 * At most `poolSize` queries are in the worker at once (one per connection); the others wait here.
 * A call's time limit counts from its start, waiting included (as on SQLite): one whose limit passed
 * while it waited fails without being sent.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CallSignal } from '../../../util/call-signal.js';
import type { SourcePoolStats, SqlResult } from '../../contract/kinds.js';
import { CANCELLED_MESSAGE, timeoutMessage } from '../result.js';
import { packValue, startWorker, type WorkerProcess } from '../worker-process.js';
import type { WorkerInit } from './open.js';
import type { WorkerRun } from './run.js';
import { WORKER_ARG, type WorkerAnswer, type WorkerGreeting, type WorkerRequest } from './worker.js';

/** How long a query may run past its time limit (or its cancel) before its process is killed. */
export const GRACE_MS = 3000;
/** How long a new worker may take to open the source. */
const START_MS = 60_000;
/** How often a running worker's memory is read. */
const WATCH_MS = 10;
/** Copies of a result a query may hold at once: DuckDB's chunk, the JavaScript rows, their JSON text. */
const RESULT_COPIES = 4;
/** What the process may grow by besides (its heap's growth, DuckDB's own bookkeeping). */
const SLACK_BYTES = 64 * 1024 * 1024;
const CLOSED_MESSAGE = 'the source was closed';

export interface HostLimits {
  /** memoryLimit, in bytes. */
  readonly memoryBytes: number;
  readonly maxBytes: number;
  readonly poolSize: number;
}

interface Pending {
  readonly id: number;
  readonly text: string;
  readonly values: readonly unknown[];
  readonly run: Omit<WorkerRun, 'deadlineMs'>;
  readonly resolve: (value: SqlResult) => void;
  readonly reject: (err: Error) => void;
  /** Its time limit ends then (Date.now()): it counts from the call's start, waiting included. */
  readonly deadline: number;
  timer?: NodeJS.Timeout;
  /** Cancelled while it ran: its caller has its answer, the worker's is dropped. */
  cancelled?: boolean;
  /** Runs with nothing else: it was running when the memory bound was passed with others. */
  alone?: boolean;
  settled?: boolean;
  settle(): void;
}

export class DuckdbHost {
  private worker: WorkerProcess | undefined;
  /** The running worker's own temporary folder. */
  private workerTemp = '';
  /** The worker has not greeted yet: the time it may take (the timer also keeps the server alive for it). */
  private starting: NodeJS.Timeout | undefined;
  private readonly queue: Pending[] = [];
  private readonly running = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  private watchTimer: NodeJS.Timeout | undefined;
  /** The running worker's memory bound, in bytes, once it greeted. */
  private bound = 0;
  /** Connections the running worker has opened (it keeps them). */
  private connections = 0;
  private opening: { resolve: () => void; reject: (err: Error) => void } | undefined;
  /** Why the last worker could not open, and which field of the source it is about. */
  failure: Extract<WorkerGreeting, { failed: string }> = { failed: '' };

  constructor(
    private readonly init: Omit<WorkerInit, 'temp'>,
    /** The source's temporary folder: each worker gets a folder of its own inside it. */
    private readonly temp: string,
    private readonly limits: HostLimits,
  ) {}

  /** Starts the first worker; rejects when the source cannot open (`failure` says why). */
  open(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.opening = { resolve, reject };
      this.spawn();
    });
  }

  /** The running worker's process id (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.worker?.pid;
  }

  /** The memory bound of the running worker, in bytes (for tests and the docs' figures). */
  get memoryBound(): number {
    return this.bound;
  }

  run(text: string, values: readonly unknown[], run: Omit<WorkerRun, 'deadlineMs'>, signal: CallSignal) {
    if (this.closed) return Promise.reject(new Error(CLOSED_MESSAGE));
    if (signal.aborted) return Promise.reject(new Error(CANCELLED_MESSAGE));
    return new Promise<SqlResult>((resolve, reject) => {
      const onAbort = () => this.cancel(pending);
      signal.addEventListener('abort', onAbort, { once: true });
      const pending: Pending = {
        id: this.nextId++,
        text,
        values: values.map(channelValue),
        run,
        deadline: Date.now() + run.timeoutMs,
        resolve: (value) => {
          pending.settle();
          resolve(value);
        },
        reject: (err) => {
          pending.settle();
          reject(err);
        },
        settle() {
          pending.settled = true;
          clearTimeout(pending.timer);
          signal.removeEventListener('abort', onAbort);
        },
      };
      pending.timer = setTimeout(() => this.overdue(pending), run.timeoutMs + GRACE_MS);
      this.queue.push(pending);
      this.dispatch();
    });
  }

  stats(): SourcePoolStats {
    return {
      total: this.connections,
      idle: Math.max(0, this.connections - this.running.size),
      waiting: this.queue.length,
    };
  }

  /** Kills the worker; calls waiting or running fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(new Error(CLOSED_MESSAGE));
    for (const pending of this.running.values()) {
      clearTimeout(pending.timer);
      if (!pending.settled) pending.reject(new Error(CLOSED_MESSAGE));
    }
    this.running.clear();
    this.stopWatch();
    clearTimeout(this.starting);
    const worker = this.worker;
    this.worker = undefined;
    worker?.kill();
    await worker?.exited;
  }

  /** Ends the worker; its temporary folder (a killed worker's spill files) goes once it has exited. */
  private end(worker: WorkerProcess, temp: string): void {
    worker.kill();
    worker.exited.then(() => rm(temp, { recursive: true, force: true })).catch(() => undefined);
  }

  private spawn(): void {
    this.starting = setTimeout(
      () => this.lost(undefined, `the DuckDB process did not open the source within ${START_MS / 1000} s`),
      START_MS,
    );
    this.connections = 0;
    const temp = mkdtempSync(join(this.temp, 'worker-'));
    const worker: WorkerProcess = startWorker('kinds/sql/duckdb/worker', WORKER_ARG, {
      line: (line) => this.answered(worker, JSON.parse(line) as WorkerGreeting | WorkerAnswer),
      gone: (why) => {
        if (this.worker === worker) this.lost(undefined, `the DuckDB process stopped (${why}); try again`);
      },
    });
    this.worker = worker;
    this.workerTemp = temp;
    worker.send(JSON.stringify({ ...this.init, temp } satisfies WorkerInit));
  }

  private dispatch(): void {
    if (this.closed || this.queue.length === 0) return;
    if (!this.worker) this.spawn();
    if (this.starting) return;
    for (const p of this.running.values()) if (p.alone) return;
    while (this.queue.length > 0 && this.running.size < this.limits.poolSize) {
      if (this.queue[0]!.alone && this.running.size > 0) return;
      const pending = this.queue.shift()!;
      // Its time limit passed while it waited: it would be interrupted as it starts.
      if (Date.now() >= pending.deadline) {
        pending.reject(new Error(timeoutMessage(pending.run.timeoutMs)));
        continue;
      }
      this.send(pending);
      if (pending.alone) return;
    }
  }

  private send(pending: Pending): void {
    this.running.set(pending.id, pending);
    this.connections = Math.max(this.connections, this.running.size);
    const request: WorkerRequest = {
      id: pending.id,
      op: 'query',
      text: pending.text,
      values: pending.values,
      run: { ...pending.run, deadlineMs: Math.max(1, pending.deadline - Date.now()) },
    };
    this.worker!.send(JSON.stringify(request));
    this.startWatch();
  }

  private answered(worker: WorkerProcess, message: WorkerGreeting | WorkerAnswer): void {
    if (worker !== this.worker) return;
    if (!('id' in message)) {
      this.greeted(worker, message);
      return;
    }
    const pending = this.running.get(message.id);
    if (!pending) return;
    this.running.delete(message.id);
    clearTimeout(pending.timer);
    if (!pending.cancelled) {
      if (message.ok) pending.resolve(message.value);
      else pending.reject(new Error(message.message));
    }
    if (this.running.size === 0) this.stopWatch();
    this.dispatch();
  }

  private greeted(worker: WorkerProcess, greeting: WorkerGreeting): void {
    clearTimeout(this.starting);
    this.starting = undefined;
    if ('failed' in greeting) {
      this.failure = greeting;
      this.worker = undefined;
      this.end(worker, this.workerTemp);
      const err = new Error(`the DuckDB source cannot open: ${greeting.failed}`);
      for (const pending of this.queue.splice(0)) pending.reject(err);
      this.opening?.reject(err);
      this.opening = undefined;
      return;
    }
    const rss = residentBytes(worker.pid);
    const { memoryBytes, maxBytes, poolSize } = this.limits;
    this.bound =
      rss === undefined ? 0 : rss + memoryBytes + poolSize * RESULT_COPIES * maxBytes + SLACK_BYTES;
    this.opening?.resolve();
    this.opening = undefined;
    this.dispatch();
  }

  /** The call's time limit and grace have passed: waiting, it times out; running, so does its process. */
  private overdue(pending: Pending): void {
    const message = timeoutMessage(pending.run.timeoutMs);
    const at = this.queue.indexOf(pending);
    if (at >= 0) {
      this.queue.splice(at, 1);
      pending.reject(new Error(message));
    } else if (this.running.has(pending.id)) {
      this.lost(pending, message);
    }
  }

  private cancel(pending: Pending): void {
    const at = this.queue.indexOf(pending);
    if (at >= 0) this.queue.splice(at, 1);
    pending.reject(new Error(CANCELLED_MESSAGE));
    if (!this.running.has(pending.id)) return;
    pending.cancelled = true;
    this.worker!.send(JSON.stringify({ id: pending.id, op: 'cancel' } satisfies WorkerRequest));
    pending.timer = setTimeout(() => {
      if (this.running.get(pending.id) === pending) this.lost(pending, CANCELLED_MESSAGE);
    }, GRACE_MS);
  }

  /**
   * The worker is killed, or died: `culprit` fails with `message` (when none is known and only one
   * query ran, it is that one); the other running calls run again, each alone when the culprit is
   * not known.
   */
  private lost(culprit: Pending | undefined, message: string): void {
    const worker = this.worker;
    this.worker = undefined;
    clearTimeout(this.starting);
    this.starting = undefined;
    this.stopWatch();
    if (worker) this.end(worker, this.workerTemp);
    const running = [...this.running.values()];
    this.running.clear();
    const known = culprit ?? (running.length === 1 || running[0]?.alone ? running[0] : undefined);
    const again: Pending[] = [];
    for (const pending of running) {
      if (pending === known || pending.cancelled) {
        clearTimeout(pending.timer);
        if (!pending.settled) pending.reject(new Error(message));
        continue;
      }
      // Its time limit, and the timer that holds it, still count from the call's start.
      if (!culprit) pending.alone = true;
      again.push(pending);
    }
    this.queue.unshift(...again);
    if (this.opening) {
      this.opening.reject(new Error(message));
      this.opening = undefined;
    }
    this.dispatch();
  }

  private startWatch(): void {
    if (this.watchTimer || this.bound === 0) return;
    this.watchTimer = setInterval(() => {
      const rss = residentBytes(this.worker?.pid);
      if (rss === undefined || rss <= this.bound) return;
      this.lost(undefined, memoryMessage(this.bound, this.limits.memoryBytes));
    }, WATCH_MS);
  }

  private stopWatch(): void {
    clearInterval(this.watchTimer);
    this.watchTimer = undefined;
  }
}

/** A bound value as it crosses the channel: bigints and bytes tagged, objects as JSON text. */
function channelValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'bigint' || value instanceof Uint8Array) return packValue(value);
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return value;
}

const MIB = 1024 * 1024;

function memoryMessage(bound: number, memoryBytes: number): string {
  return `the query took DuckDB's process past its memory bound (${Math.round(bound / MIB)} MiB: the source's memoryLimit of ${Math.round(memoryBytes / MIB)} MiB, the result budgets and the process itself) and was stopped; the source serves the next call in a fresh process. Make the query hold less at once (smaller values: length(col) or substr(col, 1, 200) instead of a big one), or raise memoryLimit`;
}

/** A process's resident memory in bytes (VmRSS), or undefined where /proc does not say (not Linux, or gone). */
export function residentBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const at = status.indexOf('VmRSS:');
    if (at < 0) return undefined;
    return Number.parseInt(status.slice(at + 6), 10) * 1024;
  } catch {
    return undefined;
  }
}
