/**
 * Prometheus metrics (`--metrics`), on registries of their own. Labels stay bounded: a tool's name
 * (from the manifest), an outcome, a source's name, a pool state, a worker's slot; never an argument
 * value.
 *
 * With `--workers` each metric is one of two sorts, by the registry it is in:
 * - `totals`: counts of what the server did (calls, their latency, refusals, errors, bytes, an
 *   upstream's restarts): the primary adds up every worker's, so the figures are the server's;
 * - `perProcess`: a process's own levels and doings (memory, CPU, event loop, GC, handles, calls in
 *   flight, sessions and streams held, pool connections, its catalog's reloads): one series per
 *   worker, labelled `worker="<slot>"`, never added up (sum them in PromQL where a total means
 *   something). A name is never both, so `sum()` over any metric counts each thing once.
 * One process alone serves both, with no `worker` label.
 */
import client from 'prom-client';
import type { CallOutcome, OpsHooks } from './hooks.js';
import type { SourceTracker } from './sources.js';

/** What the HTTP transport reports at scrape time. */
export interface TransportStats {
  /** Open 2025 sessions. */
  readonly sessions: number;
  /** Open SSE streams (GET streams and streamed POST answers). */
  readonly streams: number;
  /** Bytes written to clients since start. */
  readonly bytesOut: number;
}

/**
 * Failed writes to the audit sink. With `--workers` the primary holds the sink, and this series is
 * the primary's (cli/workers.ts), not summed over the workers.
 */
export const AUDIT_SINK_ERRORS = {
  name: 'mcp_run_audit_sink_errors_total',
  help: 'Failed writes to the audit sink (file, stderr, otel), each tried again; no record is dropped.',
  labelNames: ['sink'] as const,
};

export class Metrics {
  /** Summed over the workers. */
  private readonly totals = new client.Registry();
  /** One series per worker. */
  private readonly perProcess = new client.Registry();
  /** Every metric, as one process serves them. */
  private readonly all: client.Registry;
  private transport: (() => TransportStats) | undefined;
  /** `--workers`: the server's sum, from the primary. */
  private sum: (() => Promise<string>) | undefined;

  private readonly calls = new client.Counter({
    name: 'mcp_run_tool_calls_total',
    help: 'Tool calls by tool and outcome (ok, tool_error, protocol_error, refused, input_required).',
    labelNames: ['tool', 'outcome'] as const,
    registers: [this.totals],
  });
  private readonly latency = new client.Histogram({
    name: 'mcp_run_tool_call_duration_seconds',
    help: 'Tool call latency by tool.',
    labelNames: ['tool'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.totals],
  });
  private readonly inFlight = new client.Gauge({
    name: 'mcp_run_tool_calls_in_flight',
    help: 'Tool calls running now, by tool.',
    labelNames: ['tool'] as const,
    registers: [this.perProcess],
  });
  private readonly auditPressure = new client.Counter({
    name: 'mcp_run_audit_backpressure_total',
    help: 'Requests that met a full audit queue, by what was done (block: waited, refuse: refused).',
    labelNames: ['choice'] as const,
    registers: [this.totals],
  });
  private readonly auditSinkErrors = new client.Counter({ ...AUDIT_SINK_ERRORS, registers: [this.totals] });
  private readonly reloads = new client.Counter({
    name: 'mcp_run_reloads_total',
    help: 'Manifest reloads by outcome (ok, failed).',
    labelNames: ['outcome'] as const,
    registers: [this.perProcess],
  });

  private readonly limitRefusals = new client.Counter({
    name: 'mcp_run_limit_refusals_total',
    help: 'Calls and HTTP requests refused by a limit per caller, by the rule as the manifest writes it.',
    labelNames: ['limit'] as const,
    registers: [this.totals],
  });

