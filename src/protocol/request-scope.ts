/**
 * One request in flight: the catalog it started on, its params and era, its AbortSignal, and the
 * gates on what it may emit. It is also the CallContext handed to tools, so progress and logs are
 * checked here, once, against the rules: progress only with a token and strictly increasing; logs
 * only at or above the level the client asked for; nothing at all after the response or a cancel.
 */
import { servedView } from '../catalog/disclosure.js';
import { hiddenFrom } from '../catalog/policy.js';
import type { CallContext, CallerIdentity, Catalog, LogLevel } from '../catalog/types.js';
import { CallAbort, type CallSignal } from '../util/call-signal.js';
import { downgradeOutgoing, downgradeResult } from './downgrade.js';
import type { Envelope } from './envelope.js';
import { HttpStatus, notification, type RequestId, resultResponse } from './jsonrpc.js';
import { passes } from './log-levels.js';
import type { Outbound } from './outbound.js';
import type { Access } from './pagination.js';
import { modernResult } from './results.js';
import type { LegacySession, Outlet } from './session.js';
import type { ServerState } from './state.js';
import type { Era } from './versions.js';

/** The connection side of a scope: shared state, and how an ended request leaves the in-flight table. */
export interface ScopeOwner {
  readonly server: ServerState;
  readonly session: LegacySession;
  /** The connection's server→client requests (2025 era). */
  readonly outbound: Outbound;
  release(id: RequestId, scope: RequestScope): void;
  /** The connection's standing channel (2025 task progress, logs and status outlive their request). */
  notify(message: object): void;
}

type ProgressToken = string | number;

/** Who the request comes from, as the transport's route says. */
export interface Caller {
  /** What the caller may see in lists (the route's Access); undefined: everything. */
  readonly access?: Access | undefined;
  /** The verified caller (OAuth); undefined: no identity. */
  readonly identity?: CallerIdentity | undefined;
  /** Who owns the tasks this request starts or reads (connection.ts `taskOwner`). */
  readonly taskOwner?: string;
  /** The toolsets the request is served (catalog/toolsets.ts); undefined: the default endpoint's. */
  readonly toolsets?: readonly string[] | undefined;
  /** Whom the limits per caller count the request against (RequestRoute.client); undefined: one caller. */
  readonly client?: string | undefined;
}

export class RequestScope implements CallContext {
  /** Read once: a reload during this request does not change what it sees. Its toolsets' view. */
  readonly catalog: Catalog;
  /** The catalog itself, counted as in use until the request ends. */
  private readonly acquired: Catalog;
  /** Run when the request ends (unlinks the transport's abort signal). */
  cleanup: (() => void) | undefined = undefined;
  private ended = false;
  /** Made when something first reads `signal`: most requests end without anyone listening. */
  private controller: AbortController | undefined = undefined;
  private callAbort: CallAbort | undefined = undefined;
  private abortedWith: { readonly reason: unknown } | undefined = undefined;
  private lastProgress = Number.NEGATIVE_INFINITY;
  private readonly progressToken: ProgressToken | undefined;

  constructor(
    private readonly owner: ScopeOwner,
    readonly id: RequestId,
    readonly method: string,
    readonly params: Record<string, unknown>,
    readonly era: Era,
    /** Present exactly when era is 'modern'. */
    readonly envelope: Envelope | undefined,
    readonly outlet: Outlet,
    private readonly caller: Caller = {},
  ) {
    this.acquired = owner.server.ref.acquire();
    this.catalog = servedView(this.acquired, caller.toolsets);
    const token = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
    this.progressToken = typeof token === 'string' || typeof token === 'number' ? token : undefined;
  }

  /** Aborted when the request is cancelled or its connection closes. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.abortedWith !== undefined) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }

  /**
   * The same cancellation for the tool call's context (tools.ts), made on first read: SQL and HTTP
   * tools all read it, and a CallAbort costs a tenth of an AbortController.
   */
  get callSignal(): CallSignal {
    if (this.callAbort === undefined) {
      this.callAbort = new CallAbort();
      if (this.abortedWith !== undefined) this.callAbort.abort(this.abortedWith.reason);
    }
    return this.callAbort;
  }

