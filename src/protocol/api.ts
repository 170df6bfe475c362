/**
 * The public shapes of the protocol core, shared by every transport. `server.ts` re-exports them.
 *
 * HTTP seam: a transport that gives each request its own response stream passes a RequestRoute to
 * `receive`. The route gets that request's related notifications (progress, logs, the listen
 * stream) and its final response with the HTTP status the response implies; the connection's
 * standing `send` keeps only unsolicited traffic (legacy list_changed and resources/updated).
 */
import type { CallerIdentity, LogLevel } from '../catalog/types.js';
import type { AuditTrail } from '../governance/audit/trail.js';
import type { Logger } from '../log.js';
import type { TaskEngineOptions, TaskStore } from '../tasks/types.js';
import type { CatalogChange, ListCategory } from './hub.js';
import type { ProtocolError } from './jsonrpc.js';
import type { Access } from './pagination.js';
import type { UsedStates } from './request-state.js';
import type { HeaderReader } from './routing-headers.js';
import type { LegacySession, Outlet } from './session.js';
import type { Era } from './versions.js';

export type { ListCategory } from './hub.js';
export type { Access, ListKind } from './pagination.js';
export type { Era } from './versions.js';

export interface ProtocolOptions {
  /** stderr logger; the core never writes to stdout itself. */
  readonly log: Logger;
  /** Advertise (and send) tools/prompts/resources listChanged: true when the manifest is watched. */
  readonly listChanged: boolean;
  /**
   * Advertise `resources.subscribe` and send `notifications/resources/updated`: true when the files
   * and the manifest the resources come from are watched. Default: `listChanged`. Even then, only
   * the URIs of resources that declare `updates` can be subscribed to.
   */
  readonly resourceUpdates?: boolean;
  /** ttlMs on cacheable 2026 results; default 60000 when listChanged, else 3600000. */
  readonly ttlMs?: number;
  /**
   * The secret the 2026 `requestState` is signed with; default: MCP_RUN_STATE_KEY from the
   * environment, else a random key per process (then only this process accepts its states).
   */
  readonly stateKey?: string;
  /**
   * Where a used requestState is reserved across the processes that accept it (request-state.ts);
   * default: this process alone.
   */
  readonly usedStates?: UsedStates;
  /** Where task records live (default: this process's memory; src/tasks/types.ts). */
  readonly taskStore?: TaskStore;
  /** How the engine runs with that store: its heartbeat window and, shared, its bus (tasks/engine.ts). */
  readonly taskEngine?: TaskEngineOptions;
  /** The audit trail (`server.audit`): one record per audited request, written in `connection.run`. */
  readonly audit?: AuditTrail;
}

/**
 * Per-request delivery for transports with per-request streams (HTTP). `notify` receives the
 * request's related notifications; `respond` receives its final response exactly once, unless the
 * request was cancelled (then nothing). For `subscriptions/listen` the route stays open: `notify`
 * carries the acknowledgement and the tagged stream, `respond` the graceful final result.
 */
export interface RequestRoute extends Outlet {
  /** Aborting it cancels the request (2026 HTTP: a closed response stream is the cancellation). */
  readonly signal?: AbortSignal;
  /**
   * The `MCP-Protocol-Version` header. With a 2026 envelope it must equal the body's version
   * (-32020 otherwise); without one, a modern value means "the envelope is missing" (-32602) and an
   * unknown value is refused (-32022). A legacy value lets the request go the legacy way.
   */
  readonly protocolVersion?: string;
  /**
   * The request's headers (HTTP), for the 2026 routing checks (`Mcp-Method`, `Mcp-Name`,
   * `Mcp-Param-*`; see routing-headers.ts). A route without it (stdio) has no such headers.
   */
  readonly header?: HeaderReader;
  /**
   * What the authenticated caller may see (HTTP with OAuth scopes). The list methods show only the
   * entries it allows; absent (stdio, no auth, a static credential) means everything. Refusing a
   * call is the transport's job (it answers 403 before dispatch); this only shapes lists.
   */
  readonly access?: Access;
  /**
   * The caller a verified OAuth access token names (HTTP with OAuth); tool calls get it in their
   * context (claim-bound inputs, token exchange). Absent: no identity (stdio, static credentials).
   */
  readonly identity?: CallerIdentity;
  /** The toolsets of the endpoint the request came to (2026 HTTP: its path); absent: the connection's. */
  readonly toolsets?: readonly string[];
  /**
   * Who the authenticated caller is (a token's or key's label, an OAuth principal): tasks belong to
   * it. Absent: the connection (stdio, a 2025 session), else (2026 HTTP without auth) nobody in
   * particular, and the unguessable task id is the only key.
   */
  readonly caller?: string;
  /**
   * Whom the limits per caller count the request against (governance/limits/): the authenticated
   * caller's label, else the client's address (HTTP without auth). Absent: one caller (stdio).
   */
  readonly client?: string;
}

