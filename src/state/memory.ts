/**
 * SharedState in one process's memory: the same primitives as redis.ts with the same bounds, for a
 * single process (and for tests of what is built on the interface). Expiry is checked when a key is
 * read; pub/sub delivers asynchronously, as Redis does.
 */
import {
  type Announcement,
  bounded,
  type IndexEntry,
  type LogBounds,
  type LogRead,
  type SharedState,
  StateError,
} from './shared.js';

interface Entry<T> {
  value: T;
  expires: number;
}

interface Log {
  seq: number;
  bytes: number;
  closed: boolean;
  tag: string;
  items: { seq: number; item: string }[];
  /** The last append with an id (logAppend's `once`), and its number. */
  once?: { id: string; seq: number };
}

export class MemoryState implements SharedState {
  readonly kind = 'memory';
  readonly where = 'memory';
  readonly healthy = true;
  readonly fault = undefined;
  readonly delivering = true;
  readonly gaps = 0;
  private readonly values = new Map<string, Entry<string>>();
  private readonly indexes = new Map<string, Map<string, number>>();
  private readonly logs = new Map<string, Entry<Log>>();
  private readonly handlers = new Map<string, ((message: string) => void)[]>();

  onHealth(): void {}
  /** Delivery never stops in one process. */
  onDeliveryResumed(): void {}

  async get(key: string): Promise<string | undefined> {
    return live(this.values, key)?.value;
  }
  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.values.set(key, { value: bounded(`the value of ${key}`, value), expires: Date.now() + ttlMs });
  }
  async del(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      this.values.delete(key);
      this.logs.delete(key);
      this.indexes.delete(key);
    }
  }
  async touch(keys: readonly string[], ttlMs: number): Promise<void> {
    for (const key of keys) {
      const entry = live(this.values, key);
      if (entry !== undefined) entry.expires = Date.now() + ttlMs;
    }
  }
  async getAndTouch(
    key: string,
    also: readonly string[],
    index: IndexEntry,
    ttlMs: number,
  ): Promise<string | undefined> {
    const value = await this.get(key);
    if (value === undefined) return undefined;
    await this.touch([key, ...also], ttlMs);
    await this.indexTouch(index.key, index.member);
    return value;
  }
  async setAndTouch(
    key: string,
    value: string,
    ttlMs: number,
    index: IndexEntry,
    announce?: Announcement,
  ): Promise<void> {
    await this.set(key, value, ttlMs);
    await this.indexTouch(index.key, index.member);
    if (announce !== undefined) await this.publish(announce.channel, announce.message);
  }
  async claim(key: string, ttlMs: number, owner: string): Promise<boolean> {
    const held = live(this.values, key);
    if (held !== undefined) return held.value === owner;
    this.values.set(key, { value: owner, expires: Date.now() + ttlMs });
    return true;
  }

  async indexTouch(key: string, member: string): Promise<void> {
    const index = this.indexes.get(key) ?? new Map<string, number>();
    index.set(member, Date.now());
    this.indexes.set(key, index);
  }
  async indexRecent(key: string, withinMs: number): Promise<string[]> {
    const index = this.indexes.get(key);
    if (index === undefined) return [];
    const since = Date.now() - withinMs;
    for (const [member, at] of index) if (at < since) index.delete(member);
    return [...index.keys()];
  }
  async indexRemove(key: string, member: string): Promise<void> {
    this.indexes.get(key)?.delete(member);
  }

  async logCreate(key: string, tag: string, ttlMs: number): Promise<void> {
    if (live(this.logs, key) !== undefined) return;
    this.logs.set(key, {
      value: { seq: 0, bytes: 0, closed: false, tag, items: [] },
      expires: Date.now() + ttlMs,
    });
  }
  async logAppend(key: string, item: string, bounds: LogBounds, once?: string): Promise<number> {
    const entry = live(this.logs, key);
    if (entry === undefined) throw new StateError(`no log ${key}`);
    const log = entry.value;
    if (log.closed) throw new StateError(`the log ${key} is closed`);
    bounded(`an item of ${key}`, item);
    if (once !== undefined && log.once?.id === once) return log.once.seq;
    log.seq++;
    if (once !== undefined) log.once = { id: once, seq: log.seq };
    log.items.push({ seq: log.seq, item });
    log.bytes += Buffer.byteLength(item);
    while (log.items.length > 1 && (log.items.length > bounds.items || log.bytes > bounds.bytes)) {
      const dropped = log.items.shift() as { item: string };
      log.bytes -= Buffer.byteLength(dropped.item);
    }
    entry.expires = Date.now() + bounds.ttlMs;
    return log.seq;
  }
  async logRead(key: string, afterSeq: number, ttlMs: number): Promise<LogRead | undefined> {
    const entry = live(this.logs, key);
    if (entry === undefined) return undefined;
    entry.expires = Math.max(entry.expires, Date.now() + ttlMs);
    const log = entry.value;
    return {
      items: log.items.filter((i) => i.seq > afterSeq),
      last: log.seq,
      closed: log.closed,
      tag: log.tag,
    };
  }
  async logClose(key: string): Promise<void> {
    const entry = live(this.logs, key);
    if (entry !== undefined) entry.value.closed = true;
  }

  async publish(channel: string, message: string): Promise<void> {
    bounded(`a message on ${channel}`, message);
    for (const handler of this.handlers.get(channel) ?? []) setImmediate(() => handler(message));
  }
  async subscribe(channel: string, handler: (message: string) => void): Promise<void> {
    this.handlers.set(channel, [...(this.handlers.get(channel) ?? []), handler]);
  }

  async close(): Promise<void> {
    this.handlers.clear();
  }
}

function live<T>(map: Map<string, Entry<T>>, key: string): Entry<T> | undefined {
  const entry = map.get(key);
  if (entry === undefined) return undefined;
  if (entry.expires > Date.now()) return entry;
  map.delete(key);
  return undefined;
}
