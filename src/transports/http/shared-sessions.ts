/**
 * 2025-era sessions shared by replicas (`--state`), on the SharedState primitives (state/shared.ts).
 * Any replica serves any request of a session: the first request a replica sees for an unknown
 * `Mcp-Session-Id` loads its record; every request refreshes it; a request that changed it writes
 * it back before its answer goes out.
 *
 * Keys (under the store's prefix):
 * - `s:<id>`: the session record (negotiated version, client capabilities, ready, log level,
 *   subscriptions, owner, the toolsets of the path it was created on), bounded to RECORD_BYTES, expiring `ttlMs` after its last use;
 * - `g:<id>`: the key of its newest GET stream, where unsolicited messages go (its own key, so a GET
 *   opened on one replica is not overwritten by a request saved on another);
 * - `st:<id>:<stream>`: each stream's bounded event log (streams.ts: StreamLog), so a
 *   `Last-Event-ID` on another replica replays what was missed, and any replica carries it on;
 * - `sessions`: the index of sessions by last use, for fan-out; `c:<event>`: fan-out claims.
 *
 * Each replica keeps the records of the sessions it holds (sessions.ts) and serves their requests
 * without asking the store while its copy is current: a replica that changes a record writes it and
 * announces the change (`rec`) in the same round trip, and the others drop their copy; while the
 * subscription is down (or after it was), copies are read again. A copy is also read again, with the
 * session's expiry refreshed, at most every `refreshMs`, which bounds how long a session ended or
 * expired elsewhere can go unnoticed should an announcement be lost. A change reaches the other
 * replicas when its announcement does (sub-millisecond on one network, as with Redis client-side
 * caching): a request that a client sends to another replica within that window may be served at
 * the record before the change (a log level, subscriptions).
 *
 * One channel, `events`, carries: `rec` (a record changed), `ev` (a stream has new events: the
 * replica carrying it reads them), `reply` (a client's answer to a server→client request of another replica: that replica
 * settles it), `cancel` (notifications/cancelled for a request running elsewhere), `end` (DELETE).
 *
 * Fan-out, exactly once per session: every replica reloads the same manifest and sees the same
 * change, so each claims the change (`c:<event id>`, set-if-absent); the one that wins appends the
 * notification to each listening session's newest GET stream log and announces it, and the replica
 * carrying that stream writes it. A session with no connection at that moment still gets it on
 * resume, from the log.
 */
import { randomBytes } from 'node:crypto';
import { changesByView } from '../../catalog/toolsets.js';
import type { Catalog, ListCategory, LogLevel } from '../../catalog/types.js';
import type { Logger } from '../../log.js';
import { notification } from '../../protocol/jsonrpc.js';
import { passes } from '../../protocol/log-levels.js';
import { serializeMessage } from '../../protocol/results.js';
import type { LegacySession } from '../../protocol/session.js';
import { bounded, type SharedState, StateError, StateUnavailable } from '../../state/shared.js';
import type { ReplayLimits, StreamLog } from './streams.js';

/** What a session record holds at most: its client's capabilities and subscriptions are bounded by it. */
export const RECORD_BYTES = 64 * 1024;
/** How long a fan-out claim lasts: a replica that sees the same change within it does not repeat it. */
const CLAIM_MS = 30_000;
/** resources/updated has no content digest: the same URI within this window is one change. */
const UPDATE_WINDOW_MS = 2000;
const CHANNEL = 'events';
/** A fan-out the store did not take is tried again after these waits (the last one repeating). */
const RETRY_MS = [250, 500, 1000, 2000];
/** `<replica>-<connection>-<n>`: whose server→client request an answer settles. */
const OUTBOUND_ID = /^([0-9a-z]{5})-[0-9a-z]{5}-\d+$/;
/** What `initialize` mints (sessions.ts): anything else is unknown without asking the store. */
const SESSION_ID = /^[\w-]{32}$/;

export interface SessionRecord {
  readonly client: string;
  readonly version: string;
  readonly ready: boolean;
  readonly logLevel?: LogLevel;
  readonly subscriptions: readonly string[];
  readonly capabilities: Readonly<Record<string, unknown>>;
  /**
   * The toolsets of the path the session was created on (`<path>/<toolset>`); absent: the default
   * endpoint. Another replica serves the session on that path only, with that view.
   */
  readonly toolsets?: readonly string[];
}

type Event =
  | { t: 'rec'; s: string; r: string }
  | { t: 'ev'; s: string; k: string; q: number }
  | { t: 'reply'; to: string; s: string; m: object }
  | { t: 'cancel'; s: string; m: object }
  | { t: 'end'; s: string };

