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
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Logger } from '../../log.js';
import type { Connection, Protocol } from '../../protocol/server.js';
import type { Principal } from './auth.js';
import { SessionStreams, type StreamOptions } from './streams.js';

export interface Session {
  readonly id: string;
  readonly connection: Connection;
  /** Whose session it is: a principal's label (`token#1`, `key#0`, `oauth:<iss>#<sub>`) or `addr:<remote address>`. */
  readonly client: string;
  /** The version `initialize` negotiated; undefined until it answered. */
  version: string | undefined;
  /** Its SSE streams, open or resumable: where unsolicited notifications go, and what a resume continues. */
  readonly streams: SessionStreams;
  lastSeen: number;
  /** Requests of this session in flight. */
  busy: number;
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
}

/** Why `create` refused: the client is at its share, or the server is full. */
export type Refusal = 'client' | 'server';

export class SessionStore {
  /** In least recently used order: `touch` moves a session to the end. */
  private readonly sessions = new Map<string, Session>();
  private readonly perClient = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly protocol: Protocol,
    readonly limits: SessionLimits,
    private readonly log: Logger,
    private readonly streamOptions: StreamOptions,
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
  create(client: string): Session | Refusal {
    this.expire();
    if (this.countOf(client) >= this.limits.perClient && !this.evictIdle(client)) return 'client';
    if (this.sessions.size >= this.limits.max && !this.evictIdle(undefined)) return 'server';
    // 24 random bytes as base64url: 32 visible-ASCII characters, unguessable.
    const id = randomBytes(24).toString('base64url');
    const session: Session = {
      id,
      client,
      version: undefined,
      streams: new SessionStreams(this.streamOptions),
      lastSeen: Date.now(),
      busy: 0,
      connection: this.protocol.connect((message) => {
        if (!session.streams.notify(message))
          this.log.debug(`http: session ${shortId(id)} has no GET stream; dropped a notification`);
      }),
    };
    this.sessions.set(id, session);
    this.perClient.set(client, this.countOf(client) + 1);
    return session;
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
    if (this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    this.sessions.set(session.id, session);
  }

  end(id: string): void {
    const session = this.sessions.get(id);
    if (session === undefined) return;
    this.sessions.delete(id);
    const left = this.countOf(session.client) - 1;
    if (left > 0) this.perClient.set(session.client, left);
    else this.perClient.delete(session.client);
    session.connection.close();
    session.streams.closeAll();
  }

  /** Shutdown: every session ends, every GET stream closes. */
  closeAll(): void {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) this.end(id);
  }

  /** Ends the least recently used idle session (of `client`, or of anyone); false when none is idle. */
  private evictIdle(client: string | undefined): boolean {
    for (const session of this.sessions.values()) {
      if (!isIdle(session) || (client !== undefined && session.client !== client)) continue;
      const whose = client === undefined ? 'the server is full' : 'its client is at its share';
      this.log.debug(`http: evicted idle session ${shortId(session.id)}: ${whose}`);
      this.end(session.id);
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
        this.end(session.id);
      }
    }
  }
}

const isIdle = (session: Session): boolean => session.busy === 0 && !session.streams.held;

/**
 * Who a request comes from, for the per-client share. With auth on it is the principal the
 * authenticator admitted the request as (auth.ts): a static credential by its position in the
 * configuration (`token#0`, `key#2`), an OAuth caller by issuer and subject; never a secret.
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
