/**
 * The task engine, one per protocol instance, for both eras: creates tasks under the limits, moves
 * them through their states, answers reads for their owner only, and ends them (completed, failed,
 * cancelled). The protocol's task methods (protocol/methods/tasks.ts) and the task path of
 * `tools/call` (protocol/task-call.ts) are its only users; it knows no JSON-RPC framing or era.
 *
 * States: working ⇄ input_required → completed | failed | cancelled; a terminal state never
 * changes. Records live in a TaskStore; what a record cannot hold (the call's AbortController, the
 * waiters) lives here, in `live`. A task that is not terminal but has no live call anywhere (its
 * runner was this process and the call is gone, or another runner fell silent for STALE_MS) reads
 * as failed, never as working forever.
 */

import { StateUnavailable } from '../state/shared.js';
import type { InputRequest } from '../steps/interaction.js';
import { uniqueName } from '../util/unique.js';
import { newTaskId } from './ids.js';
import {
  TASK_DEFAULTS,
  type TaskBusMessage,
  type TaskEngineOptions,
  type TaskError,
  type TaskRecord,
  type TaskSettings,
  type TaskStatus,
  type TaskStore,
  TERMINAL,
} from './types.js';

/** A runner that has not refreshed `aliveAt` for this long is taken to be gone (default). */
export const STALE_MS = 30_000;
/** A cancel sent to another replica's runner is waited for this long (at most) before it is written here. */
const REMOTE_CANCEL_WAIT_MS = 5000;
/** Waits between tries of a task's last write while its store is unreachable (the last repeats). */
const UNREACHABLE_RETRY_MS = [250, 500, 1000, 2000];
/** JSON-RPC internal error: the code a task failed by the server itself carries. */
const INTERNAL_ERROR = -32603;

/** A creation refused by a limit; the message says which and what to do. */
export class TaskLimitReached extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TaskLimitReached';
  }
}

/** Sends one 2025 server→client request for a task (through a `tasks/result` in flight). */
export type TaskSender = (request: InputRequest, timeoutMs: number) => Promise<unknown>;

interface Live {
  readonly controller: AbortController;
  /** Woken on every change of the record. */
  readonly waiters: Set<() => void>;
  /** 2026: the questions parked as inputRequests, and the answers gathered so far. */
  asking?: {
    readonly pending: Map<string, InputRequest>;
    readonly answers: Record<string, unknown>;
    readonly resolve: (answers: Record<string, unknown>) => void;
  };
  /** 2025: the channel of the `tasks/result` in flight, if any, and who waits for one. */
  sender?: TaskSender;
  readonly senderWaiters: Set<() => void>;
  readonly expiry: NodeJS.Timeout;
}

export type StatusListener = (record: TaskRecord) => void;

export class TaskEngine {
  /** This process, as the runner of the tasks it starts (unique; never shown to clients). */
  readonly instance = uniqueName();
  private readonly live = new Map<string, Live>();
  private readonly listeners = new Set<StatusListener>();
  private heartbeat: NodeJS.Timeout | undefined;
  private creating: Promise<void> = Promise.resolve();
  /** Per task, the tail of its record writes here: a heartbeat never overwrites a newer state. */
  private readonly writes = new Map<string, Promise<void>>();
  private readonly staleMs: number;
  private readonly bus: TaskEngineOptions['bus'];
  private readonly listening: Promise<void>;

  constructor(
    readonly store: TaskStore,
    /** Read at each creation, so a reload's new `server.tasks` applies to the next task. */
    private readonly settings: () => TaskSettings | undefined,
    options: TaskEngineOptions = {},
  ) {
    this.staleMs = options.staleMs ?? STALE_MS;
    this.bus = options.bus;
    this.listening =
      this.bus?.listen(this.instance, (message) => void this.fromBus(message).catch(() => {})) ??
      Promise.resolve();
    // Not listening yet only delays a remote cancel to the wait's end (it is then written by the asker).
    this.listening.catch(() => {});
  }

