import { dirname, relative, resolve } from 'node:path';
import { loadCatalog } from '../catalog/load.js';
import { Reloader, reloadFailureDetail } from '../catalog/reload.js';
import { toolsetScopes } from '../catalog/toolsets.js';
import { type Catalog, CatalogRef } from '../catalog/types.js';
// Types only: the playground loads with `mcp-run dev`, never for the plain command.
import type { Playground } from '../dev/playground.js';
import { formatDiagnostic, ManifestError } from '../errors.js';
// Types only: the trail's modules load when the manifest declares server.audit.
import type { AuditTrail } from '../governance/audit/trail.js';
import { installLimitStore } from '../governance/limits/store.js';
import { builtinKinds } from '../kinds/builtin.js';
import { setProcessCount, shareOf } from '../kinds/contract/share.js';
import { type LogFormat, type LogThreshold, StderrLogger } from '../log.js';
import { preloadAjv2020 } from '../manifest/precompiled.js';
import type { ServerAuditSection } from '../manifest/types.js';
import { installOpsHooks } from '../ops/hooks.js';
import type { Metrics } from '../ops/metrics.js';
// Types only: the ops endpoints (and node:http) load with --http or a metrics port, not for stdio.
import type { OpsRoute } from '../ops/routes.js';
import { SourceTracker } from '../ops/sources.js';
import { usedStatesOn } from '../protocol/request-state.js';
import {
  createProtocol,
  type ListCategory,
  type Protocol,
  type ProtocolOptions,
} from '../protocol/server.js';
import type { SharedState } from '../state/shared.js';
// Types only: the HTTP transport (~50 modules) loads when --http asks for it, not for stdio.
import type { HttpTransport, OAuthOptions, ScopePolicy } from '../transports/http/server.js';
import { serveStdio } from '../transports/stdio.js';
import { startupLoadIsOver } from '../util/large-load.js';
import { nodeCrypto } from '../util/lazy-node.js';
import { describeCounts } from './counts.js';
import { toolsetFault } from './toolset-arg.js';
import type { WorkerLink } from './worker-link.js';
import { letYoungGenerationGrow } from './young-generation.cjs';

/**
 * How long stdio waits for the client's opening exchange to settle (its first answers out) before
 * the watcher starts anyway. Hashing the manifest (node:crypto, ~5 ms) and loading chokidar before
 * the first answers would delay them; an edit in the meantime is caught up with.
 */
const WATCH_DELAY_MS = 200;
/** How long after the opening exchange on stdio (or listening on HTTP) ajv is loaded (`preloadValidation`). */
const PRELOAD_DELAY_MS = 250;

/**
 * A tool's first call loads ajv to check its arguments: ~50 ms of ~60 CommonJS files, which that
 * call waited for. Loaded in the quiet after start instead, it is ready before the first call of a
 * client that lists its tools and then asks a model what to call. A call that comes sooner loads
 * it itself, as before.
 */
function preloadValidation(catalog: Catalog, after: Promise<unknown>): void {
  if (catalog.tools.size === 0) return;
  void after.then(() => setTimeout(preloadAjv2020, PRELOAD_DELAY_MS).unref());
}