/** What a replica does with events about sessions it holds (SessionStore). */
export interface SharedHandlers {
  /** Another replica changed the record of this session: a copy held here is out of date. */
  stale(sessionId: string): void;
  poke(sessionId: string, stream: string, seq: number): void;
  /** Announcements may have been missed (the subscription was away): every stream held here reads on. */
  resync(): void;
  deliver(sessionId: string, message: object): void;
  ended(sessionId: string): void;
}

const tag = (): string =>
  [...randomBytes(5)].map((b) => '0123456789abcdefghijklmnopqrstuvwxyz'[b % 36]).join('');

/** How often a replica reads again (and refreshes the expiry of) a session record it serves from its copy. */
const REFRESH_MS = 10_000;

/** What a replica knows of its copy of a session record (sessions.ts Session). */
export interface RecordCopy {
  /** The copy was current when read or written, and no change was announced since. */
  current: boolean;
  /** The store's delivery gaps when the copy was read or written. */
  gaps: number;
  /** When the copy was read or written (and the session's expiry refreshed). */
  refreshed: number;
}

export class SharedSessions {
  /** This replica, in server→client request ids and the X-Mcp-Run-Replica header. */
  readonly replica = tag();
  /** Changes announced by other replicas so far: a read that overlaps one is not taken as current. */
  private changes = 0;
  readonly refreshMs: number;

  constructor(
    readonly state: SharedState,
    /** A session unused this long is gone everywhere. */
    readonly ttlMs: number,
    private readonly limits: ReplayLimits,
    private readonly log: Logger,
  ) {
    this.refreshMs = Math.min(REFRESH_MS, ttlMs / 10);
  }

  async start(handlers: SharedHandlers): Promise<void> {
    await this.state.subscribe(CHANNEL, (raw) => {
      let event: Event;
      try {
        event = JSON.parse(raw) as Event;
      } catch {
        return;
      }
      if (event.t === 'rec') {
        if (event.r === this.replica) return;
        this.changes++;
        handlers.stale(event.s);
      } else if (event.t === 'ev') handlers.poke(event.s, event.k, event.q);
      else if (event.t === 'reply') {
        if (event.to === this.replica) handlers.deliver(event.s, event.m);
      } else if (event.t === 'cancel') handlers.deliver(event.s, event.m);
      else if (event.t === 'end') handlers.ended(event.s);
    });
    this.state.onDeliveryResumed(() => handlers.resync());
  }

  /** The record of a session as the protocol connection holds it. */
  recordOf(
    client: string,
    session: LegacySession,
    toolsets: readonly string[] | undefined,
  ): SessionRecord | undefined {
    if (session.version === undefined) return undefined;
    return {
      client,
      version: session.version,
      ready: session.ready,
      ...(session.logLevel !== undefined && { logLevel: session.logLevel }),
      subscriptions: [...session.subscriptions],
      capabilities: session.clientCapabilities,
      ...(toolsets !== undefined && { toolsets }),
    };
  }

  /** Whether a copy held here can serve a request without asking the store. */
  holds(copy: RecordCopy, now = Date.now()): boolean {
    const state = this.state;
    return (
      copy.current &&
      copy.gaps === state.gaps &&
      state.delivering &&
      state.healthy &&
      now - copy.refreshed < this.refreshMs
    );
  }

  /**
   * Loads a record and refreshes the session's expiry, in one round trip; undefined when the session
   * is unknown (ended, or expired). Throws StateError. `copy` says what the read is worth as a copy.
   */
  async load(id: string): Promise<{ record: SessionRecord; copy: RecordCopy } | undefined> {
    if (!SESSION_ID.test(id)) return undefined;
    const changes = this.changes;
    const gaps = this.state.gaps;
    const text = await this.state.getAndTouch(
      `s:${id}`,
      [`g:${id}`],
      { key: 'sessions', member: id },
      this.ttlMs,
    );
    const record = text === undefined ? undefined : parseRecord(text);
    if (record === undefined) return undefined;
    return { record, copy: { current: this.changes === changes, gaps, refreshed: Date.now() } };
  }

  /** A record as the store holds it, without refreshing it (fan-out). */
  private async peek(id: string): Promise<SessionRecord | undefined> {
    const text = await this.state.get(`s:${id}`);
    return text === undefined ? undefined : parseRecord(text);
  }

  /**
   * Writes a changed record and refreshes the session's expiry, in one round trip; `announce`: the
   * other replicas may hold a copy, and are told to drop it. Resolves with the copy it leaves here.
   */
  async save(id: string, record: SessionRecord, announce: boolean): Promise<RecordCopy> {
    const text = bounded(`the record of session ${id.slice(0, 6)}…`, JSON.stringify(record), RECORD_BYTES);
    const gaps = this.state.gaps;
    const event: Event = { t: 'rec', s: id, r: this.replica };
    await this.state.setAndTouch(
      `s:${id}`,
      text,
      this.ttlMs,
      { key: 'sessions', member: id },
      announce ? { channel: CHANNEL, message: JSON.stringify(event) } : undefined,
    );
    return { current: true, gaps, refreshed: Date.now() };
  }

