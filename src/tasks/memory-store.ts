/**
 * The default TaskStore: Maps in this process. A restart forgets every task (docs/tasks.md), and
 * replicas do not see each other's tasks; a shared store is the answer to both.
 *
 * Records are forgotten at their expiry without anyone asking for them: each write first drops the
 * expired records at the front of the insertion order (creation order, so mostly expiry order; a
 * record with a shorter ttl behind a longer-lived one goes when that one does). The engine also
 * refuses expired records it reads, so the lag costs memory only, within maxBytes.
 */
import type { TaskRecord, TaskStore } from './types.js';

export class MemoryTaskStore implements TaskStore {
  private readonly records = new Map<string, TaskRecord>();
  private readonly byOwner = new Map<string, Set<string>>();
  private total = 0;

  async put(record: TaskRecord): Promise<void> {
    this.dropExpired(Date.now());
    const previous = this.records.get(record.taskId);
    this.total += record.bytes - (previous?.bytes ?? 0);
    this.records.set(record.taskId, record);
    let owned = this.byOwner.get(record.owner);
    if (owned === undefined) {
      owned = new Set();
      this.byOwner.set(record.owner, owned);
    }
    owned.add(record.taskId);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return this.records.get(taskId);
  }

  async list(owner: string): Promise<readonly TaskRecord[]> {
    const ids = this.byOwner.get(owner);
    if (ids === undefined) return [];
    return [...ids].flatMap((id) => {
      const record = this.records.get(id);
      return record === undefined ? [] : [record];
    });
  }

  async delete(taskId: string): Promise<void> {
    this.forget(taskId);
  }

  async bytes(): Promise<number> {
    this.dropExpired(Date.now());
    return this.total;
  }

  private dropExpired(now: number): void {
    for (const record of this.records.values()) {
      if (now < record.createdAt + record.ttlMs) return;
      this.forget(record.taskId);
    }
  }

  private forget(taskId: string): void {
    const found = this.records.get(taskId);
    if (found === undefined) return;
    this.total -= found.bytes;
    this.records.delete(taskId);
    const owned = this.byOwner.get(found.owner);
    owned?.delete(taskId);
    if (owned?.size === 0) this.byOwner.delete(found.owner);
  }
}
