/**
 * The audit trail as the protocol core sees it: `begin` a record when an audited request starts
 * (undefined for a method not audited), let it `admit` the request (backpressure), `run` it with
 * its note, and `end` it with what came of it. One record per request, written by one writer.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { CallerIdentity } from '../../kinds/contract/types.js';
import { currentLogFields, type Logger } from '../../log.js';
import type { ServerAuditSection } from '../../manifest/types.js';
import { currentTraceparent, ops } from '../../ops/hooks.js';
import { GovernanceRefusal } from '../refusal.js';
import { type AuditNote, withAuditNote } from './note.js';
import {
  type AuditCaller,
  type AuditDecision,
  type AuditOutcome,
  encodeRecord,
  redactArguments,
} from './record.js';
import { type AuditSink, FileSink, StderrSink } from './sinks.js';
import { AuditBackpressure, AuditWriter, type AuditWriting, type BackpressureChoice } from './writer.js';

/** Audited unless the manifest's `include` says otherwise. */
const DEFAULT_AUDITED = ['tools/call', 'resources/read', 'prompts/get'] as const;
const DEFAULTS = { rotate: '10MB', keep: 10, buffer: '4MB' } as const;
/** An entry name or URI longer than this is cut in the record (it comes from the caller). */
const MAX_ENTRY_CHARS = 1024;

/** What the core knows of a request when it starts. */
export interface AuditRequest {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly identity?: CallerIdentity | undefined;
  /** The transport's caller label (a static token's, an OAuth principal). */
  readonly label?: string | undefined;
  readonly toolsets?: readonly string[] | undefined;
}

/** How a request ended, as the core saw it. */
export interface AuditEnd {
  readonly outcome: AuditOutcome;
  /** The JSON-RPC error code, for `error`. */
  readonly code?: number;
  /** What the handler threw, if anything (a GovernanceRefusal gives the decision). */
  readonly thrown?: unknown;
  /** Size of the response sent, in bytes. */
  readonly bytes: number;
}

export class AuditTrail {
  private readonly audited: ReadonlySet<string>;

  constructor(
    private readonly writer: AuditWriting,
    include: readonly string[],
    /** The logger's redaction of secret values. */
    private readonly secret: (text: string) => string,
  ) {
    this.audited = new Set(include);
  }

  get writerName(): string {
    return this.writer.name;
  }

  begin(request: AuditRequest): AuditRecord | undefined {
    if (!this.audited.has(request.method)) return undefined;
    return new AuditRecord(this.writer, request, this.secret);
  }

  /** Everything queued is written, then the `close` record; for shutdown after the drain. */
  close(): Promise<void> {
    return this.writer.close();
  }

  flush(): Promise<void> {
    return this.writer.flush();
  }
}

/** One request's record in the making. */
export class AuditRecord {
  private readonly start = Date.now();
  private readonly started = performance.now();
  private readonly note: AuditNote = { redact: [] };
  private readonly traceId: string | undefined;
  private ended = false;

  constructor(
    private readonly writer: AuditWriting,
    private readonly request: AuditRequest,
    private readonly secret: (text: string) => string,
  ) {
    this.traceId = ops.traceId() ?? traceOf(currentTraceparent());
  }

  /** undefined: go ahead; a promise: wait for it first; throws when the trail refuses the request. */
  admit(): Promise<void> | undefined {
    return this.writer.admit();
  }

  /** Runs the request's handler with its note, so the stages can mark what must not be recorded. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return withAuditNote(this.note, fn);
  }

  /** Writes the record; once. */
  end(end: AuditEnd): void {
    if (this.ended) return;
    this.ended = true;
    const { method, params } = this.request;
    const refusal = end.thrown instanceof GovernanceRefusal ? end.thrown : undefined;
    const noted = this.note.decision;
    // A call through search mode's call_tool is recorded as the call of the tool it named.
    const resolved = this.note.resolved;
    const decision: AuditDecision = refusal?.decision ?? noted?.decision ?? 'allow';
    const rule = refusal?.rule ?? noted?.rule;
    const append = end.thrown instanceof AuditBackpressure ? 'appendRefused' : 'append';
    this.writer[append](
      encodeRecord(this.writer.name, {
        start: this.start,
        method,
        entry:
          resolved === undefined
            ? entryOf(method, params, this.secret)
            : entryText(resolved.entry, this.secret),
        caller: callerOf(this.request),
        arguments: redactArguments(resolved?.arguments ?? params.arguments, this.note.redact, this.secret),
        decision,
        ...(rule !== undefined && { rule }),
        outcome: end.outcome,
        ...(end.code !== undefined && { code: end.code }),
        durationMs: performance.now() - this.started,
        bytes: end.bytes,
        ...(this.traceId !== undefined && { traceId: this.traceId }),
        // Over HTTP with JSON logs: the request's X-Request-Id, as on its log lines.
        requestId: currentLogFields()?.requestId ?? randomUUID(),
      }),
    );
  }
}