export interface ServeOptions {
  readonly logLevel: LogThreshold;
  /** Hot reload on changes to the manifest and the files it names (`--no-watch` turns it off). */
  readonly watch: boolean;
  /** Serve Streamable HTTP instead of stdio, with the options below. */
  readonly http?: boolean;
  readonly port?: number;
  readonly host?: string;
  readonly path?: string;
  readonly allowedHost?: string[];
  readonly allowedOrigin?: string[];
  /** Names of environment variables holding the accepted bearer tokens / API keys. */
  readonly authTokenEnv?: string;
  readonly apiKeyEnv?: string;
  /** `--metrics [path|port]`: Prometheus metrics on a path of the HTTP server (default /metrics) or a port of their own. */
  readonly metrics?: string | boolean;
  readonly logFormat?: LogFormat;
  /** `--otel [endpoint]`: OTLP/HTTP traces (also on when OTEL_EXPORTER_OTLP_ENDPOINT is set). */
  readonly otel?: string | boolean;
  /** `--sse-poll-ms`: SSE polling for 2025-11-25 sessions; absent: MCP_RUN_SSE_POLL_MS, else never. */
  readonly ssePollMs?: number;
  /** `--state redis://…`: 2025 sessions shared by replicas (HTTP only). */
  readonly state?: string;
  /** `--allow-unauthenticated-remote`: serve beyond loopback with no auth option, knowingly. */
  readonly allowUnauthenticatedRemote?: boolean;
  /** `mcp-run dev` (HTTP only): the playground page and its event stream on the same origin. */
  readonly playground?: Playground;
  /** `mcp-run dev`: told the page's URL once the port is open. */
  readonly onListening?: (url: string) => void;
  /** `--toolset`, repeatable: stdio serves only these toolsets (docs/toolsets.md). */
  readonly toolset?: string[];
  /** `--reload-errors-detail`: a failed reload's code frames go to HTTP clients beyond loopback too. */
  readonly reloadErrorsDetail?: boolean;
  /** `--workers N|auto` (HTTP only): N processes serve the port (workers.ts); 1 or absent: this one. */
  readonly workers?: number;
}

/** Where `--metrics` serves: a path of the MCP server, or a port of their own. */
type MetricsPlace = { readonly path: string } | { readonly port: number };

function metricsPlace(value: string | boolean | undefined): MetricsPlace | undefined | string {
  if (value === undefined || value === false) return undefined;
  if (value === true) return { path: '/metrics' };
  if (/^\d+$/.test(value) && Number(value) <= 65535) return { port: Number(value) };
  if (value.startsWith('/') && !['/healthz', '/readyz'].includes(value)) return { path: value };
  return `--metrics takes a path starting with / or a port, not ${JSON.stringify(value)}`;
}

/** What --metrics, --otel and the health endpoints need, set up before the catalog loads. */
interface Ops {
  readonly sources: SourceTracker;
  readonly metrics?: Metrics;
  readonly place?: MetricsPlace;
  /** `--state`: its health is part of readiness. */
  readonly state?: SharedState;
  /** `--workers`: this process is one of the workers, and this is its line to the primary. */
  readonly link?: WorkerLink;
}

/**
 * `mcp-run [manifest]`: compile the manifest and serve it on stdio until stdin ends or a signal
 * arrives. A manifest with errors prints them all and exits 1 before anything is served.
 */
