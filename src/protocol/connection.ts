/**
 * One client connection: parses and checks each inbound message, classifies it by era, dispatches
 * it through the method table, and delivers the response to the request's outlet. It also owns
 * the in-flight table (for `notifications/cancelled`), the legacy session state, and the 2025-era
 * server→client requests awaiting the client's answer (an inbound response goes to Outbound).
 */
import { servedView } from '../catalog/disclosure.js';
import type { AuditRecord } from '../governance/audit/trail.js';
import type { Logger } from '../log.js';
import { LiveMap } from '../util/live-set.js';
import { uniqueName } from '../util/unique.js';
import type { Connection, ConnectOptions, ReceiveOutcome, RequestRoute } from './api.js';
import { type Classification, classifyRequest } from './classify.js';
import { KEEP_OPEN, type MethodSpec } from './context.js';
import { unnamedErrorReply } from './downgrade.js';
import { describe, toProtocolError } from './error-mapping.js';
import type { LegacyListener } from './hub.js';
import {
  allFaults,
  ErrorCode,
  errorResponse,
  HttpStatus,
  invalidRequest,
  isObject,
  isRequestId,
  ProtocolError,
  type RequestId,
  resultResponse,
} from './jsonrpc.js';
import { Outbound } from './outbound.js';
import { RequestScope, type ScopeOwner } from './request-scope.js';
import { routingFaults } from './routing-headers.js';
import type { LegacySession, Outlet } from './session.js';
import type { ServerState } from './state.js';
import { BATCH_VERSION, type Era, isLegacyVersion, isModernVersion, MODERN_VERSIONS } from './versions.js';

const ACCEPTED: ReceiveOutcome = { kind: 'accepted', status: HttpStatus.Accepted };
const SILENT: ReceiveOutcome = { kind: 'silent', status: HttpStatus.Accepted };
const EMPTY_PARAMS: Readonly<Record<string, unknown>> = Object.freeze({});
/** How many early cancellations one stream remembers (the oldest is forgotten first). */
const EARLY_CANCELS = 256;

/** Where the responses of a batch are collected instead of being sent one by one. */
type Batch = object[];

export class ProtocolConnection implements Connection, ScopeOwner, LegacyListener {
  readonly session: LegacySession = {
    version: undefined,
    ready: false,
    logLevel: undefined,
    subscriptions: new Set(),
    clientCapabilities: {},
  };
  readonly outbound: Outbound;
  /** This connection as the owner of its tasks (taskOwner). */
  private readonly ownTasks: string;
  /** Whether this connection alone owns its tasks (they go when it closes). */
  private readonly ownsTasksAlone: boolean;
  /** A LiveMap, not a Map: a Map's churn kept every request's objects past the young generation. */
  private readonly inFlight = new LiveMap<RequestId, RequestScope>();
  /**
   * Ids a client cancelled on the standing stream (stdio) while no request of theirs was in
   * flight. The stdio transport starts requests one per turn of the event loop but hands a
   * notification on at once, so a `notifications/cancelled` read in the same chunk as its request
   * overtakes it (a client that gave up on `server/discover` during a slow start, then sent
   * `initialize`). MCP forbids reusing a request id within a session, so a request that then
   * arrives with one of these ids is one its client abandoned: it is dropped, never answered.
   * HTTP requests never consult it (a 2026 connection may be shared by several clients).
   */
  private readonly cancelledEarly = new Set<RequestId>();
  private readonly standing: Outlet;
  /** The toolsets this connection is served; the hub tells it only of their changes. */
  readonly toolsets: readonly string[] | undefined;
  private readonly log: Logger;
  private closed = false;

  constructor(
    readonly server: ServerState,
    send: (message: object) => void,
    options: ConnectOptions = {},
  ) {
    this.log = server.log;
    this.outbound = new Outbound(server.log, options.outboundIdPrefix);
    this.ownTasks = options.taskOwner ?? `connection:${uniqueName()}`;
    this.ownsTasksAlone = options.taskOwner === undefined;
    this.toolsets = options.toolsets;
    const emit = (message: object): void => {
      if (this.closed) return;
      try {
        send(message);
      } catch (err) {
        this.log.error(`protocol: the transport failed to send a message: ${describe(err)}`);
      }
    };
    this.standing = { notify: emit, respond: emit };
    if (options.legacyVersion !== undefined && isLegacyVersion(options.legacyVersion)) {
      this.session.version = options.legacyVersion;
      this.session.ready = true;
    }
    server.hub.addConnection(this);
  }

