/**
 * `--workers N|auto` with `--http`: one mcp-run on every core. The primary process forks N workers
 * (node:cluster) that serve the same port, each the normal HTTP serve path (serve.ts); the primary
 * serves no MCP itself. It holds what must be one per server (docs/scaling.md#workers):
 *
 * - without `--state`, the shared state and the limits' counts the workers reach over IPC
 *   (state/ipc.ts, governance/limits/ipc-store.ts); with `--state redis://…` the workers use Redis
 *   directly, as replicas do;
 * - the one watcher of the manifest: it tells every worker what changed, and each reloads (the
 *   workers watch nothing), so a reload is one event; SIGHUP reloads every worker;
 * - the 2026 `requestState` key: one random key handed to every worker when MCP_RUN_STATE_KEY is
 *   not set, so any worker accepts what another signed;
 * - the whole server's readiness (every worker up) and the sum of the workers' metrics;
 * - `server.audit`'s one writer and hash chain (governance/audit/ipc-writer.ts): opened with the
 *   first worker's settings, closed after the last worker has exited.
 *
 * The first worker starts alone: a manifest with errors is reported once, and the server exits with
 * its code. A worker that dies later is forked again (100 ms, doubling up to 5 s while they keep
 * dying); the calls it was running lose their connection, so their clients see an error. SIGTERM
 * or SIGINT drains every worker (each its own drain), then the primary exits.
 */
import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import type { FSWatcher } from 'chokidar';
import { symlinksOf } from '../catalog/reload.js';
import { hostAudit } from '../governance/audit/ipc-writer.js';
import { hostLimits } from '../governance/limits/ipc-store.js';
import { type LogFormat, type LogThreshold, StderrLogger } from '../log.js';
import { installOpsHooks, NO_CALL } from '../ops/hooks.js';
import { STATE_KEY_ENV } from '../protocol/request-state.js';
import { hostEpitaphs } from '../state/epitaphs.js';
import { hostState } from '../state/ipc.js';
import { MemoryState } from '../state/memory.js';
import { FILE_EVENTS_DEBOUNCE_MS, FileEventBurst } from '../util/file-events.js';
import { type IpcMessage, type IpcPeer, IpcRooms } from '../util/ipc.js';
import { AUDIT_ENV } from './worker-link.js';

/** The environment a worker is started with: its slot (1…N) and the number of workers. */
export const WORKER_ENV = 'MCP_RUN_WORKER';
export const WORKERS_ENV = 'MCP_RUN_WORKERS';

/** What the primary needs of the serve options. */
export interface PrimaryOptions {
  readonly workers: number;
  readonly logLevel: LogThreshold;
  readonly logFormat?: LogFormat;
  readonly watch: boolean;
  readonly state?: string;
  readonly metrics?: string | boolean;
}

const RESTART_FIRST_MS = 100;
const RESTART_MAX_MS = 5000;
/** A worker that lived this long resets the restart backoff. */
const STABLE_MS = 10_000;
/** How long the drain of every worker may take before the ones left are killed. */
const DRAIN_MAX_MS = 30_000;

interface Slot {
  readonly slot: number;
  worker: Worker;
  /** Its HTTP server is listening. */
  listening: boolean;
  started: number;
  /** Deaths in a row that came before STABLE_MS. */
  failures: number;
}

