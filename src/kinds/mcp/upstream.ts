/**
 * One upstream's life: connected on demand (or at once, `start: serve`), restarted with backoff
 * when it dies, at most `maxConcurrency` requests at once, and stopped for good by `dispose`.
 *
 * - A request waits for a start in progress (at most `connectTimeoutMs`); a start that fails fails
 *   the requests waiting for it with the reason, and the next request tries again once the backoff
 *   has passed (250 ms, doubling up to 30 s; back to 250 ms after 10 s up).
 * - When a running upstream dies, the requests in flight fail with a sentence that says so; with
 *   `start: serve` it is started again after the backoff, without waiting for a request.
 * - After `dispose`, every request fails at once and nothing is started again.
 */
import { escapeControls } from '../../util/escape-controls.js';
import { acquire, Slots } from '../../util/slots.js';
import type { Logger } from '../contract/kinds.js';
import { type Channel, type ChannelEvents, type ClientOptions, McpClient } from './client.js';
import type { Era } from './modern.js';

const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 30_000;
/** Up this long, an upstream's next death starts the backoff over. */
const STABLE_MS = 10_000;
/** How long a request waits for a place under `maxConcurrency`. */
const QUEUE_WAIT_MS = 5_000;

export interface UpstreamOptions {
  readonly name: string;
  /** Opens the channel (a process, an HTTP session) whose events go to `events`. */
  readonly connect: (events: ChannelEvents) => Promise<Channel>;
  readonly restartOnExit: boolean;
  readonly connectTimeoutMs: number;
  /** Which era to speak (modern.ts): stdio upstreams speak 2025. */
  readonly era: Era;
  readonly maxConcurrency: number;
  readonly maxResultBytes: number;
  readonly log: Logger;
  /** A `list_changed` notification from the running upstream. */
  readonly onListChanged?: (method: string) => void;
  /** `notifications/resources/updated` from the running upstream. */
  readonly onResourceUpdated?: (uri: string) => void;
  /** A start after the first (a restart, a new HTTP session): what the old one held is gone. */
  readonly onRestarted?: () => void;
  /** The source's `roots:`, answered by mcp-run to the upstream's `roots/list` (ClientOptions.roots). */
  readonly roots?: ClientOptions['roots'];
}

/**
 * A place among an upstream's `maxConcurrency` (waiting up to QUEUE_WAIT_MS); rejects with a
 * sentence for the model when none frees up or the call is cancelled.
 */
export async function placeIn(
  slots: Slots,
  signal: AbortSignal,
  name: string,
  maxConcurrency: number,
): Promise<{ release(): void }> {
  const place = await acquire([slots], { signal }, QUEUE_WAIT_MS);
  if ('refused' in place)
    throw new Error(
      place.refused === 'busy'
        ? `${name} is busy (${maxConcurrency} requests running); try again shortly`
        : 'the call was cancelled',
    );
  return place;
}

export class Upstream {
  private client: McpClient | undefined;
  private starting: Promise<McpClient> | undefined;
  private backoffMs = FIRST_BACKOFF_MS;
  private notBefore = 0;
  private startedAt = 0;
  private disposed = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly slots: Slots;
  /** Starts after the first, for metrics and the log. */
  restarts = 0;
  private everStarted = false;

  constructor(private readonly o: UpstreamOptions) {
    this.slots = new Slots(o.maxConcurrency);
  }