  /** A message from another replica about a task running here. */
  private async fromBus(message: TaskBusMessage): Promise<void> {
    if (!this.live.has(message.taskId)) return;
    const record = await this.store.get(message.taskId);
    if (record === undefined) return;
    if (message.kind === 'cancel') await this.cancel(record.owner, record.taskId);
    else if (message.kind === 'answer') await this.answer(record.owner, record.taskId, message.responses);
  }

  /** Runs the task's record writes one after another. */
  private serial<T>(taskId: string, write: () => Promise<T>): Promise<T> {
    const previous = this.writes.get(taskId) ?? Promise.resolve();
    const next = previous.then(write);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.writes.set(taskId, tail);
    void tail.then(() => {
      if (this.writes.get(taskId) === tail) this.writes.delete(taskId);
    });
    return next;
  }

  private limits(): Required<TaskSettings> {
    return { ...TASK_DEFAULTS, ...this.settings() };
  }

  /** Called on every status change of any task (notifications/tasks/status). */
  onStatus(listener: StatusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * A new working task for `owner`. `ttlMs` is what the client asked for (2025), capped by the
   * configured ttl. Throws TaskLimitReached when the owner holds maxPerCaller tasks or the task
   * memory is full.
   */
  create(owner: string, ttlMs?: number): Promise<TaskRecord> {
    // One creation at a time: the count and the put must not interleave with another's (with a
    // store whose calls really wait, a flood would otherwise slip past the caps).
    const created = this.creating.then(() => this.createNow(owner, ttlMs));
    this.creating = created.then(
      () => undefined,
      () => undefined,
    );
    return created;
  }

  private async createNow(owner: string, ttlMs: number | undefined): Promise<TaskRecord> {
    const limits = this.limits();
    const held = await this.held(owner);
    if (held.length >= limits.maxPerCaller)
      throw new TaskLimitReached(
        `too many tasks: this caller holds ${held.length} (the limit is ${limits.maxPerCaller}, server.tasks.maxPerCaller); cancel some or wait until they expire (after ${limits.ttlMs} ms)`,
      );
    const used = await this.store.bytes();
    if (used >= limits.maxBytes)
      throw new TaskLimitReached(
        `the task memory is full (${used} of ${limits.maxBytes} bytes, server.tasks.maxBytes); retry once older tasks expire`,
      );
    const now = Date.now();
    const ttl = ttlMs !== undefined && ttlMs > 0 ? Math.min(Math.floor(ttlMs), limits.ttlMs) : limits.ttlMs;
    const record: TaskRecord = {
      taskId: newTaskId(),
      owner,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: ttl,
      pollIntervalMs: limits.pollIntervalMs,
      runner: this.instance,
      aliveAt: now,
      bytes: 512,
    };
    await this.store.put(record);
    const controller = new AbortController();
    // A call still running when its task expires has nobody left to read it: it is stopped.
    const expiry = setTimeout(() => this.expire(record.taskId), ttl);
    expiry.unref();
    this.live.set(record.taskId, { controller, waiters: new Set(), senderWaiters: new Set(), expiry });
    this.startHeartbeat();
    return record;
  }

  /**
   * The owner is gone for good (its 2025 session ended, its stdio connection closed): its running
   * tasks are stopped and all its records forgotten, since nobody can ask for them any more.
   */
  async dropOwner(owner: string): Promise<void> {
    for (const record of await this.store.list(owner)) {
      this.stop(record.taskId, new Error('the session that owned the task ended'));
      await this.store.delete(record.taskId);
    }
  }

  /** The call ended on its own: forget its live part, keep the record. */
  private settle(taskId: string): void {
    const live = this.live.get(taskId);
    if (live === undefined) return;
    this.live.delete(taskId);
    clearTimeout(live.expiry);
  }

  /** Stops the call: its live part goes and its signal aborts. */
  private stop(taskId: string, reason: Error): void {
    const live = this.live.get(taskId);
    if (live === undefined) return;
    this.settle(taskId);
    live.controller.abort(reason);
  }

  private expire(taskId: string): void {
    this.stop(taskId, new Error('the task expired'));
    void this.store.delete(taskId);
  }

  /** Forgets a task that was never handed out (a 2026 call that asked for input first). */
  async discard(taskId: string): Promise<void> {
    this.settle(taskId);
    await this.store.delete(taskId);
  }

  /** The running call's signal; aborted by tasks/cancel and by close(). */
  signal(taskId: string): AbortSignal {
    const live = this.live.get(taskId);
    if (live === undefined) return AbortSignal.abort(new Error('the task is not running here'));
    return live.controller.signal;
  }

  /** The task as its owner sees it; undefined for an unknown, expired or foreign id. */
  async get(owner: string, taskId: string): Promise<TaskRecord | undefined> {
    const record = await this.store.get(taskId);
    if (record === undefined || record.owner !== owner) return undefined;
    const now = Date.now();
    if (now >= record.createdAt + record.ttlMs) {
      this.stop(taskId, new Error('the task expired'));
      await this.store.delete(taskId);
      return undefined;
    }
    if (TERMINAL.has(record.status) || this.live.has(taskId)) return record;
    const orphaned = record.runner === this.instance || now - record.aliveAt > this.staleMs;
    if (!orphaned) return record;
    const failed = stamp(record, {
      status: 'failed',
      statusMessage: 'The server running this task went away before it finished.',
      error: { code: INTERNAL_ERROR, message: 'The server running this task went away before it finished.' },
    });
    await this.store.put(failed);
    return failed;
  }

  /** The owner's live (unexpired) tasks, oldest first. */
  async list(owner: string): Promise<readonly TaskRecord[]> {
    const held = await this.held(owner);
    const out: TaskRecord[] = [];
    for (const record of held) {
      const seen = await this.get(owner, record.taskId);
      if (seen !== undefined) out.push(seen);
    }
    return out;
  }

  /** Progress or a status line while working. */
  async note(taskId: string, statusMessage: string): Promise<void> {
    await this.change(taskId, { statusMessage });
  }

  async complete(taskId: string, result: object): Promise<void> {
    try {
      await this.untilStored(taskId, () => this.completeNow(taskId, result));
    } catch (err) {
      // A store that refuses the record (beyond its value bound), or is still unreachable when the
      // task expires, fails the task.
      await this.fail(taskId, {
        code: INTERNAL_ERROR,
        message: `The task's result could not be stored: ${(err as Error).message}`,
      });
    }
  }

  /**
   * Runs a task's last write; while the store is unreachable (Redis down under `--state`) tries it
   * again, until it lands or the task expires. A call that finishes during an outage keeps its
   * outcome here, and its owner polls it to that outcome once the store is back, from any replica:
   * the live part stays meanwhile, so the heartbeat resumes and no replica takes the runner for gone.
   */
  private async untilStored(taskId: string, write: () => Promise<void>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await write();
      } catch (err) {
        if (!(err instanceof StateUnavailable) || !this.live.has(taskId)) throw err;
        const wait = UNREACHABLE_RETRY_MS[Math.min(attempt, UNREACHABLE_RETRY_MS.length - 1)];
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  private async completeNow(taskId: string, result: object): Promise<void> {
    const bytes = Buffer.byteLength(JSON.stringify(result));
    const { maxBytes } = this.limits();
    const used = await this.store.bytes();
    if (used + bytes > maxBytes) {
      await this.fail(taskId, {
        code: INTERNAL_ERROR,
        message: `The task's result (${bytes} bytes) does not fit the task memory (${used} of ${maxBytes} bytes used, server.tasks.maxBytes); run the tool again later or without a task.`,
      });
      return;
    }
    await this.change(taskId, { status: 'completed', result, bytes: bytes + 512 });
    this.settle(taskId);
  }

  async fail(taskId: string, error: TaskError): Promise<void> {
    try {
      await this.untilStored(taskId, () =>
        this.change(taskId, { status: 'failed', error, statusMessage: error.message }),
      );
    } finally {
      this.settle(taskId);
    }
  }

  /**
   * Cancels a task of `owner`: aborts its call (the process tree, the HTTP request, the query) and
   * marks it cancelled. A terminal task stays as it is. Undefined for an unknown id.
   */
  async cancel(owner: string, taskId: string): Promise<TaskRecord | undefined> {
    const record = await this.get(owner, taskId);
    if (record === undefined || TERMINAL.has(record.status)) return record;
    if (!this.live.has(taskId) && record.runner !== this.instance && this.bus !== undefined) {
      // Another replica runs it: it stops the call and writes the end; if it stays silent the
      // cancel is written here (its call then ends with nobody to read it).
      await this.bus.send(record.runner, { kind: 'cancel', taskId });
      const until = Date.now() + Math.min(REMOTE_CANCEL_WAIT_MS, this.staleMs);
      for (;;) {
        const now = await this.get(owner, taskId);
        if (now === undefined || TERMINAL.has(now.status)) return now;
        if (Date.now() > until) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
    await this.change(taskId, { status: 'cancelled', statusMessage: 'Cancelled by the client.' });
    this.stop(taskId, new Error('the task was cancelled'));
    return this.store.get(taskId);
  }

  /**
   * 2026: parks `requests` as the task's inputRequests (status input_required) and resolves with
   * the answers once tasks/update has delivered one for every key.
   */
  ask(taskId: string, requests: Readonly<Record<string, InputRequest>>): Promise<Record<string, unknown>> {
    const live = this.live.get(taskId);
    if (live === undefined) return Promise.reject(new Error('the task is not running'));
    return new Promise((resolve, reject) => {
      const signal = live.controller.signal;
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      live.asking = {
        pending: new Map(Object.entries(requests)),
        answers: {},
        resolve: (answers) => {
          signal.removeEventListener('abort', onAbort);
          resolve(answers);
        },
      };
      void this.change(taskId, { status: 'input_required', inputRequests: { ...requests } });
    });
  }

  /** 2026 tasks/update: takes the answers to outstanding keys; others are ignored. */
  async answer(
    owner: string,
    taskId: string,
    responses: Readonly<Record<string, unknown>>,
  ): Promise<boolean> {
    const record = await this.get(owner, taskId);
    if (record === undefined) return false;
    if (!this.live.has(taskId) && record.runner !== this.instance && this.bus !== undefined) {
      await this.bus.send(record.runner, { kind: 'answer', taskId, responses });
      return true;
    }
    const asking = this.live.get(taskId)?.asking;
    if (asking === undefined) return true;
    for (const [key, value] of Object.entries(responses)) {
      if (!asking.pending.has(key)) continue;
      asking.pending.delete(key);
      asking.answers[key] = value;
    }
    const live = this.live.get(taskId);
    if (asking.pending.size > 0) {
      await this.change(taskId, { inputRequests: Object.fromEntries(asking.pending) });
      return true;
    }
    if (live !== undefined) live.asking = undefined;
    await this.change(taskId, { status: 'working', inputRequests: undefined });
    asking.resolve(asking.answers);
    return true;
  }

  /**
   * 2025: sends one question for the task through the `tasks/result` in flight, waiting for one to
   * arrive first (the task reads input_required meanwhile).
   */
  async askThroughResult(taskId: string, request: InputRequest, timeoutMs: number): Promise<unknown> {
    const live = this.live.get(taskId);
    if (live === undefined) throw new Error('the task is not running');
    await this.change(taskId, { status: 'input_required', inputRequests: { question: request } });
    try {
      while (live.sender === undefined) {
        const signal = live.controller.signal;
        if (signal.aborted) throw signal.reason;
        await new Promise<void>((resolve) => {
          const wake = () => {
            signal.removeEventListener('abort', wake);
            live.senderWaiters.delete(wake);
            resolve();
          };
          live.senderWaiters.add(wake);
          signal.addEventListener('abort', wake, { once: true });
        });
      }
      return await live.sender(request, timeoutMs);
    } finally {
      await this.change(taskId, { status: 'working', inputRequests: undefined });
    }
  }

  /** 2025: a `tasks/result` in flight offers its channel for the task's questions; returns the detach. */
  attach(taskId: string, sender: TaskSender): () => void {
    const live = this.live.get(taskId);
    if (live === undefined) return () => {};
    live.sender = sender;
    for (const wake of [...live.senderWaiters]) wake();
    return () => {
      if (live.sender === sender) live.sender = undefined;
    };
  }

  /** Resolves with the task once terminal (undefined if it expired meanwhile); rejects on abort. */
  async settled(owner: string, taskId: string, signal: AbortSignal): Promise<TaskRecord | undefined> {
    for (;;) {
      const record = await this.get(owner, taskId);
      if (record === undefined || TERMINAL.has(record.status)) return record;
      if (signal.aborted) throw signal.reason;
      const live = this.live.get(taskId);
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal.removeEventListener('abort', wake);
          live?.waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        // A task run by another replica changes without telling this process: poll it.
        const timer = setTimeout(wake, live === undefined ? record.pollIntervalMs : this.staleMs);
        live?.waiters.add(wake);
        signal.addEventListener('abort', wake, { once: true });
      });
    }
  }

  /** Shutdown: every task still running here fails (its call is aborted). */
  async close(): Promise<void> {
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    for (const taskId of [...this.live.keys()]) {
      this.stop(taskId, new Error('the server is shutting down'));
      // A store that is unreachable now leaves the record as it was: it reads failed once this
      // runner's heartbeat is stale, so the shutdown does not wait for the store.
      await this.fail(taskId, {
        code: INTERNAL_ERROR,
        message: 'The server shut down before the task finished.',
      }).catch(() => {});
    }
  }

  private async held(owner: string): Promise<readonly TaskRecord[]> {
    const now = Date.now();
    const all = await this.store.list(owner);
    const kept: TaskRecord[] = [];
    for (const record of all) {
      if (now >= record.createdAt + record.ttlMs) {
        this.stop(record.taskId, new Error('the task expired'));
        await this.store.delete(record.taskId);
      } else kept.push(record);
    }
    return kept;
  }

  private async change(
    taskId: string,
    patch: Partial<
      Pick<TaskRecord, 'status' | 'statusMessage' | 'result' | 'error' | 'inputRequests' | 'bytes'>
    >,
  ): Promise<void> {
    const written = await this.serial(taskId, async () => {
      const record = await this.store.get(taskId);
      if (record === undefined || TERMINAL.has(record.status)) return undefined;
      const next = stamp(record, patch);
      await this.store.put(next);
      return { record, next };
    });
    if (written === undefined) return;
    const { record, next } = written;
    const live = this.live.get(taskId);
    if (live !== undefined) for (const wake of [...live.waiters]) wake();
    if (patch.status !== undefined && patch.status !== record.status)
      for (const listener of this.listeners) listener(next);
  }

  private startHeartbeat(): void {
    if (this.heartbeat !== undefined) return;
    this.heartbeat = setInterval(
      () => {
        if (this.live.size === 0) {
          clearInterval(this.heartbeat);
          this.heartbeat = undefined;
          return;
        }
        for (const taskId of this.live.keys())
          void this.serial(taskId, async () => {
            const record = await this.store.get(taskId);
            if (record !== undefined && !TERMINAL.has(record.status) && this.live.has(taskId))
              await this.store.put({ ...record, aliveAt: Date.now() });
          }).catch(() => {});
      },
      Math.max(1, Math.floor(this.staleMs / 3)),
    );
    this.heartbeat.unref();
  }
}

function stamp(
  record: TaskRecord,
  patch: Partial<
    Pick<TaskRecord, 'status' | 'statusMessage' | 'result' | 'error' | 'inputRequests' | 'bytes'>
  >,
): TaskRecord {
  const next: Record<string, unknown> = {
    ...record,
    ...patch,
    lastUpdatedAt: Date.now(),
    aliveAt: Date.now(),
  };
  for (const key of Object.keys(next)) if (next[key] === undefined) delete next[key];
  return next as unknown as TaskRecord;
}

export type { TaskEngineOptions, TaskRecord, TaskStatus };
