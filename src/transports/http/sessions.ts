/**
 * Legacy (2025-era) HTTP sessions. `initialize` mints one: a crypto-random `Mcp-Session-Id` bound to
 * its own protocol Connection, whose standing channel is the session's GET stream (list_changed and
 * resources/updated, which belong to no request). Sessions end by DELETE, by idling past the expiry,
 * or at shutdown; their number is bounded so a client loop cannot exhaust memory.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../log.js';
import type { Connection, Protocol } from '../../protocol/server.js';
import type { SseStream } from './sse.js';

export interface Session {
  readonly id: string;
  readonly connection: Connection;
  /** The version `initialize` negotiated; undefined until it answered. */
  version: string | undefined;
  /** The open GET stream, when the client has one. */
  stream: SseStream | undefined;
  lastSeen: number;
  /** Requests of this session in flight: a busy session never expires. */
  busy: number;
}

export interface SessionLimits {
  readonly idleMs: number;
  readonly max: number;
}

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly protocol: Protocol,
    private readonly limits: SessionLimits,
    private readonly log: Logger,
  ) {
    this.sweeper = setInterval(() => this.expireIdle(), Math.max(1000, Math.min(limits.idleMs / 2, 60_000)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** A new session, or undefined when the bound is reached. */
  create(): Session | undefined {
    if (this.sessions.size >= this.limits.max) {
      this.expireIdle();
      if (this.sessions.size >= this.limits.max) return undefined;
    }
    // 24 random bytes as base64url: 32 visible-ASCII characters, unguessable.
    const id = randomBytes(24).toString('base64url');
    const session: Session = {
      id,
      version: undefined,
      stream: undefined,
      lastSeen: Date.now(),
      busy: 0,
      connection: this.protocol.connect((message) => {
        if (session.stream?.open) session.stream.send(message);
        else this.log.debug(`http: session ${shortId(id)} has no GET stream; dropped a notification`);
      }),
    };
    this.sessions.set(id, session);
    return session;
  }

  /** Makes `stream` the session's standing stream, where its unsolicited notifications go. */
  attach(session: Session, stream: SseStream): void {
    session.stream = stream;
    this.log.debug(`http: session ${shortId(session.id)} opened its GET stream`);
  }

  /** The live session with this id (and marks it used), or undefined. */
  get(id: string): Session | undefined {
    const session = this.sessions.get(id);
    if (session !== undefined) session.lastSeen = Date.now();
    return session;
  }

  end(id: string): void {
    const session = this.sessions.get(id);
    if (session === undefined) return;
    this.sessions.delete(id);
    session.connection.close();
    session.stream?.end();
    session.stream = undefined;
  }

  /** Shutdown: every session ends, every GET stream closes. */
  closeAll(): void {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) this.end(id);
  }

  private expireIdle(): void {
    const cutoff = Date.now() - this.limits.idleMs;
    for (const session of [...this.sessions.values()]) {
      if (session.busy === 0 && !session.stream?.open && session.lastSeen < cutoff) {
        this.log.debug(`http: session ${shortId(session.id)} expired after ${this.limits.idleMs} ms idle`);
        this.end(session.id);
      }
    }
  }
}

/** Enough of an id to tell sessions apart in a log, not enough to use it. */
const shortId = (id: string): string => `${id.slice(0, 6)}…`;
