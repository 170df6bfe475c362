/**
 * A small pool of SQLite worker processes (sqlite-worker.ts), one connection each, started on the
 * first request. A request waits for a free worker; its time limit counts from when it was asked.
 * When the limit passes or the caller's signal aborts, the worker running it is killed (SIGKILL:
 * better-sqlite3 cannot interrupt a statement) and the next request starts a fresh one, so a runaway
 * query ends at its timeout and never holds the server.
 *
 * Workers are forked from the compiled `sqlite-worker.js` beside this file; when this file runs
 * from src/ under tsx (the tests), from `sqlite-worker.ts` with tsx's loader.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BUILD_ROOT } from '../../util/build-root.js';
import { CANCELLED_MESSAGE, timeoutMessage } from './result.js';
import type { WorkerInit, WorkerRequest, WorkerResponse } from './sqlite-worker.js';

/** A request without its id (the pool numbers them). */
type Job = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

interface Pending {
  readonly id: number;
  readonly job: Job;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: Error) => void;
  slot?: Slot;
  settle(): void;
}

interface Slot {
  child?: ChildProcess;
  current?: Pending;
}

const CLOSED_MESSAGE = 'the database is not open: the source was closed';

/** Every live worker of every pool, killed when the server process exits however it exits. */
const live = new Set<ChildProcess>();
let exitHook = false;

function workerEntry(): { path: string; execArgv: string[] } {
  if (import.meta.url.endsWith('.ts')) {
    return {
      path: fileURLToPath(new URL('kinds/sql/sqlite-worker.ts', BUILD_ROOT)),
      execArgv: ['--import', import.meta.resolve('tsx')],
    };
  }
  return { path: fileURLToPath(new URL('kinds/sql/sqlite-worker.js', BUILD_ROOT)), execArgv: [] };
}

export class SqlitePool {
  private readonly slots: Slot[];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly init: WorkerInit,
    size: number,
  ) {
    this.slots = Array.from({ length: size }, () => ({}));
  }

  /** How many worker processes are running now (for tests and diagnostics). */
  get running(): number {
    return this.slots.filter((s) => s.child).length;
  }

  /** The process ids of the running workers. */
  get pids(): number[] {
    return this.slots.flatMap((s) => (s.child?.pid !== undefined ? [s.child.pid] : []));
  }

  run<T>(job: Job, timeoutMs: number, signal: AbortSignal): Promise<T> {
    if (this.closed) return Promise.reject(new Error(CLOSED_MESSAGE));
    if (signal.aborted) return Promise.reject(new Error(CANCELLED_MESSAGE));
    return new Promise<T>((resolve, reject) => {
      const stop = (message: string) => {
        const at = this.queue.indexOf(pending);
        if (at >= 0) this.queue.splice(at, 1);
        if (pending.slot) this.kill(pending.slot);
        pending.settle();
        reject(new Error(message));
      };
      const timer = setTimeout(() => stop(timeoutMessage(timeoutMs)), timeoutMs);
      const onAbort = () => stop(CANCELLED_MESSAGE);
      signal.addEventListener('abort', onAbort, { once: true });
      const pending: Pending = {
        id: this.nextId++,
        job,
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
      this.dispatch();
    });
  }

  /** Kills every worker; requests in flight fail. */
  close(): void {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(new Error(CLOSED_MESSAGE));
    for (const slot of this.slots) {
      const current = slot.current;
      this.kill(slot);
      current?.reject(new Error(CLOSED_MESSAGE));
    }
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.current) continue;
      const pending = this.queue.shift()!;
      const child = slot.child ?? this.spawn(slot);
      slot.current = pending;
      pending.slot = slot;
      child.channel?.ref();
      child.send({ ...pending.job, id: pending.id });
    }
  }

  private spawn(slot: Slot): ChildProcess {
    const entry = workerEntry();
    const child = fork(entry.path, [], {
      execArgv: entry.execArgv,
      // JSON: about half the cost of 'advanced' per small message; sqlite-wire.ts tags bigints and bytes.
      serialization: 'json',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    live.add(child);
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => {
        for (const c of live) c.kill('SIGKILL');
      });
    }
    // An idle worker does not keep the server alive; a running request refs the channel.
    child.unref();
    child.channel?.unref();
    child.on('message', (message: WorkerResponse) => {
      const current = slot.current;
      if (slot.child !== child || !current || current.id !== message.id) return;
      slot.current = undefined;
      current.slot = undefined;
      child.channel?.unref();
      if (message.ok) current.resolve(message.value);
      else current.reject(new Error(message.message));
      this.dispatch();
    });
    const gone = (why: string) => {
      live.delete(child);
      if (slot.child !== child) return;
      slot.child = undefined;
      const current = slot.current;
      slot.current = undefined;
      current?.reject(new Error(`the SQLite worker stopped (${why}); try again`));
      if (!this.closed) this.dispatch();
    };
    child.on('exit', (code, sig) => gone(sig ? `signal ${sig}` : `exit code ${code}`));
    child.on('error', (err) => gone(err.message));
    child.send(this.init);
    slot.child = child;
    return child;
  }

  /** Ends the slot's worker now; the slot's next request starts a new one. */
  private kill(slot: Slot): void {
    const child = slot.child;
    slot.child = undefined;
    if (slot.current) slot.current.slot = undefined;
    slot.current = undefined;
    if (child) {
      child.kill('SIGKILL');
      live.delete(child);
    }
    if (!this.closed) queueMicrotask(() => this.dispatch());
  }
}