  /** The standing channel, for the hub's unsolicited notifications. */
  notify(message: object): void {
    this.standing.notify(message);
  }

  async receive(message: unknown, route?: RequestRoute): Promise<ReceiveOutcome> {
    if (this.closed) return SILENT;
    const outlet = route ?? this.standing;
    let parsed = message;
    if (typeof message === 'string') {
      try {
        parsed = JSON.parse(message);
      } catch {
        const error = new ProtocolError(ErrorCode.ParseError, 'Parse error: the message is not valid JSON');
        const reply = unnamedErrorReply(errorResponse(null, error), this.versionFor(route, undefined));
        return this.deliver(outlet, reply, HttpStatus.BadRequest, undefined, undefined);
      }
    }
    try {
      return Array.isArray(parsed)
        ? await this.receiveBatch(parsed, outlet, route)
        : await this.handle(parsed, outlet, route, undefined);
    } catch (err) {
      // handle() turns every handler failure into a response; getting here is a bug in the core.
      this.log.error(`protocol: unexpected failure: ${describe(err)}`);
      return SILENT;
    }
  }

  close(endTasks = false): void {
    if (this.closed) return;
    this.closed = true;
    this.server.hub.removeConnection(this);
    this.server.follows.dropAll(this.session);
    const scopes = this.inFlight.values();
    this.inFlight.clear();
    for (const scope of scopes) scope.abort(new Error('connection closed'));
    this.outbound.closeAll();
    // The session or stdio connection that owned these tasks is gone: nobody can read them now.
    if (this.ownsTasksAlone || endTasks) void this.server.tasks.dropOwner(this.ownTasks).catch(() => {});
  }

  /**
   * The last step of a drain (drain.ts): every request still in flight is answered with `error`
   * (its client hears that it was stopped, instead of an end of stream with no answer), then its
   * work is aborted. A listen that stays open is left to `Protocol.close`, which ends it with its
   * final result. Returns how many were answered.
   */
  abandon(error: ProtocolError): number {
    let answered = 0;
    for (const scope of this.inFlight.values()) {
      if (!scope.live || scope.method === 'subscriptions/listen') continue;
      scope.end();
      scope.abort(error);
      this.deliver(scope.outlet, errorResponse(scope.id, error), HttpStatus.Ok, undefined, scope.era);
      answered++;
    }
    return answered;
  }

  release(id: RequestId, scope: RequestScope): void {
    if (this.inFlight.get(id) === scope) this.inFlight.delete(id);
  }

  private async receiveBatch(
    batch: unknown[],
    outlet: Outlet,
    route: RequestRoute | undefined,
  ): Promise<ReceiveOutcome> {
    if (this.session.version !== BATCH_VERSION) {
      const error = invalidRequest(
        `JSON-RPC batches are accepted only on a connection initialized with ${BATCH_VERSION}`,
      );
      return this.reject(outlet, null, error, undefined, undefined);
    }
    if (batch.length === 0)
      return this.reject(outlet, null, invalidRequest('empty JSON-RPC batch'), undefined, 'legacy');
    const responses: Batch = [];
    await Promise.all(batch.map((message) => this.handle(message, outlet, route, responses)));
    if (responses.length === 0) return { kind: 'accepted', status: HttpStatus.Accepted, era: 'legacy' };
    return this.deliver(outlet, responses, HttpStatus.Ok, undefined, 'legacy');
  }

