/**
 * OpenTelemetry traces (`--otel`, or OTEL_EXPORTER_OTLP_ENDPOINT). This module and the SDK and OTLP
 * exporter it loads are imported only when traces are asked for, so a default start stays fast.
 * One span per HTTP request's message, named by method (and tool: `tools/call <tool>`), a child of
 * the W3C `traceparent` the request carried (the HTTP transport records that header with
 * `withTraceparent`, ops/hooks.ts); on stdio, a span per tool call. Below it, a client span per
 * backend call: a SQL statement (its text, never its values) or an HTTP
 * request, which sends the `traceparent` on to the upstream.
 */
import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Logger } from '../log.js';
import { currentTraceparent, installOpsHooks } from './hooks.js';

const DEFAULT_ENDPOINT = 'http://localhost:4318';

/** Starts the SDK with a batching OTLP/HTTP exporter; returns what flushes and stops it. */
export async function startTracing(endpoint: string | undefined, log: Logger): Promise<() => Promise<void>> {
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const base = (endpoint ?? DEFAULT_ENDPOINT).replace(/\/+$/, '');
  const url = base.endsWith('/v1/traces') ? base : `${base}/v1/traces`;
  const provider = new NodeTracerProvider({
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: 500 })],
  });
  // Registers the global tracer, the AsyncLocalStorage context manager and the W3C propagator.
  provider.register();
  const tracer = trace.getTracer('mcp-run');
  /** The request spans of `tools/call`, by tool: a call inside one reports on it, not a span of its own. */
  const requestSpans = new WeakMap<Span, string>();
  const incoming = () => {
    const carrier: Record<string, string> = {};
    const traceparent = currentTraceparent();
    if (traceparent) carrier.traceparent = traceparent;
    return propagation.extract(context.active(), carrier);
  };
  const uninstall = installOpsHooks({
    request(method, tool, run) {
      const parent = incoming();
      const span = tracer.startSpan(
        tool ? `${method} ${tool}` : method,
        {
          kind: SpanKind.SERVER,
          attributes: { 'mcp.method.name': method, ...(tool && { 'gen_ai.tool.name': tool }) },
        },
        parent,
      );
      if (tool) requestSpans.set(span, tool);
      return context.with(trace.setSpan(parent, span), run).finally(() => span.end());
    },
    toolCall(tool) {
      const current = trace.getActiveSpan();
      if (current && requestSpans.get(current) === tool) {
        requestSpans.delete(current);
        return {
          run: (fn) => fn(),
          end(outcome) {
            current.setAttribute('mcp_run.outcome', outcome);
            if (outcome !== 'ok' && outcome !== 'input_required')
              current.setStatus({ code: SpanStatusCode.ERROR });
          },
        };
      }
      // Outside an HTTP request (stdio): the call is its own span.
      const parent = incoming();
      const span = tracer.startSpan(
        `tools/call ${tool}`,
        { attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': tool } },
        parent,
      );
      const active = trace.setSpan(parent, span);
      return {
        run: (fn) => context.with(active, fn),
        end(outcome) {
          span.setAttribute('mcp_run.outcome', outcome);
          if (outcome !== 'ok' && outcome !== 'input_required')
            span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
    reload() {},
    traceId: () => trace.getActiveSpan()?.spanContext().traceId,
    backend(call, run) {
      const span = tracer.startSpan(call.name, { kind: SpanKind.CLIENT, attributes: { ...call.attributes } });
      const active = trace.setSpan(context.active(), span);
      const headers: Record<string, string> = {};
      if (call.system === 'http') propagation.inject(active, headers);
      return context
        .with(active, () => run(headers))
        .then(
          (result) => {
            span.end();
            return result;
          },
          (err: unknown) => {
            span.recordException(err as Error);
            span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
            span.end();
            throw err;
          },
        );
    },
  });
  log.info(`exporting traces to ${url}`);
  return async () => {
    uninstall();
    await provider.shutdown().catch((err: Error) => log.warn(`traces: ${err.message}`));
  };
}