/**
 * - `answered`: a response (result or error) was delivered; `status` is its HTTP status: 200, or
 *   400 for framing faults (-32700, -32600) and 2026 envelope faults (-32602 envelope, -32020,
 *   -32021, -32022), or 404 for a 2026 unknown/removed method (-32601). Legacy in-band errors are 200.
 * - `accepted`: a notification or a client response; nothing to answer (HTTP 202).
 * - `silent`: a request that ends without a response (cancelled, or its connection closed).
 * - `subscribed`: a listen stream was acknowledged and stays open on its route (HTTP 200 + SSE).
 */
export type OutcomeKind = 'answered' | 'accepted' | 'silent' | 'subscribed';

export interface ReceiveOutcome {
  readonly kind: OutcomeKind;
  readonly status: number;
  /** The era that handled (or refused) the message; absent when it could not be told. */
  readonly era?: Era;
}

export interface ConnectOptions {
  /**
   * Treat the connection as already initialized at this legacy version (e.g. an HTTP transport
   * serving a session-less 2025 request whose MCP-Protocol-Version header names the version).
   */
  readonly legacyVersion?: string;
  /**
   * Ids of this connection's server→client requests become `<prefix><n>` strings instead of
   * numbers, so that replicas sharing a session (`--state`) tell whose request an answer settles.
   */
  readonly outboundIdPrefix?: string;
  /**
   * Who owns the tasks of this connection (a 2025 session shared by replicas: the same on every
   * replica). Given, closing the connection here leaves its tasks to their ttl, since the session
   * lives on elsewhere; else the connection owns them alone and they go with it.
   */
  readonly taskOwner?: string;
  /**
   * The toolsets this connection is served (catalog/toolsets.ts): stdio's --toolset, the path a 2025
   * HTTP session was created on. Absent: the default endpoint's (everything, or server.defaultToolset).
   */
  readonly toolsets?: readonly string[];
}

export interface Connection {
  /**
   * Handles one inbound message: a JSON string (one line), or an already-parsed value. Never
   * throws: every failure becomes the right JSON-RPC error. Resolves when the message has been
   * fully handled (for a listen request: once it is acknowledged).
   */
  receive(message: unknown, route?: RequestRoute): Promise<ReceiveOutcome>;
  /** What `initialize` and later requests established (a 2025 HTTP session restores it with `--state`). */
  readonly session: LegacySession;
  /**
   * Aborts the requests in flight (they get no response) and drops this connection's listeners.
   * `endTasks`: the owner is gone for good (a shared session's DELETE) even with `taskOwner`.
   */
  close(endTasks?: boolean): void;
  /**
   * A drain's last step (drain.ts): answers each request still in flight with `error`, then aborts
   * it; returns how many there were.
   */
  abandon(error: ProtocolError): number;
}

export interface Protocol {
  /** One per stdio connection, legacy HTTP session, or modern HTTP request. */
  connect(send: (message: object) => void, options?: ConnectOptions): Connection;
  /** After a hot reload: tell every listener that asked for these categories. */
  notifyListChanged(categories: ReadonlySet<ListCategory>, change?: CatalogChange): void;
  /** A resource's content changed (ignored when resourceUpdates is off). */
  notifyResourceUpdated(uri: string): void;
  /** A message from the server itself, to the 2025 connections whose log level lets it through. */
  notifyLog(level: LogLevel, data: unknown): void;
  /** Graceful shutdown: ends listen subscriptions with their final result, aborts nothing else. */
  close(): void;
  /** A drain's last step on every connection (Connection.abandon); returns how many were answered. */
  abandon(error: ProtocolError): number;
}
