/**
 * Upstream sessions per caller, for an HTTP upstream reached with `auth: { tokenExchange }`: the
 * caller's verified token is traded for an upstream token (../shared/oauth.ts, RFC 8693, the http
 * source's code), and an upstream Streamable HTTP session of its own is opened with that token. The
 * caller's own token never goes upstream.
 *
 * - One session per inbound token (its hash with the issuer, never the token): a caller's calls
 *   share it; another caller, or the same subject with another token (other scopes), never does.
 * - The session lives as long as its exchanged token: when the exchange's cache hands out a new one
 *   (before expiry), or the upstream answers 401/403 (the token is forgotten), the session is
 *   closed and a new one opened with a new token; a call refused with 401 is tried once more.
 * - At most `maxSessions` a source (least recently used closed first, with its DELETE; a session
 *   with calls running is never closed for room: a caller is then told to retry); one unused for
 *   `idleMs` is closed too. The source's `maxConcurrency` bounds requests over all of them.
 * - Exchanged tokens are held here and in the exchange's cache only: `held` lists them to redact;
 *   they are never logged and never stored elsewhere.
 *
 * `tokenExchangeRefusal` says which settings of a source cannot work (SOURCE_TOKEN_EXCHANGE_REFUSED).
 */
import { createHash } from 'node:crypto';
import { Slots } from '../../util/slots.js';
import type { Logger } from '../contract/kinds.js';
import type { CallerIdentity } from '../contract/types.js';
import type { TokenSource } from '../shared/oauth.js';
import type { HttpAuth } from '../shared/outbound-auth.js';
import type { McpClient } from './client.js';
import type { ExposeConfig } from './expose.js';
import { placeIn, type Upstream } from './upstream.js';

/** A session unused this long is closed. */
export const SESSION_IDLE_MS = 5 * 60_000;

/** What of an `mcp` source's settings decides whether its token exchange can work. */
export interface TokenExchangeSettings {
  readonly command?: readonly string[];
  readonly auth?: HttpAuth;
  readonly listingAuth?: HttpAuth;
  readonly maxSessions?: number;
  readonly expose?: ExposeConfig;
}

export const PER_CALLER_TOOLS_ONLY =
  "this upstream is reached with each caller's own exchanged token, and only its tools are served so";

/**
 * Why a source's token-exchange settings cannot work (docs/upstream-mcp.md, "Per-caller sessions"),
 * or undefined. The lists are read when the source opens, with no caller: a token exchange needs the
 * source's own `listingAuth` for that, and a caller's token to exchange (`server.auth`) for the rest.
 */
export function tokenExchangeRefusal(
  config: TokenExchangeSettings,
  verifiedCallers: boolean,
): { at: string[]; reason: string; hint: string } | undefined {
  const exchange = config.auth !== undefined && 'tokenExchange' in config.auth;
  if (!exchange) {
    const extra =
      config.listingAuth !== undefined
        ? 'listingAuth'
        : config.maxSessions !== undefined
          ? 'maxSessions'
          : undefined;
    if (extra === undefined) return undefined;
    return {
      at: [extra],
      reason: `\`${extra}\` is for a source whose \`auth\` is a token exchange, and this one's is not`,
      hint: `remove \`${extra}\` (the source's \`auth\` reads the lists and serves every call), or set \`auth: { tokenExchange: … }\``,
    };
  }
  const at = ['auth', 'tokenExchange'];
  if (config.command !== undefined)
    return {
      at,
      reason:
        "a token exchange is meaningless for a stdio upstream: a program gets no HTTP request to put a caller's token on",
      hint: 'serve the upstream over Streamable HTTP and give its `url:`, or give the program its own credentials in `env:`',
    };
  if (!verifiedCallers)
    return {
      at,
      reason:
        "a token exchange trades each caller's verified OAuth access token, and this manifest has no server.auth: no call carries one",
      hint: 'add server.auth (docs/security.md), or give the source its own credentials (bearer, basic, apiKey or oauth)',
    };
  if (config.listingAuth === undefined)
    return {
      at,
      reason:
        "the upstream's lists are read when the source opens, when there is no caller whose token could be exchanged",
      hint: "add `listingAuth:` with the source's own credentials for that listing session (bearer, basic, apiKey or oauth)",
    };
  const section = (['resources', 'prompts'] as const).find((s) => config.expose?.[s] !== undefined);
  if (section !== undefined)
    return {
      at: ['expose', section],
      reason: `with a token exchange only the upstream's tools are served (each caller's in its own session), not its ${section}`,
      hint: `remove \`expose.${section}\`, or reach the upstream with the source's own credentials`,
    };
  return undefined;
}

