/**
 * The default TaskStore: a Map in this process. A restart forgets every task (docs/tasks.md), and
 * replicas do not see each other's tasks; a shared store is the answer to both.
 */
import type { TaskRecord, TaskStore } from './types.js';

export class MemoryTaskStore implements TaskStore {
  private readonly records = new Map<string, TaskRecord>();
  private total = 0;

  async put(record: TaskRecord): Promise<void> {
    this.total += record.bytes - (this.records.get(record.taskId)?.bytes ?? 0);
    this.records.set(record.taskId, record);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return this.records.get(taskId);
  }

  async list(owner: string): Promise<readonly TaskRecord[]> {
    return [...this.records.values()].filter((record) => record.owner === owner);
  }

  async delete(taskId: string): Promise<void> {
    const found = this.records.get(taskId);
    if (found === undefined) return;
    this.total -= found.bytes;
    this.records.delete(taskId);
  }

  async bytes(): Promise<number> {
    return this.total;
  }
}
