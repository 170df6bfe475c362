/**
 * Tasks: a `tools/call` that answers at once with a task id and is fetched later (2025-11-25 in the
 * core, 2026-07-28 as the extension `io.modelcontextprotocol/tasks`). This file holds what both the
 * engine (engine.ts) and a store know: the record, the store interface and the settings.
 *
 * A TaskStore holds plain, serializable records only; what cannot be stored (the running call's
 * AbortController, the waiters for answers) stays in the engine of the process that runs the call.
 * The in-memory store (memory-store.ts) is the default; a shared store (Redis) implements the same
 * four methods so a task started on one replica can be read on another.
 */
import type { InputRequest } from '../steps/interaction.js';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** A JSON-RPC error object, as a failed task carries it. */
export interface TaskError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export interface TaskRecord {
  readonly taskId: string;
  /** Who may see it (engine.ts `TaskOwner`): another owner's id is unknown to them. */
  readonly owner: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** Kept this long after `createdAt`, then forgotten. */
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /** The era-neutral tools/call result, once completed. */
  readonly result?: object;
  readonly error?: TaskError;
  /** Outstanding questions by key, while input_required. */
  readonly inputRequests?: Readonly<Record<string, InputRequest>>;
  /** The process running the call; with a shared store another replica may read the record. */
  readonly runner: string;
  /** Last sign of life from the runner (epoch ms); a working task whose runner fell silent is failed. */
  readonly aliveAt: number;
  /** Bytes the record takes in the task memory budget (its result, mostly). */
  readonly bytes: number;
}

/**
 * Where records live. A store may forget a record once `createdAt + ttlMs` has passed (Redis: the
 * key's expiry); the engine treats an expired record as unknown either way.
 */
export interface TaskStore {
  /** Creates or replaces the record. */
  put(record: TaskRecord): Promise<void>;
  get(taskId: string): Promise<TaskRecord | undefined>;
  /** The owner's records, oldest first. */
  list(owner: string): Promise<readonly TaskRecord[]>;
  delete(taskId: string): Promise<void>;
  /** Total bytes of all records held, for the memory budget. */
  bytes(): Promise<number>;
}

/** What one replica asks of the replica running a task (a shared store only). */
export type TaskBusMessage =
  | { readonly kind: 'cancel'; readonly taskId: string }
  | {
      readonly kind: 'answer';
      readonly taskId: string;
      readonly responses: Readonly<Record<string, unknown>>;
    };

/**
 * A shared store's channel between replicas: what must reach the live call (its AbortController,
 * its pending question) is sent to the replica whose engine runs it (`TaskRecord.runner`).
 */
export interface TaskBus {
  send(runner: string, message: TaskBusMessage): Promise<void>;
  /** Delivers the messages sent to `runner` (this engine's instance). */
  listen(runner: string, handler: (message: TaskBusMessage) => void): Promise<void>;
}

export interface TaskEngineOptions {
  /**
   * A runner silent this long is gone and its unfinished tasks read failed; it refreshes its
   * tasks' `aliveAt` every third of it (default engine.ts STALE_MS, 30 s).
   */
  readonly staleMs?: number;
  /** A shared store's channel to the replicas running tasks (cancel, answers). */
  readonly bus?: TaskBus;
}

/** `server.tasks` in the manifest; every field optional. */
export interface TaskSettings {
  /** How long a task and its result are kept after creation, ms (default 1 hour). */
  readonly ttlMs?: number;
  /** The polling interval suggested to clients, ms (default 1000). */
  readonly pollIntervalMs?: number;
  /** Tasks one caller may hold at once, finished ones included until they expire (default 100). */
  readonly maxPerCaller?: number;
  /** All task records together, in bytes (default 64 MiB). */
  readonly maxBytes?: number;
}

export const TASK_DEFAULTS: Required<TaskSettings> = {
  ttlMs: 3_600_000,
  pollIntervalMs: 1000,
  maxPerCaller: 100,
  maxBytes: 64 * 1024 * 1024,
};