  /** A connected client: the running one, the one starting, or a new start. */
  connected(signal?: AbortSignal): Promise<McpClient> {
    if (this.disposed) return Promise.reject(new Error(`${this.o.name} has been shut down`));
    if (this.client?.alive) return Promise.resolve(this.client);
    // The start is shared by every caller waiting for it: one caller's cancellation only ends its
    // own wait (through `use`'s signal), not the start.
    if (signal?.aborted) return Promise.reject(new Error('the call was cancelled'));
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Runs `work` on a connected client within this upstream's concurrency limit. */
  async use<T>(signal: AbortSignal, work: (client: McpClient) => Promise<T>): Promise<T> {
    const place = await placeIn(this.slots, signal, this.o.name, this.o.maxConcurrency);
    try {
      return await work(await this.connected(signal));
    } finally {
      place.release();
    }
  }

  private async start(): Promise<McpClient> {
    const wait = this.notBefore - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (this.disposed) throw new Error(`${this.o.name} has been shut down`);
    if (this.everStarted) this.restarts++;
    this.everStarted = true;
    const client = new McpClient({
      name: this.o.name,
      maxResultBytes: this.o.maxResultBytes,
      ...(this.o.roots !== undefined && { roots: this.o.roots }),
      onLog: (level, data) => {
        const text = typeof data === 'string' ? data : JSON.stringify(data);
        const line = `${this.o.name} [${level}]: ${escapeControls(String(text).slice(0, 2000))}`;
        if (level === 'debug' || level === 'info' || level === 'notice') this.o.log.debug(line);
        else this.o.log.warn(line);
      },
      onListChanged: (method) => {
        // A client stopped or replaced (a restart) speaks no more for the upstream.
        if (this.client === client) this.o.onListChanged?.(method);
      },
      onResourceUpdated: (uri) => {
        if (this.client === client) this.o.onResourceUpdated?.(uri);
      },
    });
    const events: ChannelEvents = {
      message: client.events.message,
      closed: (reason) => {
        client.events.closed(reason);
        this.exited(client, reason);
      },
    };
    let channel: Channel | undefined;
    try {
      channel = await this.o.connect(events);
      // The handshake's own time limit is the start's: its message names what did not answer.
      await client.open(channel, this.o.era, this.o.connectTimeoutMs);
    } catch (err) {
      await client.close((err as Error).message).catch(() => {});
      this.failed();
      throw new Error(`${this.o.name} could not be started: ${(err as Error).message}`);
    }
    if (this.disposed) {
      await client.close(`${this.o.name} has been shut down`);
      throw new Error(`${this.o.name} has been shut down`);
    }
    this.client = client;
    this.startedAt = Date.now();
    if (this.restarts > 0) this.o.log.info(`${this.o.name} restarted (restart ${this.restarts})`);
    if (this.restarts > 0) this.o.onRestarted?.();
    return client;
  }

  /** The next start waits for the backoff, which doubles. */
  private failed(): void {
    this.notBefore = Date.now() + this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
  }

  private exited(client: McpClient, reason: string): void {
    if (this.client !== client || this.disposed) return;
    this.client = undefined;
    if (Date.now() - this.startedAt > STABLE_MS) this.backoffMs = FIRST_BACKOFF_MS;
    this.failed();
    this.o.log.warn(reason);
    if (!this.o.restartOnExit) return;
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(
      () => {
        this.connected().catch((err: Error) => this.o.log.warn(err.message));
      },
      Math.max(0, this.notBefore - Date.now()),
    );
    this.restartTimer.unref();
  }

  get running(): boolean {
    return this.client?.alive === true;
  }

  /** Places under maxConcurrency, busy or free, and the restarts, as pool figures for the metrics. */
  stats(): { total: number; idle: number; waiting: number; restarts: number } {
    const running = this.slots.active;
    return {
      total: this.o.maxConcurrency,
      idle: this.o.maxConcurrency - running,
      waiting: 0,
      restarts: this.restarts,
    };
  }

  /** Stops the running upstream on purpose (`start: first-use` after its lists are read): no backoff, no restart. */
  async stop(reason: string): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close(reason).catch(() => {});
  }

  /** Whether it answers now: a ping on the running client (for /readyz). */
  async ping(signal: AbortSignal): Promise<void> {
    const client = this.client;
    if (client === undefined || !client.alive) {
      if (this.starting) throw new Error(`${this.o.name} is starting`);
      throw new Error(`${this.o.name} is not running`);
    }
    await client.ping(signal);
  }

  /** Stops it for good: requests in flight fail, nothing starts again. Never throws. */
  async dispose(): Promise<void> {
    this.disposed = true;
    clearTimeout(this.restartTimer);
    const starting = this.starting?.catch(() => undefined);
    await this.client?.close(`${this.o.name} was shut down`).catch(() => {});
    const late = await starting;
    await late?.close(`${this.o.name} was shut down`).catch(() => {});
  }
}