/** The trace id of a W3C `traceparent` header (the caller's text: taken only when well formed). */
function traceOf(traceparent: string | undefined): string | undefined {
  const id = traceparent?.split('-')[1];
  return id !== undefined && /^[0-9a-f]{32}$/.test(id) && !/^0+$/.test(id) ? id : undefined;
}

function entryOf(
  method: string,
  params: Readonly<Record<string, unknown>>,
  secret: (text: string) => string,
): string | undefined {
  const value = method === 'resources/read' ? params.uri : method.endsWith('/list') ? undefined : params.name;
  return typeof value === 'string' ? entryText(value, secret) : undefined;
}

const entryText = (value: string, secret: (text: string) => string): string =>
  secret(value.slice(0, MAX_ENTRY_CHARS));

function callerOf(request: AuditRequest): AuditCaller {
  const { identity, label, toolsets } = request;
  const claims = identity?.claims;
  const client = claims?.client_id ?? claims?.azp;
  return {
    ...(identity !== undefined && { issuer: identity.issuer }),
    ...(identity?.subject !== undefined && { subject: identity.subject }),
    ...(typeof client === 'string' && { client }),
    ...(label !== undefined && { label }),
    ...(toolsets !== undefined && { toolsets }),
  };
}

const UNITS: Readonly<Record<string, number>> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** `10MB`, `512KB`, `1GB` or a number of bytes (units are 1024-based). */
export function parseSize(value: string | number): number {
  if (typeof value === 'number') return value;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmg]?b)?\s*$/i.exec(value);
  if (match === null) throw new RangeError(`not a size: ${JSON.stringify(value)} (e.g. 10MB)`);
  return Math.round(Number(match[1]) * (UNITS[(match[2] ?? 'b').toLowerCase()] ?? 1));
}

/** hostname-pid-start: unique per process, so each process keeps a chain of its own. */
function defaultWriterName(): string {
  return `${hostname()}-${process.pid}-${new Date().toISOString().replace(/[-:.]/g, '')}`;
}

export interface OpenOptions {
  /** The manifest's folder: a relative `file` is relative to it. */
  readonly base: string;
  readonly log: Logger;
  readonly secret: (text: string) => string;
}

/** The sink `server.audit` names: `sink`, else `file` with a `file`, else `stderr`. */
export const sinkKindOf = (settings: ServerAuditSection): NonNullable<ServerAuditSection['sink']> =>
  settings.sink ?? (settings.file === undefined ? 'stderr' : 'file');

async function sinkOf(settings: ServerAuditSection, base: string): Promise<AuditSink> {
  const kind = sinkKindOf(settings);
  if (kind === 'otel') {
    // The logs SDK and exporter load only when this sink is asked for.
    const { OtelSink, logsUrl } = await import('./otel-sink.js');
    return new OtelSink(logsUrl(settings.endpoint));
  }
  if (kind === 'stderr') return new StderrSink();
  if (settings.file === undefined) throw new RangeError('server.audit with sink: file needs `file`');
  const file = isAbsolute(settings.file) ? settings.file : resolve(base, settings.file);
  return new FileSink(file, parseSize(settings.rotate ?? DEFAULTS.rotate), settings.keep ?? DEFAULTS.keep);
}

/** The methods `server.audit` audits. */
export const auditedMethods = (settings: ServerAuditSection): readonly string[] =>
  settings.include ?? DEFAULT_AUDITED;

/** The queue's budget and what happens over it, as `server.audit` sets them. */
export function pressureOf(settings: ServerAuditSection): {
  readonly budgetBytes: number;
  readonly onBackpressure: BackpressureChoice;
} {
  return {
    budgetBytes: parseSize(settings.buffer ?? DEFAULTS.buffer),
    onBackpressure: settings.onBackpressure ?? 'block',
  };
}

/**
 * Opens the writer `server.audit` declares: its sink, its chain, its `start` record. One process
 * calls this for the server: serve.ts, or the primary of `--workers` (ipc-writer.ts).
 */
export async function openAuditWriter(
  settings: ServerAuditSection,
  options: Omit<OpenOptions, 'secret'> & { readonly onPressure?: (over: boolean) => void },
): Promise<AuditWriter> {
  const writer = new AuditWriter({
    sink: await sinkOf(settings, options.base),
    name: settings.writer ?? defaultWriterName(),
    ...pressureOf(settings),
    log: options.log,
    ...(options.onPressure && { onPressure: options.onPressure }),
  });
  await writer.open();
  return writer;
}

/** Opens the trail `server.audit` declares: its sink, its writer, its `start` record. */
export async function openAuditTrail(
  settings: ServerAuditSection,
  options: OpenOptions,
): Promise<AuditTrail> {
  const writer = await openAuditWriter(settings, options);
  return new AuditTrail(writer, auditedMethods(settings), options.secret);
}
