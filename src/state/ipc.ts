/**
 * SharedState across the workers of one server (`--workers N` without `--state`): each worker's
 * IpcState forwards every primitive to the primary process over the cluster's IPC channel
 * (util/ipc.ts), where one MemoryState answers (hostState); a publish is fanned out to every worker
 * subscribed to its channel, the publisher included, as Redis does. The same interface and bounds
 * as memory.ts and redis.ts: values are checked against their bound before they travel, a call the
 * primary does not answer in time (or a primary that is gone) fails with StateUnavailable.
 */
import { type IpcClient, type IpcPeer, IpcRemoteError, type IpcRooms } from '../util/ipc.js';
import { MemoryState } from './memory.js';
import {
  type Announcement,
  bounded,
  type IndexEntry,
  type LogBounds,
  type LogRead,
  type SharedState,
  StateError,
  StateUnavailable,
} from './shared.js';

const ROOM = 'state';

/** What the primary pushes: a message published on a channel this worker subscribed to. */
interface Delivery {
  readonly channel: string;
  readonly message: string;
}

export class IpcState implements SharedState {
  readonly kind = 'memory';
  readonly where = 'the primary process (workers)';
  private readonly handlers = new Map<string, ((message: string) => void)[]>();
  private readonly healthListeners: ((healthy: boolean, fault: string | undefined) => void)[] = [];
  private lost = false;

  constructor(private readonly client: IpcClient) {
    client.onPush(ROOM, (data) => {
      const { channel, message } = data as Delivery;
      for (const handler of this.handlers.get(channel) ?? []) handler(message);
    });
    client.onLost(() => {
      this.lost = true;
      for (const listener of this.healthListeners) listener(false, this.fault);
    });
  }

  get healthy(): boolean {
    return !this.lost;
  }
  get fault(): string | undefined {
    return this.lost ? 'the primary process is gone' : undefined;
  }
  get delivering(): boolean {
    return !this.lost;
  }
  get gaps(): number {
    return this.lost ? 1 : 0;
  }
  onHealth(listener: (healthy: boolean, fault: string | undefined) => void): void {
    this.healthListeners.push(listener);
  }
  /** Delivery stops only with the primary, and never resumes: the worker stops too. */
  onDeliveryResumed(): void {}

  get(key: string): Promise<string | undefined> {
    return this.call('get', [key]);
  }
  async set(key: string, value: string, ttlMs: number): Promise<void> {
    return this.call('set', [key, bounded(`the value of ${key}`, value), ttlMs]);
  }
  del(keys: readonly string[]): Promise<void> {
    return this.call('del', [keys]);
  }
  touch(keys: readonly string[], ttlMs: number): Promise<void> {
    return this.call('touch', [keys, ttlMs]);
  }
  getAndTouch(
    key: string,
    also: readonly string[],
    index: IndexEntry,
    ttlMs: number,
  ): Promise<string | undefined> {
    return this.call('getAndTouch', [key, also, index, ttlMs]);
  }
  async setAndTouch(
    key: string,
    value: string,
    ttlMs: number,
    index: IndexEntry,
    announce?: Announcement,
  ): Promise<void> {
    if (announce !== undefined) bounded(`a message on ${announce.channel}`, announce.message);
    return this.call('setAndTouch', [key, bounded(`the value of ${key}`, value), ttlMs, index, announce]);
  }
  claim(key: string, ttlMs: number, owner: string): Promise<boolean> {
    return this.call('claim', [key, ttlMs, owner]);
  }
  indexTouch(key: string, member: string, ttlMs: number): Promise<void> {
    return this.call('indexTouch', [key, member, ttlMs]);
  }
  indexRecent(key: string, withinMs: number): Promise<string[]> {
    return this.call('indexRecent', [key, withinMs]);
  }
  indexRemove(key: string, member: string): Promise<void> {
    return this.call('indexRemove', [key, member]);
  }
  logCreate(key: string, tag: string, ttlMs: number): Promise<void> {
    return this.call('logCreate', [key, tag, ttlMs]);
  }
  async logAppend(key: string, item: string, bounds: LogBounds, once?: string): Promise<number> {
    return this.call('logAppend', [key, bounded(`an item of ${key}`, item), bounds, once]);
  }
  logRead(key: string, afterSeq: number, ttlMs: number): Promise<LogRead | undefined> {
    return this.call('logRead', [key, afterSeq, ttlMs]);
  }
  logClose(key: string, ttlMs: number): Promise<void> {
    return this.call('logClose', [key, ttlMs]);
  }
  async publish(channel: string, message: string): Promise<void> {
    return this.call('publish', [channel, bounded(`a message on ${channel}`, message)]);
  }
  async subscribe(channel: string, handler: (message: string) => void): Promise<void> {
    const first = !this.handlers.has(channel);
    this.handlers.set(channel, [...(this.handlers.get(channel) ?? []), handler]);
    if (first) await this.call('subscribe', [channel]);
  }

