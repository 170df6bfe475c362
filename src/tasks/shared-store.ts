/**
 * The TaskStore of `--state`: task records in the shared store (state/shared.ts), so a task started
 * on one replica is read, awaited and cancelled through another. A record is one value whose time to
 * live is what is left of the task's ttl; an index per owner (tasks/list, the per-caller cap) and one
 * of all tasks (the memory budget) name them. A record beyond the store's value bound is refused.
 *
 * The store is also the replicas' task bus (TaskBus): a cancel or a tasks/update answer that arrives
 * on a replica that is not running the task is published on the runner's channel; the runner
 * applies it to its live call (aborting the call's signal, resolving its question).
 */
import { bounded, type SharedState } from '../state/shared.js';
import type { TaskBus, TaskBusMessage, TaskRecord, TaskStore } from './types.js';

/** Index entries older than this are dropped whatever their record says (a ttl is capped far below). */
const INDEX_WINDOW_MS = 7 * 24 * 3_600_000;
/** bytes() sums the records; a result this fresh is reused so a flood of creations costs one sum. */
const BYTES_CACHE_MS = 500;
const ALL = 'tasks:all';
const ownerIndex = (owner: string) => `tasks:owner:${owner}`;
const recordKey = (taskId: string) => `task:${taskId}`;
const runnerChannel = (runner: string) => `tasks:runner:${runner}`;

export class SharedTaskStore implements TaskStore, TaskBus {
  private cachedBytes: { at: number; bytes: number } | undefined;

  constructor(private readonly state: SharedState) {}

  async put(record: TaskRecord): Promise<void> {
    const left = record.createdAt + record.ttlMs - Date.now();
    if (left <= 0) return this.delete(record.taskId);
    const text = bounded(`task ${record.taskId.slice(0, 6)}…`, JSON.stringify(record));
    await this.state.set(recordKey(record.taskId), text, left);
    await Promise.all([
      this.state.indexTouch(ownerIndex(record.owner), record.taskId, INDEX_WINDOW_MS),
      this.state.indexTouch(ALL, record.taskId, INDEX_WINDOW_MS),
    ]);
    this.cachedBytes = undefined;
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const text = await this.state.get(recordKey(taskId));
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as TaskRecord;
    } catch {
      return undefined;
    }
  }

  async list(owner: string): Promise<readonly TaskRecord[]> {
    const records = await this.gather(ownerIndex(owner));
    return records.filter((r) => r.owner === owner).sort((a, b) => a.createdAt - b.createdAt);
  }

  async delete(taskId: string): Promise<void> {
    const record = await this.get(taskId);
    await this.state.del([recordKey(taskId)]);
    await this.state.indexRemove(ALL, taskId);
    if (record !== undefined) await this.state.indexRemove(ownerIndex(record.owner), taskId);
    this.cachedBytes = undefined;
  }

  async bytes(): Promise<number> {
    const now = Date.now();
    if (this.cachedBytes !== undefined && now - this.cachedBytes.at < BYTES_CACHE_MS)
      return this.cachedBytes.bytes;
    const bytes = (await this.gather(ALL)).reduce((sum, r) => sum + r.bytes, 0);
    this.cachedBytes = { at: now, bytes };
    return bytes;
  }

  async send(runner: string, message: TaskBusMessage): Promise<void> {
    await this.state.publish(runnerChannel(runner), JSON.stringify(message));
  }

  async listen(runner: string, handler: (message: TaskBusMessage) => void): Promise<void> {
    await this.state.subscribe(runnerChannel(runner), (text) => {
      try {
        const message = JSON.parse(text) as TaskBusMessage;
        if (typeof message?.taskId === 'string') handler(message);
      } catch {
        // Not ours: ignored.
      }
    });
  }

  /** The records an index names; members whose record expired leave the index. */
  private async gather(index: string): Promise<TaskRecord[]> {
    const ids = await this.state.indexRecent(index, INDEX_WINDOW_MS);
    const found = await Promise.all(ids.map((id) => this.get(id)));
    const gone = ids.filter((_, i) => found[i] === undefined);
    await Promise.all(gone.map((id) => this.state.indexRemove(index, id)));
    return found.filter((r): r is TaskRecord => r !== undefined);
  }
}