  /** DELETE: the session ends on every replica. */
  async remove(id: string): Promise<void> {
    await this.state.del([`s:${id}`, `g:${id}`]);
    await this.state.indexRemove('sessions', id);
    await this.publish({ t: 'end', s: id });
  }

  /**
   * A client's response to a server→client request another replica sent: published to it; true
   * when it was (the caller answers 202), false when it is this replica's own or not such an id.
   */
  async forward(sessionId: string, message: Record<string, unknown>): Promise<boolean> {
    const id = message.id;
    if ('method' in message || typeof id !== 'string') return false;
    const owner = OUTBOUND_ID.exec(id)?.[1];
    if (owner === undefined || owner === this.replica) return false;
    await this.publish({ t: 'reply', to: owner, s: sessionId, m: message });
    return true;
  }

  /** notifications/cancelled: every replica holding the session tries it (only one runs the request). */
  async cancel(sessionId: string, message: object): Promise<void> {
    await this.publish({ t: 'cancel', s: sessionId, m: message });
  }

  /**
   * The prefix of a connection's server→client request ids: this replica, then the connection (a
   * session taken up again here counts its requests afresh, so its ids must not repeat).
   */
  outboundIdPrefix(): string {
    return `${this.replica}-${tag()}-`;
  }

  /** The event log of one session's streams. */
  streamLog(sessionId: string): StreamLog {
    const key = (stream: string) => `st:${sessionId}:${stream}`;
    const bounds = { items: this.limits.events, bytes: this.limits.bytes, ttlMs: this.ttlMs };
    let warned = false;
    return {
      tag: tag(),
      create: (stream, kind, lost) =>
        this.state.logCreate(
          key(stream),
          kind,
          this.ttlMs,
          lost === undefined
            ? undefined
            : {
                item: lost,
                // Past any sequence number: whoever carries the stream reads the log and ends it.
                announce: {
                  channel: CHANNEL,
                  message: JSON.stringify({
                    t: 'ev',
                    s: sessionId,
                    k: stream,
                    q: Number.MAX_SAFE_INTEGER,
                  } satisfies Event),
                },
              },
        ),
      append: (stream, data) => this.state.logAppend(key(stream), data, bounds),
      read: (stream, after) => this.state.logRead(key(stream), after, this.ttlMs),
      close: (stream) => this.state.logClose(key(stream), this.ttlMs),
      announce: (stream, seq) =>
        void this.publish({ t: 'ev', s: sessionId, k: stream, q: seq }).catch(() => {}),
      newestGet: (stream) =>
        void this.state.set(`g:${sessionId}`, stream, this.ttlMs).catch((err: unknown) => {
          this.log.warn(`state: could not record the GET stream of a session: ${describe(err)}`);
        }),
      failed: (_stream, err) => {
        if (warned) return;
        warned = true;
        this.log.warn(`state: a stream event went out live only, not resumable: ${describe(err)}`);
      },
    };
  }

  /**
   * After a reload (`eventId` names the change the same way on every replica). With `change` (the
   * catalogs before and after), a session of some toolsets hears only of what changed in their
   * view, as the hub tells this replica's own clients.
   */
  listChanged(
    categories: ReadonlySet<ListCategory>,
    eventId: string,
    change?: { readonly before: Catalog; readonly after: Catalog },
  ): Promise<void> {
    const changedFor = changesByView(categories, change);
    // One list per view (changesByView answers the same set for the same view).
    const lists = new Map<ReadonlySet<ListCategory>, readonly object[]>();
    return this.fanout(
      `lc:${eventId}`,
      (record) => record.ready,
      (record) => {
        const changed = changedFor(record.toolsets);
        let list = lists.get(changed);
        if (list === undefined) {
          list = [...changed].sort().map((c) => notification(`notifications/${c}/list_changed`));
          lists.set(changed, list);
        }
        return list;
      },
    );
  }

  resourceUpdated(uri: string): Promise<void> {
    return this.fanout(
      `ru:${Math.floor(Date.now() / UPDATE_WINDOW_MS)}:${uri}`,
      (record) => record.subscriptions.includes(uri),
      always([notification('notifications/resources/updated', { uri })]),
    );
  }