export async function serveCommand(file: string, options: ServeOptions): Promise<void> {
  const log = new StderrLogger(options.logLevel, undefined, options.logFormat ?? 'text');
  const registry = builtinKinds();
  options.playground?.redactWith((text) => log.redact(text));
  const place = metricsPlace(options.metrics);
  if (typeof place === 'string' || (place && 'path' in place && !options.http)) {
    process.stderr.write(
      `mcp-run: ${typeof place === 'string' ? place : '--metrics <path> needs --http; on stdio give a port'}\n`,
    );
    process.exit(2);
  }
  if (options.state !== undefined && !options.http) {
    process.stderr.write('mcp-run: --state shares HTTP sessions between replicas; it needs --http\n');
    process.exit(2);
  }
  const workers = options.workers ?? 1;
  if (workers > 1 && !options.http) {
    process.stderr.write(
      'mcp-run: --workers serves one HTTP port from several processes; it needs --http (stdio is one process)\n',
    );
    process.exit(2);
  }
  let link: WorkerLink | undefined;
  if (workers > 1) {
    const cluster = (await import('node:cluster')).default;
    if (cluster.isPrimary) {
      const { runPrimary } = await import('./workers.js');
      return runPrimary(file, { ...options, workers });
    }
    const { WorkerLink } = await import('./worker-link.js');
    link = new WorkerLink(Number(process.env.MCP_RUN_WORKER ?? 1), workers);
    // Before any source opens: the manifest's pools and memory are the server's, each worker its share.
    setProcessCount(workers, link.slot);
  }
  const opened =
    options.state !== undefined
      ? await openState(options.state, log)
      : link !== undefined
        ? await workersState(link)
        : undefined;
  // A worker's streams leave their epitaphs with the primary, for when the worker is killed.
  const state =
    link !== undefined && opened !== undefined
      ? new (await import('../state/epitaphs.js')).ReportedState(opened, link.client)
      : opened;
  const sources = new SourceTracker();
  sources.watch(registry);
  let metrics: Metrics | undefined;
  if (place) {
    // prom-client loads only when metrics are asked for.
    const { Metrics } = await import('../ops/metrics.js');
    metrics = new Metrics(sources);
    installOpsHooks(metrics.hooks());
  }
  const otlp = typeof options.otel === 'string' ? options.otel : process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  let stopTracing: (() => Promise<void>) | undefined;
  if (options.otel || otlp) {
    // The OpenTelemetry SDK and exporter load only when traces are asked for.
    const { startTracing } = await import('../ops/tracing.js');
    stopTracing = await startTracing(otlp, log);
  }
  if (metrics && link) {
    const worker = link;
    metrics.joinCluster(worker.slot, () => worker.metrics());
  }
  const ops: Ops = {
    sources,
    ...(metrics && { metrics }),
    ...(place && { place }),
    ...(state && { state }),
    ...(link && { link }),
  };
  let catalog: Catalog;
  let text: string | undefined;
  try {
    // The manifest's warnings are the same in every worker: the first says them, the others log them
    // at debug (as their reloader does: `quiet`).
    const quiet = link !== undefined && link.slot > 1;
    ({ catalog, text } = await loadCatalog(file, registry, log, process.env, {
      ...(quiet && { onWarning: (warning) => log.debug(formatDiagnostic(warning)) }),
    }));
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    process.stderr.write(
      `${log.redact(err.message)}\n\nmcp-run: not serving ${file}: fix the errors above\n`,
    );
    process.exit(1);
  }
  // The first load's settings are undone (young-generation.cts); a reload makes none.
  startupLoadIsOver();

  const toolsets = options.toolset;
  if (toolsets !== undefined) {
    const fault = options.http
      ? '--toolset selects toolsets on stdio; over HTTP each toolset has its own path, <path>/<name>'
      : toolsetFault(catalog, toolsets);
    if (fault !== undefined) {
      process.stderr.write(`mcp-run: ${fault}\n`);
      await catalog.dispose();
      process.exit(2);
    }
  }
  const ref = new CatalogRef(catalog);
  const audit = await openAudit(file, catalog, log, link);
  // Without watching, neither lists nor resource contents are ever re-read: advertise neither.
  const protocol = createProtocol(ref, {
    log,
    listChanged: options.watch,
    resourceUpdates: options.watch,
    ...(state && (await taskOptions(state, log))),
    // A requestState replayed to another replica or worker is refused there too: used once in all.
    ...(state && {
      usedStates: usedStatesOn(state, `${process.pid}-${Math.random().toString(36).slice(2)}`),
    }),
    ...(audit && { audit }),
  });
  // With --state the 2025 sessions of every replica are told through the shared store, once each.
  let shared: HttpTransport['shared'];
  // A failed reload's code frames show the manifest's paths and lines: the operator's data. Clients
  // on stdio and on a loopback HTTP server are the author's own and get them; a server bound beyond
  // loopback sends the summary only, unless the operator passes --reload-errors-detail.
  let reloadDetail = !options.http || options.reloadErrorsDetail === true;
  const reloader = options.watch
    ? new Reloader({
        file: resolve(file),
        ref,
        registry,
        log,
        ...(link && { watcher: 'primary' as const, quiet: link.slot > 1 }),
        listener: {
          listChanged: (categories, change) => {
            protocol.notifyListChanged(categories, change);
            void shared?.listChanged(categories, listDigest(ref.current, categories), change);
          },
          resourceUpdated: (uri) => {
            protocol.notifyResourceUpdated(uri);
            void shared?.resourceUpdated(uri);
          },
          reloaded: (summary) => options.playground?.reloaded(summary),
          reloadFailed: (summary, diagnostics) => {
            options.playground?.reloadFailed(summary, diagnostics);
            const data = reloadDetail ? log.redact(reloadFailureDetail(summary, diagnostics)) : summary;
            protocol.notifyLog('error', data);
            void shared?.logToSessions('error', data, digest(JSON.stringify(data)));
          },
        },
      })
    : undefined;
  /** Watching starts with serving; on stdio, once the first answers are out (or soon without any). */
  const watch = (after?: Promise<unknown>) => {
    // The text is the reloader's to keep (as a digest): this closure lives as long as the server.
    if (text !== undefined) reloader?.start(text, after);
    text = undefined;
    void reloader?.ready().then(() => log.debug(`watching ${file} and the files it names for changes`));
    if (link && reloader) followPrimary(link, reloader, log);
  };
  process.on('SIGHUP', () => void reloader?.reload());
  const opsServer =
    place && 'port' in place
      ? await serveOpsPort(
          await route(ops, ref, log, '/metrics'),
          place.port,
          options.host ?? '127.0.0.1',
        ).catch((err: Error) => {
          process.stderr.write(`mcp-run: cannot serve metrics on port ${place.port}: ${err.message}\n`);
          process.exit(1);
        })
      : undefined;
  if (opsServer) log.info(`metrics on ${opsServer.url}`);
  const stopOps = async () => {
    await opsServer?.close();
    await stopTracing?.();
  };
  if (options.http) {
    // The loaded catalog carries server.auth: the manifest is not parsed a second time.
    const auth = ref.current.auth;
    const host = options.host ?? '127.0.0.1';
    const { isLoopbackHost } = await import('../transports/http/guards.js');
    // Known before watch() starts below, so before any reload can fail.
    if (isLoopbackHost(host)) reloadDetail = true;
    const oauth =
      auth &&
      withMirrorScopes(auth, ref, (await import('../transports/http/oauth/scopes.js')).withMirrorScopes);
    if (
      !isLoopbackHost(host) &&
      !options.authTokenEnv &&
      !options.apiKeyEnv &&
      !oauth &&
      !options.allowUnauthenticatedRemote
    ) {
      process.stderr.write(
        `mcp-run: not serving on ${host} without authentication: anyone who can reach the port could call every tool. ` +
          'Set --auth-token-env or --api-key-env (or server.auth in the manifest), or pass --allow-unauthenticated-remote if that is what you want.\n',
      );
      await ref.current.dispose();
      process.exit(2);
    }
    const httpOptions = { ...options, oauth };
    preloadValidation(catalog, Promise.resolve());
    const stopAll = async () => {
      // After the drain: every request answered is recorded, then the trail's close record.
      await audit?.close();
      await stopOps();
      await state?.close();
    };
    watch();
    const served = serveOverHttp(
      file,
      ref,
      protocol,
      log,
      httpOptions,
      ops,
      async () => {
        options.playground?.close();
        await reloader?.close();
      },
      stopAll,
    );
    return served.then((http) => {
      shared = http?.shared;
    });
  }
  const stdio = serveStdio(protocol, { log, ...(toolsets !== undefined && { toolsets }) });
  const started = Promise.race([stdio.settled, new Promise((r) => setTimeout(r, WATCH_DELAY_MS).unref())]);
  watch(started);
  preloadValidation(catalog, started);
  const stop = async () => {
    protocol.close();
    await reloader?.close();
    await stdio.close();
    await audit?.close();
    await stopOps();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (process.stdin.isTTY) log.info(await banner(file, await describeCounts(catalog)));
  else log.debug(`serving ${file} on stdio`);

  await stdio.closed;
  await audit?.close();
  await reloader?.close();
  await ref.current.dispose();
  process.exit(0);
}

/**
 * `server.audit`: the trail opens before anything is served, with the logger's redaction (every
 * `${env:…}` value is a secret there too). It is read once at start, like `server.auth`: a reload
 * does not move the trail; a changed `server.audit` takes effect at the next start (docs/governance.md).
 * A worker of `--workers` writes to the primary's one writer (governance/audit/ipc-writer.ts).
 */
async function openAudit(
  file: string,
  catalog: Catalog,
  log: StderrLogger,
  link: WorkerLink | undefined,
): Promise<AuditTrail | undefined> {
  const settings = catalog.audit;
  // With --workers, the first worker's manifest decided for the whole server (link.audit).
  if (link?.audit === 'off') {
    if (settings !== undefined)
      log.warn(
        'audit: server.audit was added since the server started; it takes effect at the next start (no worker keeps a trail until then)',
      );
    return undefined;
  }
  if (settings === undefined && link?.audit !== 'on') return undefined;
  try {
    const options = { base: dirname(resolve(file)), log, secret: (text: string) => log.redact(text) };
    const trail =
      link === undefined
        ? await (await import('../governance/audit/trail.js')).openAuditTrail(
            settings as ServerAuditSection,
            options,
          )
        : await (await import('../governance/audit/ipc-writer.js')).openWorkerTrail(settings, {
            ...options,
            client: link.client,
          });
    log.debug(`audit trail open, writer ${trail.writerName}`);
    return trail;
  } catch (err) {
    process.stderr.write(`mcp-run: cannot open the audit trail: ${log.redact((err as Error).message)}\n`);
    await catalog.dispose();
    process.exit(1);
  }
}

/**
 * `server.auth` as read at start, except that its scopes follow the current catalog's mirrored
 * tools (a reload may add one, and it needs the scopes of what it mirrors at once); one policy per
 * catalog.
 */
function withMirrorScopes(
  auth: NonNullable<Catalog['auth']>,
  ref: CatalogRef,
  add: (policy: ScopePolicy, mirrors: NonNullable<Catalog['mirrors']>) => ScopePolicy,
): OAuthOptions {
  const policies = new WeakMap<Catalog, ScopePolicy>();
  const start = auth.scopes ?? {};
  return Object.defineProperty({ ...auth }, 'scopes', {
    enumerable: true,
    get(): ScopePolicy {
      const catalog = ref.current;
      if (catalog.mirrors === undefined) return start;
      let policy = policies.get(catalog);
      if (policy === undefined) {
        policy = add(start, catalog.mirrors);
        policies.set(catalog, policy);
      }
      return policy;
    },
  });
}

/**
 * The manifest's `server.auth` (already validated, and its ${env:…} values registered as secrets by
 * loadCatalog). It is read once at start: a reload does not change who may connect.
 */
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/** For a person at a terminal: what is served and how a client starts it (client-config loads only then). */
async function banner(file: string, counts: string): Promise<string> {
  const { oneLineConfig } = await import('./client-config.js');
  return [
    `serving ${relative(process.cwd(), file) || file} on stdio (${counts}).`,
    'An MCP client starts this command and speaks JSON-RPC on its stdin; press Ctrl-D to stop.',
    `Client config (absolute paths, ready to paste): ${oneLineConfig(file)}`,
    `For a client's whole block: mcp-run config ${resolve(file)} --client claude-desktop|vscode|cursor`,
  ].join('\n  ');
}

/**
 * `mcp-run --http`: serve until SIGTERM/SIGINT, then shut down gracefully (in-flight calls finish,
 * listen streams get their final result) and exit 0. The first line on stderr is
 * `mcp-run: listening on <url>`, for scripts and tests that start it with `--port 0`.
 */
async function serveOverHttp(
  file: string,
  ref: CatalogRef,
  protocol: Protocol,
  log: StderrLogger,
  options: ServeOptions & { readonly oauth?: OAuthOptions | undefined },
  ops: Ops,
  stopWatching: () => Promise<void>,
  /** After the HTTP server closed: the metrics port, then the last spans are flushed. */
  stopOps: () => Promise<void>,
): Promise<HttpTransport | undefined> {
  // Signal handlers go in before the port opens: a SIGTERM that arrives right after the
  // "listening on" line must shut down gracefully, not kill the process with the default action.
  let http: HttpTransport | undefined;
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await stopWatching();
    await http?.close();
    await stopOps();
    await ref.current.dispose();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const { authFromEnv, HTTP_DEFAULTS, ProblemError, serveHttp } = await import(
    '../transports/http/server.js'
  );
  // The primary of --workers is gone (killed): this worker drains and exits.
  ops.link?.client.onLost(() => void stop());
  try {
    const statics = authFromEnv(
      { tokenEnv: options.authTokenEnv, apiKeyEnv: options.apiKeyEnv },
      process.env,
    );
    log.addSecrets([...(statics.bearerTokens ?? []), ...(statics.apiKeys ?? [])]);
    const auth = options.oauth === undefined ? statics : { ...statics, oauth: options.oauth };
    http = await serveHttp(protocol, {
      log,
      auth,
      port: options.port,
      host: options.host,
      path: options.path,
      allowedHosts: options.allowedHost,
      allowedOrigins: options.allowedOrigin,
      requestLimit: () => ref.current.requestLimit,
      opsRoute: await route(
        ops,
        ref,
        log,
        ops.place && 'path' in ops.place ? ops.place.path : undefined,
        () => !stopping,
      ),
      ...(options.ssePollMs !== undefined && { ssePollMs: options.ssePollMs }),
      // The session cap is the server's: each worker holds its share.
      ...(ops.link && { maxSessions: shareOf(HTTP_DEFAULTS.maxSessions) }),
      ...(ops.state && { state: ops.state }),
      ...(options.playground && { pageRoute: options.playground.route }),
      toolsets: {
        has: (name) => ref.current.toolsets?.has(name) ?? false,
        scopes: (selection) => toolsetScopes(ref.current, selection),
      },
    });
    const transport = http;
    ops.metrics?.observeTransport(() => transport.stats());
  } catch (err) {
    if (!(err instanceof ProblemError)) throw err;
    process.stderr.write(`mcp-run: ${err.message}\n`);
    process.exit(err.problem.code === 'HTTP_LISTEN_FAILED' ? 1 : 2);
  }
  if (stopping) {
    // A signal came while the port was opening: close what just opened, and stop() exits.
    await http.close();
    return undefined;
  }
  // A wildcard bind has no address to connect to: name this machine's loopback, and say the rest.
  const host = options.host ?? '127.0.0.1';
  const wildcard = WILDCARDS.has(host);
  const url = wildcard
    ? http.url.replace(/^http:\/\/[^/]+:/, `http://${host.includes(':') ? '[::1]' : '127.0.0.1'}:`)
    : http.url;
  // A worker says so to the primary, which says it once for the server when every worker listens.
  const say = ops.link ? log.debug.bind(log) : log.info.bind(log);
  say(ops.link ? `worker ${ops.link.slot} listening on ${url}` : `listening on ${url}`);
  ops.link?.listening(url);
  letYoungGenerationGrow();
  if (wildcard) say(`bound to ${host}: reachable on all interfaces at port ${new URL(url).port}`);
  say(
    `serving ${relative(process.cwd(), file) || file} (${await describeCounts(ref.current)}); ` +
      `client config: { "url": "${url}" }`,
  );
  options.onListening?.(url);
  return http;
}

/**
 * `--state`: tasks live in the shared store too, so any replica reads, awaits and cancels them.
 * MCP_RUN_TASK_STALE_MS sets how long a silent runner is waited for before its tasks read failed.
 */
async function taskOptions(
  state: SharedState,
  log: StderrLogger,
): Promise<Pick<ProtocolOptions, 'taskStore' | 'taskEngine'>> {
  const { SharedTaskStore } = await import('../tasks/shared-store.js');
  const store = new SharedTaskStore(state);
  const raw = process.env[TASK_STALE_ENV];
  const staleMs = raw === undefined || raw === '' ? undefined : Number(raw);
  if (staleMs !== undefined && !(Number.isInteger(staleMs) && staleMs >= 100)) {
    log.warn(`${TASK_STALE_ENV}=${raw} is not a whole number of milliseconds >= 100; using 30000`);
    return { taskStore: store, taskEngine: { bus: store } };
  }
  return { taskStore: store, taskEngine: { bus: store, ...(staleMs !== undefined && { staleMs }) } };
}

const TASK_STALE_ENV = 'MCP_RUN_TASK_STALE_MS';

/** `--state`: connects to the store (a Redis that is down now is waited for, and reported). */
async function openState(url: string, log: StderrLogger): Promise<SharedState> {
  // ioredis loads only when --state is given.
  const { RedisState, parseStateUrl } = await import('../state/redis.js');
  let state: InstanceType<typeof RedisState>;
  try {
    const password = new URL(url).password;
    if (password) log.addSecrets([decodeURIComponent(password)]);
    parseStateUrl(url);
    state = new RedisState(url, log);
  } catch (err) {
    process.stderr.write(`mcp-run: ${(err as Error).message}\n`);
    process.exit(2);
  }
  if (!(await state.connect()))
    log.error(
      `state: Redis at ${state.where} is unreachable (${state.fault}); 2025-era requests get 503 until it answers`,
    );
  // The limits per caller count in the same Redis, so that every replica enforces one number.
  const { RedisLimitStore } = await import('../governance/limits/redis-store.js');
  installLimitStore(new RedisLimitStore(state));
  return state;
}

/** Names a reload's change the same way on every replica serving the same manifest. */
function listDigest(catalog: Catalog, categories: ReadonlySet<ListCategory>): string {
  const lists = {
    tools: [...catalog.tools.values()].map((t) => t.descriptor),
    prompts: [...catalog.prompts.values()].map((p) => p.descriptor),
    resources: [[...catalog.resources.keys()], catalog.templates.length],
  };
  const picked = [...categories].sort().map((c) => [c, lists[c]]);
  return digest(JSON.stringify(picked));
}

const digest = (text: string): string =>
  nodeCrypto().createHash('sha256').update(text).digest('base64url').slice(0, 22);

/** `--metrics <port>`: the ops endpoints on a port of their own. */
async function serveOpsPort(...args: Parameters<typeof import('../ops/routes.js').serveOps>) {
  const { serveOps } = await import('../ops/routes.js');
  return serveOps(...args);
}

/** The ops endpoints; `metricsPath` undefined: the metrics are not served by this server. */
async function route(
  ops: Ops,
  ref: CatalogRef,
  log: StderrLogger,
  metricsPath: string | undefined,
  serving: () => boolean = () => true,
): Promise<OpsRoute> {
  const { opsRoutes } = await import('../ops/routes.js');
  return opsRoutes({
    sources: ops.sources,
    // The ref exists only once a catalog compiled; shutting down makes the server not ready.
    loaded: () => serving() && ref.current !== undefined,
    ...(ops.metrics && { metrics: ops.metrics }),
    ...(metricsPath !== undefined && { metricsPath }),
    ...(ops.state && { state: ops.state }),
    ...(ops.link && { whole: () => (ops.link as WorkerLink).unready() }),
    redact: (text) => log.redact(text),
  });
}

/**
 * `--workers` without `--state`: the state and the limits' counts are the primary's, reached over
 * IPC, so that sessions, tasks and limits span the workers as they span replicas with Redis.
 */
async function workersState(link: WorkerLink): Promise<SharedState> {
  const [{ IpcState }, { IpcLimitStore }] = await Promise.all([
    import('../state/ipc.js'),
    import('../governance/limits/ipc-store.js'),
  ]);
  installLimitStore(new IpcLimitStore(link.client));
  return new IpcState(link.client);
}

/**
 * `--workers`: the primary watches and tells; this worker reloads on its word (each worker builds
 * its own catalog from the same files, so all come to the same outcome), and reports the files of
 * each new catalog back for the primary to watch.
 */
function followPrimary(link: WorkerLink, reloader: Reloader, log: StderrLogger): void {
  link.watch(reloader.watchedFiles());
  link.onReload((order) => {
    const run = order.force
      ? reloader.reload()
      : reloader.changed(order.paths ?? [], order.structural ?? false);
    run.then(
      (outcome) => {
        if (outcome === 'reloaded') link.watch(reloader.watchedFiles());
      },
      (err: Error) => log.debug(`reload on the primary's word: ${err.message}`),
    );
  });
}