export async function runPrimary(file: string, options: PrimaryOptions): Promise<void> {
  const log = new StderrLogger(options.logLevel, undefined, options.logFormat ?? 'text');
  const n = options.workers;
  const rooms = new IpcRooms();
  const audit = hostAudit(rooms, log);
  const hosted = [
    ...(options.state === undefined ? hostMemory(rooms) : []),
    ...(await hostRedis(rooms, options.state, log)),
    audit,
  ];
  const slots = new Map<number, Slot>();
  const bySlotId = new Map<number, Slot>();
  const metrics = options.metrics ? await primaryMetrics(slots) : undefined;
  const stateKey = process.env[STATE_KEY_ENV] || randomBytes(32).toString('hex');
  let url: string | undefined;
  let stopping = false;
  let restarts = 0;
  /** The first worker listens: what it decided (the audit trail) holds for every worker after it. */
  let firstStarted = false;
  const relay = options.watch
    ? new WatchRelay(resolve(file), log, (data) => broadcast('reload', data))
    : undefined;

  const peerOf = (worker: Worker): IpcPeer => ({
    id: worker.id,
    send: (message: IpcMessage) => {
      if (!worker.isConnected()) return;
      try {
        worker.send(message, undefined, undefined, () => {});
      } catch {
        // The worker is going away: its exit is handled below.
      }
    },
  });
  const broadcast = (room: string, data: unknown) => {
    for (const { worker } of slots.values()) peerOf(worker).send({ mcpRun: 'push', room, data });
  };

  rooms.handle('ops', (peer, op, args) => {
    const slot = bySlotId.get(peer.id);
    if (op === 'listening') {
      if (slot !== undefined) slot.listening = true;
      url ??= args[0] as string;
      return undefined;
    }
    if (op === 'watch') {
      relay?.watch(args[0] as string[]);
      return undefined;
    }
    if (op === 'ready') return { up: [...slots.values()].filter((s) => s.listening).length, want: n };
    if (op === 'metrics') return metrics?.text(restarts) ?? '';
    throw new Error(`no ops operation ${op}`);
  });
  cluster.on('message', (worker, message) => rooms.receive(peerOf(worker), message));

  const fork = (slot: number, failures = 0): Slot => {
    const worker = cluster.fork({
      [WORKER_ENV]: String(slot),
      [WORKERS_ENV]: String(n),
      [STATE_KEY_ENV]: stateKey,
      // The first worker decides whether the server keeps an audit trail; the others follow it.
      [AUDIT_ENV]: firstStarted ? (audit.open ? 'on' : 'off') : '',
    });
    const entry: Slot = { slot, worker, listening: false, started: Date.now(), failures };
    slots.set(slot, entry);
    bySlotId.set(worker.id, entry);
    return entry;
  };
  /** Resolves once the slot's worker listens; rejects with its exit code when it exits first. */
  const listening = (entry: Slot) =>
    new Promise<void>((ok, fail) => {
      const check = setInterval(() => {
        if (entry.listening) {
          clearInterval(check);
          ok();
        }
      }, 20);
      entry.worker.once('exit', (code, signal) => {
        clearInterval(check);
        fail(code ?? (signal ? 1 : 0));
      });
    });

  const stop = async (signal: NodeJS.Signals, code = 0) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}: draining ${slots.size} worker(s)`);
    await relay?.close();
    const exits = [...slots.values()].map(({ worker }) => gone(worker));
    for (const { worker } of slots.values()) if (!worker.isDead()) worker.process.kill('SIGTERM');
    const late = setTimeout(() => {
      for (const { worker } of slots.values()) if (!worker.isDead()) worker.process.kill('SIGKILL');
    }, DRAIN_MAX_MS);
    await Promise.all(exits);
    clearTimeout(late);
    // Every worker's records are in: the trail's last ones, then its `close` record.
    await audit.close();
    process.exit(code);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  process.on('SIGHUP', () => broadcast('reload', { force: true }));

  // The first worker alone: a manifest with errors (or a port taken) is reported once.
  try {
    await listening(fork(1));
  } catch (code) {
    if (stopping) return;
    await audit.close();
    process.exit(code as number);
  }
  firstStarted = true;
  const rest = [];
  for (let slot = 2; slot <= n; slot++) rest.push(listening(fork(slot)));
  const started = await Promise.allSettled(rest);
  const failed = started.find((s) => s.status === 'rejected');
  if (failed !== undefined && !stopping) {
    log.error('a worker exited while starting; stopping the others');
    await stop('SIGTERM', 1);
    return;
  }
  if (stopping) return;

  cluster.on('exit', (worker, code, signal) => {
    const entry = bySlotId.get(worker.id);
    bySlotId.delete(worker.id);
    for (const host of hosted) host.forget(worker.id);
    if (stopping || entry === undefined || slots.get(entry.slot)?.worker !== worker) return;
    const failures = Date.now() - entry.started < STABLE_MS ? entry.failures + 1 : 0;
    const wait = Math.min(RESTART_MAX_MS, RESTART_FIRST_MS * 2 ** Math.max(0, failures - 1));
    entry.listening = false;
    restarts++;
    log.warn(
      `worker ${entry.slot} (pid ${worker.process.pid}) exited (${signal ?? `code ${code}`}); its calls in flight lost their connection; starting it again in ${wait} ms`,
    );
    setTimeout(() => {
      if (!stopping) fork(entry.slot, failures);
    }, wait);
  });
  log.info(`${n} workers serve the port (primary pid ${process.pid})`);
  log.info(`listening on ${url}`);
}

/** Without `--state`: the state and the limits' counts of every worker, and their epitaphs. */
function hostMemory(rooms: IpcRooms): Host[] {
  const memory = new MemoryState();
  const state = hostState(rooms, memory);
  const graveyard = {
    logRead: memory.logRead.bind(memory),
    logAppend: memory.logAppend.bind(memory),
    logClose: memory.logClose.bind(memory),
    publish: state.publish,
  };
  return [state, hostLimits(rooms), hostEpitaphs(rooms, graveyard, () => {})];
}

/** With `--state redis://…`: the primary's own connection, to end the streams of a worker killed mid-call. */
async function hostRedis(rooms: IpcRooms, url: string | undefined, log: StderrLogger): Promise<Host[]> {
  if (url === undefined) return [];
  const { RedisState } = await import('../state/redis.js');
  let redis: InstanceType<typeof RedisState>;
  try {
    const password = new URL(url).password;
    if (password) log.addSecrets([decodeURIComponent(password)]);
    redis = new RedisState(url, log);
  } catch {
    // A bad URL: the first worker says so, and the server exits with it.
    return [];
  }
  void redis.connect();
  return [hostEpitaphs(rooms, redis, (message) => log.warn(`state: ${message}`))];
}