  logToSessions(level: LogLevel, data: unknown, eventId: string): Promise<void> {
    return this.fanout(
      `log:${eventId}`,
      (record) => record.ready && record.logLevel !== undefined && passes(level, record.logLevel),
      always([notification('notifications/message', { level, logger: 'mcp-run', data })]),
    );
  }

  /**
   * Appends `messages` to the newest GET stream of every session that `wants` them, once over all
   * replicas (the claim). A store that does not answer (Redis down or cut off) does not lose the
   * change: the claim, or the rest of the sessions, is tried again (250 ms up to 2 s) until it
   * lands or the sessions it was for have expired; the sessions already told are not told twice.
   */
  private async fanout(
    claim: string,
    wants: (record: SessionRecord) => boolean,
    messages: (record: SessionRecord) => readonly object[],
  ): Promise<void> {
    const run: Fanout = { claimed: false, told: new Map() };
    const until = Date.now() + this.ttlMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.fanoutOnce(claim, wants, messages, run);
      } catch (err) {
        if (!(err instanceof StateUnavailable) || Date.now() > until) {
          this.log.warn(`state: a notification did not reach every 2025 session: ${describe(err)}`);
          return;
        }
        if (attempt === 0)
          this.log.warn(
            `state: a notification waits for the store to reach the 2025 sessions: ${describe(err)}`,
          );
        // Unref'd: a fan-out waiting for the store does not hold a shutting-down process.
        const wait = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)];
        await new Promise((resolve) => setTimeout(resolve, wait).unref());
      }
    }
  }

  private async fanoutOnce(
    claim: string,
    wants: (record: SessionRecord) => boolean,
    messages: (record: SessionRecord) => readonly object[],
    run: Fanout,
  ): Promise<void> {
    if (!run.claimed) {
      if (!(await this.state.claim(`c:${claim}`, CLAIM_MS, this.replica))) return;
      run.claimed = true;
    }
    // Serialized once per distinct list of messages (one per view at most).
    const serialized = new Map<readonly object[], string[]>();
    const itemsOf = (record: SessionRecord): string[] => {
      const list = messages(record);
      let items = serialized.get(list);
      if (items === undefined) {
        items = list.map((message) => serializeMessage(message));
        serialized.set(list, items);
      }
      return items;
    };
    const bounds = { items: this.limits.events, bytes: this.limits.bytes, ttlMs: this.ttlMs };
    for (const id of await this.state.indexRecent('sessions', this.ttlMs)) {
      const told = run.told.get(id) ?? { stream: undefined, appended: 0, last: 0, announced: false };
      if (told.announced) continue;
      try {
        if (told.stream === undefined) {
          const record = await this.peek(id);
          const items = record && wants(record) ? itemsOf(record) : [];
          const stream = items.length > 0 ? await this.state.get(`g:${id}`) : undefined;
          if (stream === undefined) continue;
          told.stream = { key: stream, items };
          run.told.set(id, told);
        }
        const { key, items } = told.stream;
        // After a retry, the items already appended are not appended again, nor is the one whose
        // append timed out but may have run (its id says so).
        for (; told.appended < items.length; told.appended++)
          told.last = await this.state.logAppend(
            `st:${id}:${key}`,
            items[told.appended] as string,
            bounds,
            `${this.replica}:${claim}:${told.appended}`,
          );
        await this.publish({ t: 'ev', s: id, k: key, q: told.last });
        told.announced = true;
      } catch (err) {
        // The store did not answer: the whole fan-out is tried again from this session on.
        if (err instanceof StateUnavailable || !this.state.healthy) throw err;
        // An expired stream: the others still get theirs.
        told.announced = true;
        this.log.debug(`state: session ${id.slice(0, 6)}… missed a notification: ${describe(err)}`);
      }
    }
  }

  private publish(event: Event): Promise<void> {
    return this.state.publish(CHANNEL, JSON.stringify(event));
  }
}

/** How far one fan-out got: kept over its retries, so no session is told twice. */
interface Fanout {
  claimed: boolean;
  readonly told: Map<string, Told>;
}

interface Told {
  /** The session's newest GET stream, and what goes to it (fixed at the first attempt). */
  stream: { readonly key: string; readonly items: readonly string[] } | undefined;
  /** Items appended to its log so far, and the sequence number of the last. */
  appended: number;
  last: number;
  /** The replica carrying the stream was told (or the session was skipped). */
  announced: boolean;
}

/** The same messages for every session (one list, serialized once). */
function always(messages: readonly object[]): () => readonly object[] {
  return () => messages;
}

function parseRecord(text: string): SessionRecord | undefined {
  try {
    return JSON.parse(text) as SessionRecord;
  } catch {
    return undefined;
  }
}

function describe(err: unknown): string {
  return err instanceof StateError || err instanceof Error ? err.message : String(err);
}