  /** True once cancelled (or its connection closed); reading it makes no AbortSignal. */
  get aborted(): boolean {
    return this.abortedWith !== undefined;
  }

  /** Cancels the request: its signals (those anyone made) abort with `reason`. Idempotent. */
  abort(reason: unknown): void {
    if (this.abortedWith !== undefined) return;
    this.abortedWith = { reason };
    this.controller?.abort(reason);
    this.callAbort?.abort(reason);
  }

  /**
   * What the caller may see in lists: what its scopes allow (the route's Access), less what the
   * catalog's policies refuse it by its claims alone (catalog/policy.ts); undefined: everything.
   */
  get access(): Access | undefined {
    const scoped = this.caller.access;
    const hidden = hiddenFrom(this.catalog, this.caller.identity);
    if (hidden === undefined) return scoped;
    return {
      allows: (kind, key) => !hidden(kind, key) && (scoped === undefined || scoped.allows(kind, key)),
    };
  }

  /** The verified caller, for tool calls; undefined without an OAuth access token. */
  get identity(): CallerIdentity | undefined {
    return this.caller.identity;
  }

  /** The toolsets the request is served; undefined: the default endpoint's. */
  get toolsets(): readonly string[] | undefined {
    return this.caller.toolsets;
  }

  /** Whom the limits per caller count the request against; undefined: one caller (stdio). */
  get client(): string | undefined {
    return this.caller.client;
  }

  /** The owner of the tasks this request starts or reads. */
  get taskOwner(): string {
    return this.caller.taskOwner ?? '';
  }

  get server(): ServerState {
    return this.owner.server;
  }

  get outbound(): Outbound {
    return this.owner.outbound;
  }

  /** Sends on the connection's standing channel, outside this request. */
  standing(message: object): void {
    this.owner.notify(message);
  }

  /** Legacy connection state. Modern handlers must not read it: 2026 requests are stateless. */
  get session(): LegacySession {
    return this.owner.session;
  }

  /** False once the request answered or was cancelled: nothing more may be sent for it. */
  get live(): boolean {
    return !this.ended && this.abortedWith === undefined;
  }

  // Arrow properties, so a kind may pass `ctx.progress` / `ctx.log` around detached.
  readonly progress = (progress: number, total?: number, message?: string): void => {
    if (this.progressToken === undefined || !this.live) return;
    if (!(progress > this.lastProgress) || !Number.isFinite(progress)) return;
    this.lastProgress = progress;
    const params: Record<string, unknown> = { progressToken: this.progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    const version = this.era === 'legacy' ? this.owner.session.version : undefined;
    this.outlet.notify(
      notification('notifications/progress', downgradeOutgoing('notifications/progress', params, version)),
    );
  };

  readonly log = (level: LogLevel, data: unknown, logger?: string): void => {
    const threshold = this.envelope !== undefined ? this.envelope.logLevel : this.owner.session.logLevel;
    if (threshold === undefined || !passes(level, threshold) || !this.live) return;
    const params = logger === undefined ? { level, data } : { level, logger, data };
    this.outlet.notify(notification('notifications/message', params));
  };

  /** The result as this request's era shows it. */
  decorate(result: object, cacheable: boolean | undefined): object {
    if (this.era === 'legacy') return downgradeResult(this.method, result, this.owner.session.version);
    return modernResult(result, this.catalog, cacheable ? this.owner.server.ttlMs : undefined);
  }

  /** Marks the request finished and takes it out of the in-flight table. Idempotent. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.owner.server.ref.release(this.acquired);
    this.owner.release(this.id, this);
    this.cleanup?.();
  }

  /** Answers a request that stayed open (a listen ending gracefully). No-op once ended or cancelled. */
  finish(result: object): void {
    if (!this.live) return;
    this.end();
    this.outlet.respond(resultResponse(this.id, this.decorate(result, false)), HttpStatus.Ok);
  }
}
