/**
 * Epitaphs (shared.ts, Epitaph) for the workers of `--workers`: a worker's state reports each log it
 * creates with an epitaph to the primary, and each log it closes; when a worker exits with logs
 * still open (killed mid-call), the primary appends their epitaphs, closes them and publishes the
 * announcements, in the same store the workers use (its own MemoryState, or Redis). A client that
 * resumes a stream of the dead worker on another one is so told at once, instead of waiting.
 */
import type { IpcClient, IpcRooms } from '../util/ipc.js';
import type { Epitaph, IndexEntry, LogBounds, LogRead, SharedState } from './shared.js';

/** What burying a log needs of the store the workers use. */
export type Graveyard = Pick<SharedState, 'logRead' | 'logAppend' | 'logClose' | 'publish'>;

const ROOM = 'epitaphs';
/** Open logs with an epitaph kept per worker at most (the oldest is forgotten beyond). */
const MAX_PER_WORKER = 10_000;
/** Bounds of the append that carries an epitaph (the log keeps its newest item whatever its size). */
const EPITAPH_BOUNDS: LogBounds = { items: 1000, bytes: 1024 * 1024, ttlMs: 60_000 };

/** A worker's state: `inner`, with its epitaphs reported to the primary. */
export class ReportedState implements SharedState {
  constructor(
    private readonly inner: SharedState,
    private readonly client: IpcClient,
  ) {}

  get kind() {
    return this.inner.kind;
  }
  get where() {
    return this.inner.where;
  }
  get healthy() {
    return this.inner.healthy;
  }
  get fault() {
    return this.inner.fault;
  }
  get delivering() {
    return this.inner.delivering;
  }
  get gaps() {
    return this.inner.gaps;
  }
  onHealth(listener: (healthy: boolean, fault: string | undefined) => void): void {
    this.inner.onHealth(listener);
  }
  onDeliveryResumed(listener: () => void): void {
    this.inner.onDeliveryResumed(listener);
  }
  get(key: string) {
    return this.inner.get(key);
  }
  set(key: string, value: string, ttlMs: number) {
    return this.inner.set(key, value, ttlMs);
  }
  del(keys: readonly string[]) {
    return this.inner.del(keys);
  }
  touch(keys: readonly string[], ttlMs: number) {
    return this.inner.touch(keys, ttlMs);
  }
  getAndTouch(key: string, also: readonly string[], index: IndexEntry, ttlMs: number) {
    return this.inner.getAndTouch(key, also, index, ttlMs);
  }
  setAndTouch(...args: Parameters<SharedState['setAndTouch']>) {
    return this.inner.setAndTouch(...args);
  }
  claim(key: string, ttlMs: number, owner: string) {
    return this.inner.claim(key, ttlMs, owner);
  }
  indexTouch(key: string, member: string, ttlMs: number) {
    return this.inner.indexTouch(key, member, ttlMs);
  }
  indexRecent(key: string, withinMs: number) {
    return this.inner.indexRecent(key, withinMs);
  }
  indexRemove(key: string, member: string) {
    return this.inner.indexRemove(key, member);
  }
  async logCreate(key: string, tag: string, ttlMs: number, epitaph?: Epitaph): Promise<void> {
    await this.inner.logCreate(key, tag, ttlMs);
    if (epitaph !== undefined) this.client.note(ROOM, 'open', [key, epitaph]);
  }
  logAppend(key: string, item: string, bounds: LogBounds, once?: string) {
    return this.inner.logAppend(key, item, bounds, once);
  }
  logRead(key: string, afterSeq: number, ttlMs: number): Promise<LogRead | undefined> {
    return this.inner.logRead(key, afterSeq, ttlMs);
  }
  async logClose(key: string, ttlMs: number): Promise<void> {
    await this.inner.logClose(key, ttlMs);
    this.client.note(ROOM, 'closed', [key]);
  }
  publish(channel: string, message: string) {
    return this.inner.publish(channel, message);
  }
  subscribe(channel: string, handler: (message: string) => void) {
    return this.inner.subscribe(channel, handler);
  }
  close() {
    return this.inner.close();
  }
}

/** The primary's side: the open logs of each worker; `forget` applies a gone worker's epitaphs. */
export function hostEpitaphs(
  rooms: IpcRooms,
  state: Graveyard,
  warn: (message: string) => void,
): { forget(peer: number): void } {
  const open = new Map<number, Map<string, Epitaph>>();
  rooms.handle(ROOM, (peer, op, args) => {
    const key = String(args[0]);
    const logs = open.get(peer.id) ?? new Map<string, Epitaph>();
    open.set(peer.id, logs);
    if (op === 'open') {
      if (logs.size >= MAX_PER_WORKER) logs.delete(logs.keys().next().value as string);
      logs.set(key, args[1] as Epitaph);
    } else if (op === 'closed') logs.delete(key);
    return undefined;
  });
  return {
    forget(peer) {
      const logs = open.get(peer);
      open.delete(peer);
      for (const [key, epitaph] of logs ?? [])
        void bury(state, key, epitaph).catch((err: Error) => warn(err.message));
    },
  };
}

async function bury(state: Graveyard, key: string, epitaph: Epitaph): Promise<void> {
  const read = await state.logRead(key, Number.MAX_SAFE_INTEGER, EPITAPH_BOUNDS.ttlMs);
  if (read === undefined || read.closed) return;
  await state.logAppend(key, epitaph.item, EPITAPH_BOUNDS);
  await state.logClose(key, EPITAPH_BOUNDS.ttlMs);
  await state.publish(epitaph.announce.channel, epitaph.announce.message);
}
