/**
 * The small interface the catalog reports through for metrics and traces. It imports no library: the
 * catalog calls these hooks, and `mcp-run --metrics` / `--otel` install real ones (ops/metrics.ts,
 * ops/tracing.ts) at start-up. Without them every hook is a no-op, so a default start pays nothing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** How a tool call ended; a bounded set, used as a metric label. */
export type CallOutcome = 'ok' | 'tool_error' | 'protocol_error' | 'refused' | 'input_required';

/** One tool call in progress; `end` is called exactly once. */
export interface CallObservation {
  /** Runs the call itself, e.g. with a trace span active so backend calls become its children. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  end(outcome: CallOutcome): void;
}

/**
 * One call to a backend through a source: a SQL statement (its text, never its values), an HTTP
 * request, a request to an upstream MCP server (its method and entry name, never its arguments).
 */
export interface BackendCall {
  readonly system: 'sql' | 'http' | 'mcp';
  /** The source's name in the manifest. */
  readonly source: string;
  /** A short span name: `SELECT mem`, `GET api`. */
  readonly name: string;
  readonly attributes: Readonly<Record<string, string | number>>;
}

/** Runs a backend call; `headers` are to be sent with it (a `traceparent`), when it has headers. */
export type BackendRun<T> = (headers: Readonly<Record<string, string>>) => Promise<T>;

export interface OpsHooks {
  /** A tool call starts (after argument validation fails or not: every call the protocol routed). */
  toolCall(tool: string): CallObservation;
  /** A reload of the manifest finished. */
  reload(outcome: 'ok' | 'failed'): void;
  /**
   * Wraps the serving of one HTTP request's JSON-RPC message (tracing: its span, named by method and,
   * for `tools/call`, tool). `method` is a well-formed method name or `unknown`.
   */
  request?<T>(method: string, tool: string | undefined, run: () => Promise<T>): Promise<T>;
  /** Wraps one backend call (tracing makes it a child span and adds its `traceparent`). */
  backend?<T>(call: BackendCall, run: BackendRun<T>): Promise<T>;
  /** A limit per caller refused a call or an HTTP request; `rule` as the manifest writes it (governance/limits/). */
  limitRefused?(rule: string): void;
  /** The audit trail could not keep up: a request waited (`block`) or was refused (`refuse`). */
  auditPressure?(choice: 'block' | 'refuse'): void;
  /** A write to the audit trail's sink failed (it is tried again; nothing is dropped). */
  auditSinkError?(sink: 'file' | 'stderr' | 'otel'): void;
  /** The id of the trace the current request belongs to, when one is active (tracing). */
  traceId?(): string | undefined;
}

/** A call observed by nobody: runs it as it is. */
export const NO_CALL: CallObservation = { run: (fn) => fn(), end() {} };

const hooks: OpsHooks[] = [];

/** Whether any installed hooks wrap requests: without one, naming a request for them is wasted work. */
export function observesRequests(): boolean {
  return hooks.some((h) => h.request !== undefined);
}

/** Adds a set of hooks (metrics, tracing); each gets every event. */
export function installOpsHooks(h: OpsHooks): () => void {
  hooks.push(h);
  return () => {
    const i = hooks.indexOf(h);
    if (i !== -1) hooks.splice(i, 1);
  };
}

export const ops: Required<OpsHooks> = {
  toolCall(tool) {
    if (hooks.length === 0) return NO_CALL;
    const observations = hooks.map((h) => h.toolCall(tool));
    let ended = false;
    return {
      run: (fn) => observations.reduceRight<typeof fn>((inner, o) => () => o.run(inner), fn)(),
      end(outcome) {
        if (ended) return;
        ended = true;
        for (const o of observations) o.end(outcome);
      },
    };
  },
  reload(outcome) {
    for (const h of hooks) h.reload(outcome);
  },
  request<T>(method: string, tool: string | undefined, run: () => Promise<T>): Promise<T> {
    let wrapped = run;
    for (const h of hooks) {
      const inner = wrapped;
      if (h.request) wrapped = () => h.request!(method, tool, inner);
    }
    return wrapped();
  },
  limitRefused(rule) {
    for (const h of hooks) h.limitRefused?.(rule);
  },
  backend<T>(call: BackendCall, run: BackendRun<T>): Promise<T> {
    let wrapped: BackendRun<T> = run;
    for (const h of hooks) {
      const inner = wrapped;
      if (h.backend) wrapped = (headers) => h.backend!(call, (more) => inner({ ...headers, ...more }));
    }
    return wrapped({});
  },
  auditPressure(choice) {
    for (const h of hooks) h.auditPressure?.(choice);
  },
  auditSinkError(sink) {
    for (const h of hooks) h.auditSinkError?.(sink);
  },
  traceId() {
    for (const h of hooks) {
      const id = h.traceId?.();
      if (id !== undefined) return id;
    }
    return undefined;
  },
};

// The W3C trace context of the HTTP request being served, recorded by the transport, read by
// tracing (ops/tracing.ts). Kept here, dependency-free, so the transport never loads OpenTelemetry.
const traceScope = new AsyncLocalStorage<string>();

/** Runs `fn` with the request's `traceparent` header (if any) as the parent of its spans. */
export function withTraceparent<T>(traceparent: string | undefined, fn: () => T): T {
  return traceparent === undefined ? fn() : traceScope.run(traceparent, fn);
}

export function currentTraceparent(): string | undefined {
  return traceScope.getStore();
}

/** The method and tool a JSON-RPC message names, shaped for a span name (bounded, no odd text). */
export function describeMessage(message: unknown): { method: string; tool: string | undefined } {
  const m = (typeof message === 'object' && message !== null ? message : {}) as {
    method?: unknown;
    params?: { name?: unknown };
  };
  const method = typeof m.method === 'string' && /^[\w/.$-]{1,64}$/.test(m.method) ? m.method : 'unknown';
  const name = method === 'tools/call' ? m.params?.name : undefined;
  const tool = typeof name === 'string' && /^[\w.-]{1,128}$/.test(name) ? name : undefined;
  return { method, tool };
}