  private handle(
    message: unknown,
    outlet: Outlet,
    route: RequestRoute | undefined,
    batch: Batch | undefined,
  ): ReceiveOutcome | Promise<ReceiveOutcome> {
    if (!isObject(message)) {
      return this.reject(
        outlet,
        null,
        invalidRequest('a JSON-RPC message must be an object'),
        batch,
        undefined,
      );
    }
    const { id, method } = message;
    const echoId = isRequestId(id) ? id : null;
    if (method === undefined) {
      if ('result' in message || 'error' in message) {
        // The answer to one of our server→client requests (elicitation, sampling, roots).
        this.outbound.settle(message);
        return ACCEPTED;
      }
      return this.reject(
        outlet,
        echoId,
        invalidRequest('a JSON-RPC request needs "method"'),
        batch,
        undefined,
      );
    }
    if (message.jsonrpc !== '2.0') {
      return this.reject(outlet, echoId, invalidRequest('"jsonrpc" must be "2.0"'), batch, undefined);
    }
    if (typeof method !== 'string') {
      return this.reject(outlet, echoId, invalidRequest('"method" must be a string'), batch, undefined);
    }
    if (id === undefined) {
      this.onNotification(method, message.params, route === undefined);
      return ACCEPTED;
    }
    if (echoId === null) {
      const why =
        id === null ? 'a request "id" must not be null' : 'a request "id" must be a string or an integer';
      return this.reject(outlet, null, invalidRequest(why), batch, undefined);
    }
    const params = message.params === undefined ? EMPTY_PARAMS : message.params;
    if (!isObject(params)) {
      const error = new ProtocolError(
        ErrorCode.InvalidParams,
        '"params" must be an object',
        undefined,
        HttpStatus.BadRequest,
      );
      return this.reject(outlet, echoId, error, batch, undefined);
    }
    const classified = classifyRequest(
      method,
      params,
      this.session,
      route?.protocolVersion,
      batch !== undefined,
    );
    // Over HTTP, a 2026 request's routing headers are checked too, and every fault is named in one
    // error: an envelope fault first, then each header that disagrees with the body.
    const header = route?.header;
    const routing = (spec: MethodSpec | undefined): ProtocolError[] => {
      if (header === undefined || spec === undefined) return [];
      const view = servedView(this.server.ref.current, route?.toolsets ?? this.toolsets);
      const toolSchema = (name: string) =>
        (view.tools.get(name) ?? view.callable?.get(name))?.descriptor.inputSchema;
      return routingFaults(method, spec, params, header, toolSchema);
    };
    if (!classified.ok) {
      const error = allFaults([classified.error, ...routing(classified.spec)]);
      return this.reject(outlet, echoId, error, batch, classified.era);
    }
    if (classified.era === 'modern') {
      const [fault, ...more] = routing(classified.spec);
      if (fault !== undefined)
        return this.reject(outlet, echoId, allFaults([fault, ...more]), batch, 'modern');
    }
    return this.run(classified, echoId, method, params, outlet, route, batch);
  }

  private async run(
    classified: Classification & { ok: true },
    id: RequestId,
    method: string,
    params: Record<string, unknown>,
    outlet: Outlet,
    route: RequestRoute | undefined,
    batch: Batch | undefined,
  ): Promise<ReceiveOutcome> {
    const { era, spec } = classified;
    if (route === undefined && this.cancelledEarly.delete(id)) {
      this.log.debug(
        `protocol: ${method} ${JSON.stringify(id)} was cancelled before it started; not answered`,
      );
      return SILENT;
    }
    if (this.inFlight.has(id)) {
      const error = invalidRequest(`request id ${JSON.stringify(id)} is already used by a request in flight`);
      return this.reject(outlet, id, error, batch, era);
    }
    if (route?.signal?.aborted) return SILENT;
    const scope = new RequestScope(this, id, method, params, era, classified.envelope, outlet, {
      access: route?.access,
      identity: route?.identity,
      taskOwner: this.taskOwner(route, era, route?.toolsets ?? this.toolsets),
      toolsets: route?.toolsets ?? this.toolsets,
      client: route?.client,
    });
    this.inFlight.set(id, scope);
    if (route?.signal !== undefined) scope.cleanup = linkAbort(route.signal, () => this.cancel(id));
    // The one place every call, read and get passes with its result or error: its audit record.
    const audit = this.server.audit?.begin({
      method,
      params,
      identity: route?.identity,
      label: route?.caller,
      toolsets: route?.toolsets ?? this.toolsets,
    });
    let keepOpen = false;
    try {
      const result = await (audit === undefined ? spec.handle(scope) : audited(spec, scope, audit));
      if (result === KEEP_OPEN) {
        keepOpen = scope.live;
        return keepOpen ? { kind: 'subscribed', status: HttpStatus.Ok, era } : SILENT;
      }
      if (!scope.live) {
        audit?.end({ outcome: 'cancelled', bytes: 0 });
        return SILENT;
      }
      scope.end();
      const response = resultResponse(id, scope.decorate(result, spec.cacheable));
      audit?.end({ outcome: resultOutcome(result), bytes: byteSize(response) });
      return this.deliver(outlet, response, HttpStatus.Ok, batch, era);
    } catch (err) {
      if (!scope.live) {
        audit?.end({ outcome: 'cancelled', thrown: err, bytes: 0 });
        return SILENT;
      }
      scope.end();
      const error = toProtocolError(err, era, method, this.log);
      if (audit !== undefined) {
        const bytes = byteSize(errorResponse(id, error));
        audit.end({ outcome: 'error', code: error.code, thrown: err, bytes });
      }
      return this.reject(outlet, id, error, batch, era);
    } finally {
      if (!keepOpen) scope.end();
    }
  }

