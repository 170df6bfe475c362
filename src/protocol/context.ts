/**
 * The internal shapes every part of the core shares: where messages go (Outlet), what a legacy
 * connection remembers (LegacySession), what one protocol instance holds (ServerState), and what a
 * method-table entry looks like (MethodSpec).
 */
import type { CatalogRef, LogLevel } from '../catalog/types.js';
import type { Logger } from '../kinds/contracts.js';
import type { NotificationHub } from './hub.js';
import type { RequestScope } from './request-scope.js';
import type { StateSigner } from './request-state.js';

/**
 * Where the messages about one request go. Over stdio both calls write to the one stdout channel;
 * an HTTP transport passes its own (a RequestRoute) so they land on that request's response stream.
 */
export interface Outlet {
  /** A notification related to the request: progress, a log message, a listen-stream event. */
  notify(message: object): void;
  /** The final response (or batch of responses); `status` is the HTTP status it implies. */
  respond(message: object, status: number): void;
}

/**
 * What `initialize` establishes on a connection. Only legacy requests read it: modern requests are
 * stateless by rule, so nothing a modern handler does may depend on these fields.
 */
export interface LegacySession {
  /** The negotiated version; undefined until `initialize` succeeded. */
  version: string | undefined;
  /** True once `notifications/initialized` arrived: list_changed is pushed only then. */
  ready: boolean;
  /** Set by `logging/setLevel`; no `notifications/message` is sent before that. */
  logLevel: LogLevel | undefined;
  /** URIs from `resources/subscribe`. */
  readonly subscriptions: Set<string>;
  /** The `capabilities` the client declared at `initialize` (what it may be asked). */
  clientCapabilities: Readonly<Record<string, unknown>>;
}

/** Everything one protocol instance shares across its connections. */
export interface ServerState {
  readonly ref: CatalogRef;
  readonly log: Logger;
  /** Whether list_changed is advertised (and therefore ever sent). */
  readonly listChanged: boolean;
  /** ttlMs on cacheable 2026 results. */
  readonly ttlMs: number;
  /** The capabilities object, built once: both eras advertise the same one. */
  readonly capabilities: object;
  readonly hub: NotificationHub;
  /** Seals and opens the 2026 `requestState` of interactive calls. */
  readonly signer: StateSigner;
}

/** Returned by a handler whose request stays open (subscriptions/listen); it answers later. */
export const KEEP_OPEN: unique symbol = Symbol('keep-open');

export interface MethodSpec {
  /** 'legacy' methods are unknown (-32601) to modern requests, and the reverse. */
  readonly era: 'both' | 'legacy' | 'modern';
  /** Modern results of this method carry ttlMs + cacheScope. */
  readonly cacheable?: boolean;
  /** Returns the era-neutral result; the dispatcher adds the 2026 decoration. May throw ProtocolError. */
  handle(scope: RequestScope): object | typeof KEEP_OPEN | Promise<object | typeof KEEP_OPEN>;
}
