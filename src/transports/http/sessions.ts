/**
 * Legacy (2025-era) HTTP sessions. `initialize` mints one: a crypto-random `Mcp-Session-Id` bound to
 * its own protocol Connection, whose standing channel is one of the session's GET streams (list_changed
 * and resources/updated, which belong to no request), and its resumable SSE streams (streams.ts). Sessions end by DELETE, by idling past an expiry,
 * by eviction, or at shutdown; their number is bounded so a client loop cannot exhaust memory.
 *
 * Fairness (one client must not lock everyone out):
 * - A session is *idle* when it has no open stream (GET, or a resumed POST stream) and no request in
 *   flight; it expires after
 *   `idleMs` unused. A *held* session (open GET stream or request in flight) expires after the longer
 *   `heldIdleMs` without a new request.
 * - Each client (its authenticated principal when auth is on, else its remote address) holds at most
 *   `perClient` sessions. At its share, a new `initialize` evicts that client's least recently used
 *   idle session; with none idle, it is refused, and no one else is affected.
 * - At `max`, a new `initialize` evicts the least recently used idle session of any client before
 *   anyone is refused. A request on an evicted session gets 404, so its client initializes again.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { LogLevel } from '../../catalog/types.js';
import type { Logger } from '../../log.js';
import type { Connection, Protocol } from '../../protocol/server.js';
import type { LegacySession } from '../../protocol/session.js';
import type { Principal } from './auth.js';
import type { RecordCopy, SessionRecord, SharedSessions } from './shared-sessions.js';
import { SessionStreams, type StreamOptions } from './streams.js';

export interface Session {
  readonly id: string;
  readonly connection: Connection;
  /** The toolsets of the path it was created on (`<path>/<toolset>`); absent: the default endpoint. */
  readonly toolsets?: readonly string[];
  /** Whose session it is: a principal's label (`token#1`, `key#0`, `oauth:<iss>#sub:<sub>`) or `addr:<remote address>`. */
  readonly client: string;
  /** The version `initialize` negotiated; undefined until it answered. */
  version: string | undefined;
  /** Its SSE streams, open or resumable: where unsolicited notifications go, and what a resume continues. */
  readonly streams: SessionStreams;
  lastSeen: number;
  /** Requests of this session in flight. */
  busy: number;
  /** Shared (`--state`): the record as last loaded or saved, to save only what changed. */
  saved?: string;
  /** Shared: the session state that `saved` was made from, compared field by field on each request. */
  savedFrom?: SavedState;
  /** Shared: what this replica knows of its copy of the record (whether it can serve from it). */
  copy?: RecordCopy;
}

export interface SessionLimits {
  /** An idle session (no GET stream, no request in flight) unused this long ends. */
  readonly idleMs: number;
  /** A session holding a GET stream or a request in flight, without a new request this long, ends. */
  readonly heldIdleMs: number;
  /** Open sessions at most, over all clients. */
  readonly max: number;
  /** Open sessions at most for one client. */
  readonly perClient: number;
  /**
   * Shared (`--state`): bytes of session records held here at most. Beyond it, the least recently
   * used idle sessions are dropped here (they live on in the store, and are taken up again on their
   * next request), so a few large records cannot hold `max` times the record bound.
   */
  readonly heldRecordBytes: number;
}

/** Why `create` refused: the client is at its share, or the server is full. */
export type Refusal = 'client' | 'server';