  /**
   * Whose tasks a request sees: the authenticated caller; else this connection (stdio, a 2025
   * session: another session's ids are unknown to it); else, for 2026 HTTP without auth where every
   * request is on its own, one shared owner whose tasks only their unguessable ids open. A caller's
   * or the shared owner's tasks are also bound to the toolsets they were started on: the same token
   * on /mcp/support must not read a task of /mcp/billing, whose scopes it may lack.
   */
  private taskOwner(
    route: RequestRoute | undefined,
    era: Era,
    toolsets: readonly string[] | undefined,
  ): string {
    const on = toolsets === undefined ? '' : ` toolsets:${JSON.stringify(toolsets)}`;
    // Quoted: a label may hold any text (an OAuth subject), which must not read as a toolset suffix.
    if (route?.caller !== undefined) return `caller:${JSON.stringify(route.caller)}${on}`;
    if (era === 'legacy' || route === undefined) return this.ownTasks;
    return `anonymous${on}`;
  }

  private onNotification(method: string, params: unknown, standing: boolean): void {
    if (method === 'notifications/cancelled') {
      const requestId = isObject(params) ? params.requestId : undefined;
      if (!isRequestId(requestId)) return;
      if (this.cancel(requestId) || !standing) return;
      this.cancelledEarly.add(requestId);
      if (this.cancelledEarly.size > EARLY_CANCELS)
        this.cancelledEarly.delete(this.cancelledEarly.values().next().value as RequestId);
    } else if (method === 'notifications/initialized') {
      if (this.session.version !== undefined) this.session.ready = true;
    } else {
      this.log.debug(`protocol: ignored notification ${method}`);
    }
  }

  /** False for an id not in flight (not started, or finished: cancellation races are normal). */
  private cancel(id: RequestId): boolean {
    const scope = this.inFlight.get(id);
    if (scope === undefined) return false;
    this.inFlight.delete(id);
    scope.abort(new Error('cancelled by the client'));
    return true;
  }

  private reject(
    outlet: Outlet,
    id: RequestId | null,
    error: ProtocolError,
    batch: Batch | undefined,
    era: Era | undefined,
  ): ReceiveOutcome {
    const reply =
      id === null
        ? unnamedErrorReply(errorResponse(null, error), this.versionFor(undefined, era))
        : errorResponse(id, error);
    return this.deliver(outlet, reply, error.httpStatus, batch, era);
  }

  /** The version an error reply answers to: the request's era, else the route's header, else the session's. */
  private versionFor(route: RequestRoute | undefined, era: Era | undefined): string | undefined {
    if (era === 'modern') return MODERN_VERSIONS[0];
    const header = route?.protocolVersion;
    if (header !== undefined && isModernVersion(header)) return header;
    return this.session.version ?? header;
  }

  private deliver(
    outlet: Outlet,
    response: object,
    status: number,
    batch: Batch | undefined,
    era: Era | undefined,
  ): ReceiveOutcome {
    if (batch !== undefined) batch.push(response);
    else {
      try {
        outlet.respond(response, status);
      } catch (err) {
        this.log.error(`protocol: the transport failed to send a response: ${describe(err)}`);
      }
    }
    return era === undefined ? { kind: 'answered', status } : { kind: 'answered', status, era };
  }
}

/** Forwards a transport's abort to the request; returns the unlink for when the request ends. */
function linkAbort(signal: AbortSignal, onAbort: () => void): () => void {
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}

/** Runs an audited request: once the trail admits it (it may wait, or be refused), with its note. */
async function audited(
  spec: MethodSpec,
  scope: RequestScope,
  audit: AuditRecord,
): Promise<object | typeof KEEP_OPEN> {
  const wait = audit.admit();
  if (wait !== undefined) await wait;
  return audit.run(async () => spec.handle(scope));
}

/** How a request that answered with a result ended, for its audit record. */
function resultOutcome(result: object): 'ok' | 'tool_error' | 'input_required' {
  const r = result as { isError?: unknown; resultType?: unknown };
  if (r.resultType === 'input_required') return 'input_required';
  return r.isError === true ? 'tool_error' : 'ok';
}

function byteSize(response: object): number {
  return Buffer.byteLength(JSON.stringify(response));
}
