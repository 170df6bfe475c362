/**
 * The two shapes at the bottom of the core: where the messages about a request go (Outlet), and what
 * a legacy connection remembers (LegacySession). They import nothing of the core, so every part of
 * it can name them without a circle.
 */
import type { LogLevel } from '../catalog/types.js';

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
  /**
   * Set by `logging/setLevel`; until then DEFAULT_SESSION_LOG_LEVEL (warnings and above) after
   * `initialize`. Undefined before `initialize`: nothing is sent.
   */
  logLevel: LogLevel | undefined;
  /** URIs from `resources/subscribe`. */
  readonly subscriptions: Set<string>;
  /** The `capabilities` the client declared at `initialize` (what it may be asked). */
  clientCapabilities: Readonly<Record<string, unknown>>;
}