export class SessionStore {
  /** In least recently used order: `touch` moves a session to the end. */
  private readonly sessions = new Map<string, Session>();
  /** The session at the end of that order: touching it again moves nothing (most requests). */
  private newest: Session | undefined;
  private readonly perClient = new Map<string, number>();
  /** Shared: bytes of the records held here (Session.saved), bounded by `limits.heldRecordBytes`. */
  private recordBytes = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly protocol: Protocol,
    readonly limits: SessionLimits,
    private readonly log: Logger,
    private readonly streamOptions: StreamOptions,
    /** With `--state`: sessions live in the shared store, and this store caches them. */
    readonly shared?: SharedSessions,
  ) {
    const shortest = Math.min(limits.idleMs, limits.heldIdleMs);
    this.sweeper = setInterval(() => this.expire(), Math.max(1000, Math.min(shortest / 2, 60_000)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Open sessions of one client. */
  countOf(client: string): number {
    return this.perClient.get(client) ?? 0;
  }

  /** A new session for `client`, evicting an idle one when a bound is reached, or the refusal. */
  create(client: string, toolsets?: readonly string[]): Session | Refusal {
    this.expire();
    if (this.countOf(client) >= this.limits.perClient && !this.evictIdle(client)) return 'client';
    if (this.sessions.size >= this.limits.max && !this.evictIdle(undefined)) return 'server';
    // 24 random bytes as base64url: 32 visible-ASCII characters, unguessable.
    return this.add(randomBytes(24).toString('base64url'), client, toolsets);
  }

  private add(id: string, client: string, toolsets?: readonly string[]): Session {
    const shared = this.shared;
    const session: Session = {
      id,
      client,
      ...(toolsets !== undefined && { toolsets }),
      version: undefined,
      streams: new SessionStreams(this.streamOptions, shared?.streamLog(id)),
      lastSeen: Date.now(),
      busy: 0,
      connection: this.protocol.connect(
        (message) => {
          // Shared: unsolicited messages reach the session through the store's fan-out, once.
          if (shared !== undefined) return;
          if (!session.streams.notify(message))
            this.log.debug(`http: session ${shortId(id)} has no GET stream; dropped a notification`);
        },
        // Shared: the session's tasks are owned by the session, whichever replica serves it (a
        // digest of the id: the id itself, a bearer secret, is not written into task records).
        {
          ...(toolsets !== undefined && { toolsets }),
          ...(shared !== undefined && {
            outboundIdPrefix: shared.outboundIdPrefix(),
            taskOwner: `session:${sessionDigest(id)}`,
          }),
        },
      ),
    };
    this.sessions.set(id, session);
    this.newest = session;
    this.perClient.set(client, this.countOf(client) + 1);
    return session;
  }

  /** Shared: the session held here, if any (no store round trip). */
  local(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /**
   * Shared (`--state`): the session with this id: the one held here while its copy of the record is
   * current (no round trip), else loaded from the store (a session another replica opened is taken
   * up here) with its state refreshed from the record; undefined when it is unknown. Throws
   * StateError when the store is unreachable.
   */
  async fetch(id: string): Promise<Session | undefined> {
    const shared = this.shared as SharedSessions;
    const held = this.sessions.get(id);
    if (held?.copy !== undefined && shared.holds(held.copy)) {
      this.touch(held);
      return held;
    }
    const loaded = await shared.load(id);
    if (loaded === undefined) {
      this.drop(id);
      return undefined;
    }
    let session = this.sessions.get(id);
    if (session === undefined) {
      this.expire();
      if (this.sessions.size >= this.limits.max) this.evictIdle(undefined);
      session = this.add(id, loaded.record.client, loaded.record.toolsets);
      this.log.debug(`http: session ${shortId(id)} taken up from the shared state`);
    }
    restore(session, loaded.record);
    session.copy = loaded.copy;
    this.touch(session);
    this.keep(session, JSON.stringify(loaded.record));
    session.savedFrom = savedState(session.connection.session);
    return session;
  }

  /** Shared: announcements may have been missed; every stream held here reads what its log holds. */
  resync(): void {
    for (const session of this.sessions.values()) session.streams.resync();
  }

  /** Shared: holds `text` as the session's record, within the bound on the bytes of records held. */
  private keep(session: Session, text: string): void {
    // A session dropped while its write was in flight is counted no more.
    if (this.sessions.get(session.id) === session)
      this.recordBytes += Buffer.byteLength(text) - byteLength(session.saved);
    session.saved = text;
    if (this.recordBytes <= this.limits.heldRecordBytes) return;
    for (const other of [...this.sessions.values()]) {
      if (this.recordBytes <= this.limits.heldRecordBytes) return;
      if (other === session || !isIdle(other)) continue;
      this.log.debug(
        `http: dropped idle session ${shortId(other.id)} here: the records held are at their ${this.limits.heldRecordBytes}-byte bound`,
      );
      this.drop(other.id);
    }
  }

  /** Shared: another replica changed this session's record; the copy held here is read again. */
  invalidate(id: string): void {
    const copy = this.sessions.get(id)?.copy;
    if (copy === undefined) return;
    copy.current = false;
    this.log.debug(`http: session ${shortId(id)} changed on another replica`);
  }

  /**
   * Shared: writes the session's record back when it changed (the other replicas holding it are
   * told), in one round trip; an unchanged record costs none (its expiry is refreshed by `fetch`),
   * and is found unchanged without building it (most requests: a tools/call changes nothing).
   */
  async save(session: Session): Promise<void> {
    const shared = this.shared;
    if (shared === undefined) return;
    const state = session.connection.session;
    if (session.savedFrom !== undefined && sameState(session.savedFrom, state)) return;
    const record = shared.recordOf(session.client, state, session.toolsets);
    if (record === undefined) return;
    const text = JSON.stringify(record);
    const from = savedState(state);
    if (text !== session.saved) {
      // A session never written yet (initialize) is held nowhere else: nothing to announce.
      session.copy = await shared.save(session.id, record, session.saved !== undefined);
      this.keep(session, text);
    }
    session.savedFrom = from;
  }

  /** The live session with this id (and marks it used), or undefined. */
  get(id: string): Session | undefined {
    const session = this.sessions.get(id);
    if (session !== undefined) this.touch(session);
    return session;
  }

  /** Marks the session used now: it becomes the most recently used, the last to be evicted. */
  touch(session: Session): void {
    session.lastSeen = Date.now();
    if (session === this.newest || this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    this.sessions.set(session.id, session);
    this.newest = session;
  }

  /** Ends a session: here, and with `--state` everywhere (DELETE). */
  end(id: string): void {
    if (this.shared !== undefined) {
      const shared = this.shared;
      void shared.remove(id).catch((err: Error) => this.log.warn(`state: ending a session: ${err.message}`));
      // Its tasks end with it (those running here stop; elsewhere their records go).
      this.sessions.get(id)?.connection.close(true);
    }
    this.drop(id);
  }

  /** Forgets a session here only: with `--state` it lives on in the store (expiry, eviction). */
  drop(id: string): void {
    const session = this.sessions.get(id);
    if (session === undefined) return;
    this.sessions.delete(id);
    if (this.newest === session) this.newest = undefined;
    this.recordBytes -= byteLength(session.saved);
    const left = this.countOf(session.client) - 1;
    if (left > 0) this.perClient.set(session.client, left);
    else this.perClient.delete(session.client);
    session.connection.close();
    session.streams.closeAll();
  }

  /** Shutdown: every session ends here (with `--state` it lives on for the other replicas). */
  closeAll(): void {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) this.forget(id);
  }

  /** Expiry, eviction, shutdown: the end of a session, or with `--state` of its copy here. */
  private forget(id: string): void {
    if (this.shared === undefined) this.end(id);
    else this.drop(id);
  }

  /** Ends the least recently used idle session (of `client`, or of anyone); false when none is idle. */
  private evictIdle(client: string | undefined): boolean {
    for (const session of this.sessions.values()) {
      if (!isIdle(session) || (client !== undefined && session.client !== client)) continue;
      const whose = client === undefined ? 'the server is full' : 'its client is at its share';
      this.log.debug(`http: evicted idle session ${shortId(session.id)}: ${whose}`);
      this.forget(session.id);
      return true;
    }
    return false;
  }

  private expire(): void {
    const now = Date.now();
    for (const session of [...this.sessions.values()]) {
      const limit = isIdle(session) ? this.limits.idleMs : this.limits.heldIdleMs;
      if (session.lastSeen < now - limit) {
        const what = isIdle(session) ? 'idle' : 'holding a stream or request, without a new request';
        this.log.debug(`http: session ${shortId(session.id)} expired after ${limit} ms ${what}`);
        this.forget(session.id);
      }
    }
  }
}

/** Puts a loaded record into the session's protocol connection and streams. */
function restore(session: Session, record: SessionRecord): void {
  const state = session.connection.session;
  state.version = record.version;
  state.ready = record.ready;
  state.logLevel = record.logLevel;
  state.clientCapabilities = record.capabilities;
  state.subscriptions.clear();
  for (const uri of record.subscriptions) state.subscriptions.add(uri);
  session.version = record.version;
  session.streams.negotiated(record.version);
}

/**
 * What a session record is made of (SharedSessions.recordOf) that a request can change; the
 * capabilities by reference (only `initialize` and a restore replace them, never in place).
 */
interface SavedState {
  readonly version: string | undefined;
  readonly ready: boolean;
  readonly logLevel: LogLevel | undefined;
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly subscriptions: readonly string[];
}

function savedState(state: LegacySession): SavedState {
  return {
    version: state.version,
    ready: state.ready,
    logLevel: state.logLevel,
    capabilities: state.clientCapabilities,
    subscriptions: [...state.subscriptions],
  };
}

function sameState(saved: SavedState, state: LegacySession): boolean {
  if (
    saved.version !== state.version ||
    saved.ready !== state.ready ||
    saved.logLevel !== state.logLevel ||
    saved.capabilities !== state.clientCapabilities ||
    saved.subscriptions.length !== state.subscriptions.size
  )
    return false;
  let i = 0;
  for (const uri of state.subscriptions) if (saved.subscriptions[i++] !== uri) return false;
  return true;
}

const byteLength = (text: string | undefined): number => (text === undefined ? 0 : Buffer.byteLength(text));

const isIdle = (session: Session): boolean => session.busy === 0 && !session.streams.held;

/**
 * Who a request comes from, for the per-client share. With auth on it is the principal the
 * authenticator admitted the request as (auth.ts): a static credential by its position in the
 * configuration (`token#0`, `key#2`), an OAuth caller by issuer and subject (or, without a
 * subject, its client id: oauth/verifier.ts principalOf); never a secret.
 * Without auth it is the remote address: behind a reverse proxy every client shares the proxy's
 * address, so turn auth on to tell them apart.
 */
export function clientKey(principal: Principal | undefined, req: IncomingMessage): string {
  if (principal !== undefined) return principal.label;
  const address = req.socket.remoteAddress ?? 'unknown';
  return `addr:${address.startsWith('::ffff:') ? address.slice(7) : address}`;
}

/** Enough of an id to tell sessions apart in a log, not enough to use it. */
export const shortId = (id: string): string => `${id.slice(0, 6)}…`;

/** A session's name in task records: replica-independent, and not the bearer secret itself. */
function sessionDigest(id: string): string {
  return createHash('sha256').update(id).digest('base64url').slice(0, 32);
}