  async close(): Promise<void> {
    this.handlers.clear();
  }

  private async call<T>(op: string, args: unknown[]): Promise<T> {
    try {
      return await this.client.call<T>(ROOM, op, args);
    } catch (err) {
      if (err instanceof IpcRemoteError && err.remoteName !== 'StateUnavailable')
        throw new StateError(err.message);
      throw new StateUnavailable(
        `the shared state (${this.where}) did not answer: ${(err as Error).message}`,
      );
    }
  }
}

/**
 * The primary's side: one MemoryState for every worker, and the workers subscribed to each
 * channel. Returns what to call when a worker is gone (its subscriptions end).
 */
export function hostState(
  rooms: IpcRooms,
  state = new MemoryState(),
): { forget(peer: number): void; publish(channel: string, message: string): Promise<void> } {
  const subscribers = new Map<string, Map<number, IpcPeer>>();
  const fanOut = (channel: string, message: string) => {
    bounded(`a message on ${channel}`, message);
    // Asynchronous, as Redis and memory.ts deliver: the publisher's own answer goes out first.
    setImmediate(() => {
      for (const peer of subscribers.get(channel)?.values() ?? [])
        peer.send({ mcpRun: 'push', room: ROOM, data: { channel, message } satisfies Delivery });
    });
  };
  const ops: Record<string, (peer: IpcPeer, args: never) => unknown> = {
    get: (_, [key]: [string]) => state.get(key),
    set: (_, [key, value, ttl]: [string, string, number]) => state.set(key, value, ttl),
    del: (_, [keys]: [string[]]) => state.del(keys),
    touch: (_, [keys, ttl]: [string[], number]) => state.touch(keys, ttl),
    getAndTouch: (_, [key, also, index, ttl]: [string, string[], IndexEntry, number]) =>
      state.getAndTouch(key, also, index, ttl),
    setAndTouch: async (
      _,
      [key, value, ttl, index, announce]: [string, string, number, IndexEntry, Announcement | undefined],
    ) => {
      await state.setAndTouch(key, value, ttl, index);
      if (announce) fanOut(announce.channel, announce.message);
    },
    claim: (_, [key, ttl, owner]: [string, number, string]) => state.claim(key, ttl, owner),
    indexTouch: (_, [key, member]: [string, string]) => state.indexTouch(key, member),
    indexRecent: (_, [key, within]: [string, number]) => state.indexRecent(key, within),
    indexRemove: (_, [key, member]: [string, string]) => state.indexRemove(key, member),
    logCreate: (_, [key, tag, ttl]: [string, string, number]) => state.logCreate(key, tag, ttl),
    logAppend: (_, [key, item, bounds, once]: [string, string, LogBounds, string | undefined]) =>
      state.logAppend(key, item, bounds, once ?? undefined),
    logRead: (_, [key, after, ttl]: [string, number, number]) => state.logRead(key, after, ttl),
    logClose: (_, [key]: [string]) => state.logClose(key),
    publish: (_, [channel, message]: [string, string]) => fanOut(channel, message),
    subscribe: (peer, [channel]: [string]) => {
      const peers = subscribers.get(channel) ?? new Map<number, IpcPeer>();
      peers.set(peer.id, peer);
      subscribers.set(channel, peers);
    },
  };
  rooms.handle(ROOM, (peer, op, args) => {
    const run = Object.hasOwn(ops, op) ? ops[op] : undefined;
    if (run === undefined) throw new StateError(`no state operation ${op}`);
    return run(peer, args as never);
  });
  return {
    forget(id) {
      for (const peers of subscribers.values()) peers.delete(id);
    },
    publish: async (channel, message) => fanOut(channel, message),
  };
}
