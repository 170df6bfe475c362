/**
 * The audit trail's OpenTelemetry sink (`sink: otel`): each sealed line becomes one OTLP log
 * record, its body the line itself (so the chain can be verified from the collector's copy),
 * its attributes the record's main fields. The logs SDK and OTLP/HTTP exporter are imported only
 * when a manifest names this sink (trail.ts loads this module lazily).
 *
 * No batch processor of the SDK sits in between: its queue drops records when full. The writer's
 * queue (writer.ts) is the batch queue instead, with the trail's `buffer` budget and
 * `onBackpressure`; a chunk the writer hands over is exported whole or fails whole, and a failed
 * export stays queued and is tried again, as a failed write to the file is.
 */
import type { Logger as OtelLogger } from '@opentelemetry/api-logs';
import type { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import type { LoggerProvider, ReadableLogRecord, SdkLogRecord } from '@opentelemetry/sdk-logs';
import type { AuditSink } from './sinks.js';

const DEFAULT_ENDPOINT = 'http://localhost:4318';
/** Bytes of lines in one export request (a single longer line is sent alone). */
const EXPORT_BYTES = 1024 * 1024;
/** How long one export, the exporter's own retries included, may take before it counts as failed. */
const EXPORT_TIMEOUT_MS = 10_000;

/** OpenTelemetry severity numbers (api-logs SeverityNumber; the enum is not loaded eagerly). */
const SEVERITY = { INFO: 9, WARN: 13, ERROR: 17 } as const;

/**
 * The logs URL: the manifest's `endpoint` (a base, `/v1/logs` added as for --otel), else
 * OTEL_EXPORTER_OTLP_LOGS_ENDPOINT as it is, else OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/logs`, else
 * the local collector.
 */
export function logsUrl(endpoint: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const signal = env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT;
  if (endpoint === undefined && signal) return signal;
  const base = (endpoint ?? (env.OTEL_EXPORTER_OTLP_ENDPOINT || DEFAULT_ENDPOINT)).replace(/\/+$/, '');
  return base.endsWith('/v1/logs') ? base : `${base}/v1/logs`;
}

/** The fields of a sealed line the attributes are made of (record.ts, writer.ts `meta`). */
interface Line {
  type?: unknown;
  writer?: unknown;
  seq?: unknown;
  time?: unknown;
  method?: unknown;
  entry?: unknown;
  caller?: { subject?: unknown; client?: unknown; label?: unknown; issuer?: unknown };
  decision?: unknown;
  rule?: unknown;
  outcome?: unknown;
  code?: unknown;
  durationMs?: unknown;
  bytes?: unknown;
  traceId?: unknown;
  requestId?: unknown;
}

/** The attribute names, one per field (docs/governance.md#audit-trail). */
const ATTRIBUTES: readonly (readonly [string, (line: Line) => unknown])[] = [
  ['mcp_run.audit.type', (l) => l.type],
  ['mcp_run.audit.writer', (l) => l.writer],
  ['mcp_run.audit.seq', (l) => l.seq],
  ['mcp.method.name', (l) => l.method],
  ['mcp_run.audit.entry', (l) => l.entry],
  ['mcp_run.audit.caller.subject', (l) => l.caller?.subject],
  ['mcp_run.audit.caller.client', (l) => l.caller?.client],
  ['mcp_run.audit.caller.label', (l) => l.caller?.label],
  ['mcp_run.audit.caller.issuer', (l) => l.caller?.issuer],
  ['mcp_run.audit.decision', (l) => l.decision],
  ['mcp_run.audit.rule', (l) => l.rule],
  ['mcp_run.audit.outcome', (l) => l.outcome],
  ['mcp_run.audit.code', (l) => l.code],
  ['mcp_run.audit.duration_ms', (l) => l.durationMs],
  ['mcp_run.audit.bytes', (l) => l.bytes],
  ['mcp_run.audit.request_id', (l) => l.requestId],
];

function attributesOf(line: Line): Record<string, string | number> {
  const attributes: Record<string, string | number> = {};
  for (const [name, pick] of ATTRIBUTES) {
    const value = pick(line);
    if (typeof value === 'string' || typeof value === 'number') attributes[name] = value;
  }
  return attributes;
}

/**
 * WARN for a request a policy or limit refused (its outcome is an error too, but the server did
 * what it was told) and for a backpressure episode; ERROR for any other request that failed.
 */
function severityOf(line: Line): keyof typeof SEVERITY {
  if (line.decision === 'deny' || line.decision === 'limit' || line.type === 'backpressure') return 'WARN';
  if (line.outcome === 'error') return 'ERROR';
  return 'INFO';
}

/** The record's own time (when the request started), else now. */
function timeOf(line: Line): number {
  const ms = typeof line.time === 'string' ? Date.parse(line.time) : Number.NaN;
  return Number.isNaN(ms) ? Date.now() : ms;
}

export class OtelSink implements AuditSink {
  readonly kind = 'otel';
  readonly remote = true;
  readonly where: string;
  private provider: LoggerProvider | undefined = undefined;
  private logger: OtelLogger | undefined = undefined;
  private exporter: OTLPLogExporter | undefined = undefined;
  /** What the logger emitted for the chunk being made (a processor of our own collects it). */
  private emitted: SdkLogRecord[] = [];

  constructor(private readonly url: string) {
    // For messages and the `start` record: no credentials a URL may carry.
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    this.where = parsed === undefined ? 'the OTLP logs endpoint' : `${parsed.origin}${parsed.pathname}`;
  }

  async open(): Promise<undefined> {
    const [{ LoggerProvider }, { OTLPLogExporter }] = await Promise.all([
      import('@opentelemetry/sdk-logs'),
      import('@opentelemetry/exporter-logs-otlp-http'),
    ]);
    this.exporter = new OTLPLogExporter({ url: this.url, timeoutMillis: EXPORT_TIMEOUT_MS });
    const emitted = this.emitted;
    this.provider = new LoggerProvider({
      processors: [
        {
          onEmit: (record: SdkLogRecord) => void emitted.push(record),
          forceFlush: async () => {},
          shutdown: async () => {},
        },
      ],
    });
    this.logger = this.provider.getLogger('mcp-run.audit');
    // The collector holds no earlier line to chain to: each start begins where its `writer` says.
    return undefined;
  }

  /** Exports the chunk's lines as one request; resolves once the collector took them all. */
  write(chunk: string): Promise<void> {
    const { logger, exporter } = this;
    if (logger === undefined || exporter === undefined)
      return Promise.reject(new Error('the OTLP logs sink is not open'));
    const records = chunk
      .split('\n')
      .filter((text) => text !== '')
      .map((text) => this.toRecord(logger, text));
    return new Promise((resolve, reject) => {
      exporter.export(records, (result) => {
        // ExportResultCode.SUCCESS is 0 (@opentelemetry/core, not imported for one constant).
        if (result.code === 0) resolve();
        else reject(result.error ?? new Error('the export failed'));
      });
    });
  }

  /** One sealed line as a log record: emitted through the SDK (resource, scope, limits), then taken back. */
  private toRecord(logger: OtelLogger, text: string): ReadableLogRecord {
    const line = JSON.parse(text) as Line;
    const severity = severityOf(line);
    logger.emit({
      eventName: 'mcp_run.audit',
      timestamp: timeOf(line),
      severityNumber: SEVERITY[severity],
      severityText: severity,
      body: text,
      attributes: attributesOf(line),
    });
    const record = this.emitted.splice(0).at(-1);
    if (record === undefined) throw new Error('the logs SDK emitted no record');
    const traceId = typeof line.traceId === 'string' ? line.traceId : undefined;
    return {
      hrTime: record.hrTime,
      hrTimeObserved: record.hrTimeObserved,
      severityNumber: record.severityNumber,
      severityText: record.severityText,
      body: record.body,
      eventName: record.eventName,
      resource: record.resource,
      instrumentationScope: record.instrumentationScope,
      attributes: record.attributes,
      droppedAttributesCount: record.droppedAttributesCount,
      // The record knows its trace, not its span: the SDK's context would drop a span-less one.
      ...(traceId !== undefined && { spanContext: { traceId, spanId: '', traceFlags: 0 } }),
    };
  }

  /** No rotation: a chunk is at most one export request's worth of lines. */
  room(): number {
    return EXPORT_BYTES;
  }

  /** Always: a line longer than an export request is still sent, alone. */
  fresh(): boolean {
    return true;
  }

  async rotate(): Promise<string> {
    return this.where;
  }

  async close(): Promise<void> {
    await this.exporter?.shutdown();
    await this.provider?.shutdown();
  }
}