  constructor(sources: SourceTracker) {
    const self = this;
    new client.Gauge({
      name: 'mcp_run_sessions',
      help: 'Open 2025-era HTTP sessions.',
      registers: [this.perProcess],
      collect() {
        if (self.transport) this.set(self.transport().sessions);
      },
    });
    new client.Gauge({
      name: 'mcp_run_streams',
      help: 'Open SSE streams.',
      registers: [this.perProcess],
      collect() {
        if (self.transport) this.set(self.transport().streams);
      },
    });
    new client.Counter({
      name: 'mcp_run_http_bytes_out_total',
      help: 'Bytes written to HTTP clients.',
      registers: [this.totals],
      collect() {
        if (!self.transport) return;
        this.reset();
        this.inc(self.transport().bytesOut);
      },
    });
    new client.Gauge({
      name: 'mcp_run_source_pool_connections',
      help: 'Connections of each source pool by state (total, idle, waiting: callers queued).',
      labelNames: ['source', 'state'] as const,
      registers: [this.perProcess],
      collect() {
        this.reset();
        for (const [source, stats] of sources.pools()) {
          this.set({ source, state: 'total' }, stats.total);
          this.set({ source, state: 'idle' }, stats.idle);
          this.set({ source, state: 'waiting' }, stats.waiting);
        }
      },
    });
    new client.Counter({
      name: 'mcp_run_source_restarts_total',
      help: 'Restarts of the upstream behind a source (an mcp source whose program died or whose session expired).',
      labelNames: ['source'] as const,
      registers: [this.totals],
      collect() {
        this.reset();
        for (const [source, stats] of sources.pools())
          if (stats.restarts !== undefined) this.inc({ source }, stats.restarts);
      },
    });
    client.collectDefaultMetrics({ register: this.perProcess, prefix: 'mcp_run_' });
    this.all = client.Registry.merge([this.totals, this.perProcess]);
  }

  /** Reads sessions, streams and bytes from the HTTP transport at each scrape. */
  observeTransport(stats: () => TransportStats): void {
    this.transport = stats;
  }

  /** The hooks the catalog reports through. */
  hooks(): OpsHooks {
    return {
      toolCall: (tool) => {
        this.inFlight.inc({ tool });
        const stop = this.latency.startTimer({ tool });
        return {
          run: (fn) => fn(),
          end: (outcome: CallOutcome) => {
            stop();
            this.inFlight.dec({ tool });
            this.calls.inc({ tool, outcome });
          },
        };
      },
      reload: (outcome) => this.reloads.inc({ outcome }),
      limitRefused: (limit) => this.limitRefusals.inc({ limit }),
      auditPressure: (choice) => this.auditPressure.inc({ choice }),
      auditSinkError: (sink) => this.auditSinkErrors.inc({ sink }),
    };
  }

  /**
   * `--workers`: this worker's registries answer the primary's scrapes (prom-client's
   * AggregatorRegistry, over the cluster's IPC channel; the primary adds up the series that carry
   * the same labels, so those labelled with a worker stay apart), and `/metrics` on any worker
   * serves what the primary made of every worker's.
   */
  joinCluster(worker: number, sum: () => Promise<string>): void {
    // The primary writes the audit trail for every worker, and counts its sink's failures itself.
    this.totals.removeSingleMetric(AUDIT_SINK_ERRORS.name);
    new client.AggregatorRegistry();
    client.AggregatorRegistry.setRegistries([this.totals, new WorkerSeries(this.perProcess, String(worker))]);
    this.sum = sum;
  }

  get contentType(): string {
    return this.all.contentType;
  }

  text(): Promise<string> {
    return this.sum ? this.sum() : this.all.metrics();
  }
}

/**
 * A worker's per-process metrics as the primary reads them: every series labelled with the worker's
 * slot, and kept as it is (`first`: prom-client's own rule would leave out the start time, and no
 * two workers' series share their labels to be added up anyway).
 */
class WorkerSeries extends client.Registry {
  constructor(
    private readonly own: client.Registry,
    private readonly worker: string,
  ) {
    super();
  }

  override async getMetricsAsJSON(): ReturnType<client.Registry['getMetricsAsJSON']> {
    return (await this.own.getMetricsAsJSON()).map((metric) => ({
      ...metric,
      aggregator: 'first',
      values: metric.values.map((value) => ({ ...value, labels: { ...value.labels, worker: this.worker } })),
    }));
  }
}