interface Host {
  forget(peer: number): void;
}

/** How long, after a worker exited, the primary waits for the end of its channel. */
const CHANNEL_END_MS = 2000;

/**
 * Resolves once the worker has exited and its channel is read to the end (its last messages, such
 * as audit records, handled). The end is awaited a bounded time: a process the worker started and
 * that outlived it may hold the channel open.
 */
async function gone(worker: Worker): Promise<void> {
  const closed = worker.isConnected() ? new Promise((done) => worker.once('disconnect', done)) : undefined;
  if (!worker.isDead()) await new Promise((done) => worker.once('exit', done));
  if (closed !== undefined)
    await Promise.race([closed, new Promise((done) => setTimeout(done, CHANNEL_END_MS).unref())]);
}

/**
 * The one watcher of `--workers`: the manifest, the files the workers report their catalog was built
 * from, and the manifest's folder for swapped symlinks (a Kubernetes ConfigMap). A burst of events
 * is debounced into one, handed to every worker as `{ paths, structural }`.
 */
class WatchRelay {
  private watcher: FSWatcher | undefined;
  private linkWatcher: FSWatcher | undefined;
  private files = new Set<string>();
  private readonly burst: FileEventBurst;
  private starting: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly log: StderrLogger,
    private readonly tell: (data: { paths: string[]; structural: boolean }) => void,
  ) {
    this.burst = new FileEventBurst(FILE_EVENTS_DEBOUNCE_MS, (paths, structural) =>
      this.tell({ paths: [...paths], structural }),
    );
  }

  /** The files of the workers' current catalog (each reload reports them again). */
  watch(files: readonly string[]): void {
    const next = new Set([this.file, ...files]);
    const added = [...next].filter((f) => !this.files.has(f));
    const removed = [...this.files].filter((f) => !next.has(f));
    this.files = next;
    if (this.watcher !== undefined) {
      if (added.length) this.watcher.add(added);
      if (removed.length) this.watcher.unwatch(removed);
      return;
    }
    this.starting ??= this.start();
  }

  private async start(): Promise<void> {
    const { watch } = await import('chokidar');
    if (this.closed) return;
    const watcher = watch([...this.files], { ignoreInitial: true });
    this.watcher = watcher;
    watcher.on('all', (event, path) => this.onEvent(event, path));
    watcher.on('error', (err) => this.log.warn(`watcher: ${(err as Error).message}`));
    // An edit made between the workers' load and the watcher's first report: each worker compares
    // the manifest's digest with its own and reloads only if it changed.
    watcher.once('ready', () => this.onEvent('change', this.file));
    const links = symlinksOf(this.file);
    if (links.size > 0) {
      this.linkWatcher = watch(dirname(this.file), { ignoreInitial: true, depth: 0, followSymlinks: false });
      this.linkWatcher.on('all', (_event, path) => {
        if (links.has(resolve(path))) this.onEvent('add', this.file);
      });
      this.linkWatcher.on('error', (err) => this.log.warn(`watcher: ${(err as Error).message}`));
    }
  }

  private onEvent(event: string, path: string): void {
    this.burst.add(event, path);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.burst.cancel();
    await this.starting;
    await this.watcher?.close();
    await this.linkWatcher?.close();
  }
}

/**
 * `--metrics`: every worker's, by prom-client's cluster aggregation (the server's totals added up,
 * each worker's own levels kept apart by their `worker` label: ops/metrics.ts), and the primary's own.
 */
async function primaryMetrics(
  slots: Map<number, Slot>,
): Promise<{ text(restarts: number): Promise<string> }> {
  const client = (await import('prom-client')).default;
  const { AUDIT_SINK_ERRORS } = await import('../ops/metrics.js');
  const aggregator = new client.AggregatorRegistry();
  const own = new client.Registry();
  const up = new client.Gauge({
    name: 'mcp_run_workers',
    help: 'Workers of this server by state (up: listening; configured: --workers).',
    labelNames: ['state'] as const,
    registers: [own],
  });
  const restartsTotal = new client.Gauge({
    name: 'mcp_run_worker_restarts_total',
    help: 'Workers that exited and were started again since the server started.',
    registers: [own],
  });
  // The audit trail's sink is the primary's (governance/audit/ipc-writer.ts): so are its failures.
  const sinkErrors = new client.Counter({ ...AUDIT_SINK_ERRORS, registers: [own] });
  installOpsHooks({
    toolCall: () => NO_CALL,
    reload() {},
    auditSinkError: (sink) => sinkErrors.inc({ sink }),
  });
  return {
    async text(restarts) {
      up.set({ state: 'up' }, [...slots.values()].filter((s) => s.listening).length);
      up.set({ state: 'configured' }, slots.size);
      restartsTotal.set(restarts);
      const [sum, mine] = await Promise.all([aggregator.clusterMetrics(), own.metrics()]);
      return `${sum.trimEnd()}\n${mine}`;
    },
  };
}