export interface CallerSessionsOptions {
  readonly name: string;
  /** The token exchange: one upstream token per caller, cached until shortly before it expires. */
  readonly tokens: TokenSource;
  /** An Upstream that opens its sessions with `token` (sent as `Authorization: Bearer`). */
  readonly open: (token: string, refused: () => void) => Upstream;
  readonly maxSessions: number;
  readonly idleMs: number;
  readonly maxConcurrency: number;
  readonly log: Logger;
}

interface Session {
  readonly key: string;
  readonly token: string;
  readonly upstream: Upstream;
  running: number;
  lastUsed: number;
  /** The upstream refused the token (401/403): closed once its calls are done. */
  refused: boolean;
  /** Replaced by a session with a newer token: closed once its calls are done. */
  retired: boolean;
}

export class CallerSessions {
  /** In order of use, least recent first. */
  private readonly sessions = new Map<string, Session>();
  private readonly slots: Slots;
  private readonly sweeper: NodeJS.Timeout;
  private disposed = false;

  constructor(private readonly o: CallerSessionsOptions) {
    this.slots = new Slots(o.maxConcurrency);
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.floor(o.idleMs / 4)));
    this.sweeper.unref();
  }

  /** Runs `work` on the caller's own session; rejects with a sentence for the model. */
  async use<T>(
    identity: CallerIdentity | undefined,
    signal: AbortSignal,
    work: (client: McpClient) => Promise<T>,
  ): Promise<T> {
    const place = await placeIn(this.slots, signal, this.o.name, this.o.maxConcurrency);
    try {
      const first = await this.session(identity, signal);
      try {
        return await this.run(first, signal, work);
      } catch (err) {
        // A token the upstream refused (revoked, or expired early): once more with a new one.
        if (!first.refused || signal.aborted) throw err;
        return await this.run(await this.session(identity, signal), signal, work);
      }
    } finally {
      place.release();
    }
  }

  /** The exchanged tokens of the sessions open now, to redact. */
  held(): string[] {
    return [...this.sessions.values()].map((s) => s.token);
  }

  /** Sessions open now (for tests and the log). */
  get size(): number {
    return this.sessions.size;
  }

  /** Closes every session (each with its DELETE). Never throws. */
  async dispose(): Promise<void> {
    this.disposed = true;
    clearInterval(this.sweeper);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.upstream.dispose()));
  }

  private async run<T>(session: Session, signal: AbortSignal, work: (client: McpClient) => Promise<T>) {
    session.running++;
    try {
      return await session.upstream.use(signal, work);
    } finally {
      session.running--;
      session.lastUsed = Date.now();
      if ((session.refused || session.retired) && session.running === 0) this.close(session);
    }
  }

  private async session(identity: CallerIdentity | undefined, signal: AbortSignal): Promise<Session> {
    if (this.disposed) throw new Error(`${this.o.name} has been shut down`);
    if (identity === undefined)
      throw new Error(
        "this upstream is reached with the caller's own token (token exchange), and this call has no verified caller: call it over HTTP with an OAuth access token (server.auth)",
      );
    const key = createHash('sha256')
      .update(identity.issuer)
      .update('\0')
      .update(identity.accessToken())
      .digest('hex');
    // The exchange's cache answers at once while its token is fresh, and exchanges again before expiry.
    const token = await this.o.tokens.token(identity, signal);
    const current = this.sessions.get(key);
    if (current !== undefined && current.token === token && !current.refused) {
      this.sessions.delete(key);
      this.sessions.set(key, current);
      current.lastUsed = Date.now();
      return current;
    }
    if (current !== undefined) {
      this.sessions.delete(key);
      if (current.running === 0) this.close(current);
      else current.retired = true;
    }
    this.makeRoom();
    const session: Session = {
      key,
      token,
      running: 0,
      lastUsed: Date.now(),
      refused: false,
      retired: false,
      upstream: this.o.open(token, () => {
        session.refused = true;
        this.o.tokens.refused(identity);
      }),
    };
    this.sessions.set(key, session);
    return session;
  }

  /** Closes the least recently used idle session while the cap is reached. */
  private makeRoom(): void {
    while (this.sessions.size >= this.o.maxSessions) {
      const idle = [...this.sessions.values()].find((s) => s.running === 0);
      if (idle === undefined)
        throw new Error(
          `${this.o.name} has ${this.o.maxSessions} caller sessions in use (maxSessions); try again shortly`,
        );
      this.o.log.debug(
        `${this.o.name}: a caller session closed for room (maxSessions ${this.o.maxSessions})`,
      );
      this.close(idle);
    }
  }

  private sweep(): void {
    const before = Date.now() - this.o.idleMs;
    for (const s of [...this.sessions.values()]) if (s.running === 0 && s.lastUsed <= before) this.close(s);
  }

  private close(session: Session): void {
    if (this.sessions.get(session.key) === session) this.sessions.delete(session.key);
    void session.upstream.dispose();
  }
}
