/**
 * The operational endpoints: `/healthz` (the process answers), `/readyz` (a catalog is loaded and
 * every source answers its ping; a failing one is named) and, with `--metrics <path>`, the
 * Prometheus text. They take GET (and HEAD) only, need no auth and skip the Host/Origin guards:
 * they change nothing and hold no secrets (source errors are redacted), and probes and scrapers
 * send whatever Host the orchestrator uses. `--metrics <port>` serves them on a port of their own.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SharedState } from '../state/shared.js';
import type { Metrics } from './metrics.js';
import type { SourceTracker } from './sources.js';

export interface OpsRouteOptions {
  readonly sources: SourceTracker;
  /** Whether a catalog is loaded (false before the first one and while shutting down). */
  readonly loaded: () => boolean;
  readonly metrics?: Metrics;
  /** Path of the metrics; undefined: not served here. */
  readonly metricsPath?: string;
  readonly redact: (text: string) => string;
  /** `--state`: not ready while the shared store is unreachable. */
  readonly state?: SharedState;
  /**
   * `--workers`: why the whole server is not ready (fewer workers up than asked for), or
   * undefined; a worker answers the probe for the server.
   */
  readonly whole?: () => Promise<string | undefined>;
}

/** Answers the request when it is one of the operational endpoints; false otherwise. */
export type OpsRoute = (req: IncomingMessage, res: ServerResponse) => boolean;

export function opsRoutes(o: OpsRouteOptions): OpsRoute {
  return (req, res) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const isMetrics = o.metrics !== undefined && path === o.metricsPath;
    if (path !== '/healthz' && path !== '/readyz' && !isMetrics) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }).end('Method Not Allowed\n');
      return true;
    }
    if (path === '/healthz') json(res, 200, { status: 'ok' });
    else if (isMetrics && o.metrics) void metrics(res, o.metrics);
    else void ready(res, o);
    return true;
  };
}

async function ready(res: ServerResponse, o: OpsRouteOptions): Promise<void> {
  if (!o.loaded()) {
    json(res, 503, { status: 'not ready', reason: 'no catalog is loaded' });
    return;
  }
  const whole = await o.whole?.();
  if (whole !== undefined) {
    json(res, 503, { status: 'not ready', reason: whole });
    return;
  }
  if (o.state !== undefined && !o.state.healthy) {
    const reason = `the shared state (${o.state.where}) is unreachable: ${o.redact(o.state.fault ?? 'unknown')}`;
    json(res, 503, { status: 'not ready', reason, state: 'unreachable' });
    return;
  }
  const checks = await o.sources.check();
  const sources = Object.fromEntries([...checks].map(([name, state]) => [name, o.redact(state)]));
  const failing = [...checks].filter(([, state]) => state !== 'ok').map(([name]) => name);
  if (failing.length === 0) json(res, 200, { status: 'ready', sources });
  else {
    const reason = `source${failing.length === 1 ? '' : 's'} ${failing.join(', ')} unreachable`;
    json(res, 503, { status: 'not ready', reason, sources });
  }
}

async function metrics(res: ServerResponse, m: Metrics): Promise<void> {
  try {
    const text = await m.text();
    res.writeHead(200, { 'Content-Type': m.contentType, 'Cache-Control': 'no-store' }).end(text);
  } catch (err) {
    res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`metrics failed: ${(err as Error).message}\n`);
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res
    .writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' })
    .end(`${JSON.stringify(body)}\n`);
}

export interface OpsServer {
  readonly url: string;
  close(): Promise<void>;
}

/** `--metrics <port>`: the metrics at `/metrics` (and the health endpoints) on a port of their own. */
export async function serveOps(route: OpsRoute, port: number, host: string): Promise<OpsServer> {
  const server = createServer((req, res) => {
    if (!route(req, res)) res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not Found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo;
  const h = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${h}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
