/**
 * The audit trail of `--workers`: one writer, one chain, owned by the primary process, so that N
 * workers never mean N chains or N writers (docs/scaling.md#workers).
 *
 * - Opening: each worker sends the primary its resolved `server.audit` (a relative `file` made
 *   absolute); the first opens the writer (the same AuditWriter: one `start` record, the primary's
 *   own writer name), later ones (a worker started again) are answered with what the primary
 *   opened, which they use: a `server.audit` changed since takes effect at the next start.
 * - Records: a worker encodes each record itself (under the primary writer's name) and sends the
 *   line as a one-way note; the primary seals and queues it. A worker's lines arrive in its order.
 * - Backpressure stays the server's: the primary pushes `over` when its queue passes the budget
 *   and `under` when it is back, and a worker's `admit` waits or refuses on that word. A worker's
 *   lines not yet out of the process (the IPC channel backed up) are bounded by the same budget.
 * - Nothing is dropped in silence: a line that cannot reach the primary (gone) goes to the
 *   worker's stderr, as the writer spills at shutdown.
 * - Shutdown: a worker's `close` waits for its lines to leave the process; the primary closes the
 *   writer (the `close` record) after every worker has exited and its channel is read to the end.
 */
import { resolve } from 'node:path';
import type { Logger } from '../../log.js';
import type { ServerAuditSection } from '../../manifest/types.js';
import { ops } from '../../ops/hooks.js';
import type { IpcClient, IpcPeer, IpcRooms } from '../../util/ipc.js';
import { settleWithin } from '../../util/with-timeout.js';
import { AuditTrail, auditedMethods, openAuditWriter, pressureOf, sinkKindOf } from './trail.js';
import { AuditBackpressure, type AuditWriter, type AuditWriting, type BackpressureChoice } from './writer.js';

const ROOM = 'audit';
/** How long a worker's `close` waits for its lines to leave the process before they go to stderr. */
const CLOSE_WAIT_MS = 10_000;
/** How long the primary's `close` waits for an open still in progress. */
const OPEN_WAIT_MS = 5000;

/** The primary's answer to `open`: the trail every worker writes to. */
interface Opened {
  readonly name: string;
  readonly include: readonly string[];
  readonly budgetBytes: number;
  readonly onBackpressure: BackpressureChoice;
  /** The primary's queue is over its budget right now. */
  readonly over: boolean;
  /** This worker's `server.audit` is not the one the primary opened (a reload since the start). */
  readonly changed: boolean;
}

/** What the primary pushes: its queue went over its budget, or back under it. */
interface Pressure {
  readonly over: boolean;
}

export interface WorkerTrailOptions {
  readonly client: IpcClient;
  /** The manifest's folder: a relative `file` is relative to it. */
  readonly base: string;
  readonly log: Logger;
  readonly secret: (text: string) => string;
}

/**
 * A worker's trail: the primary opens (or already has) the writer, and this one sends it the
 * records. `settings` undefined: this worker's manifest no longer has `server.audit` (removed since
 * the server started), and it writes to the trail the primary keeps all the same.
 */
export async function openWorkerTrail(
  settings: ServerAuditSection | undefined,
  options: WorkerTrailOptions,
): Promise<AuditTrail> {
  const resolved =
    settings?.file === undefined ? settings : { ...settings, file: resolve(options.base, settings.file) };
  // Listening before asking: a word of pressure can arrive before the answer is handled, and any
  // word is newer than the state the answer carries.
  let writer: IpcAuditWriter | undefined;
  let latest: boolean | undefined;
  options.client.onPush(ROOM, (data) => {
    const { over } = data as Pressure;
    if (writer === undefined) latest = over;
    else writer.pressure(over);
  });
  const opened = await options.client.call<Opened>(ROOM, 'open', [resolved ?? null]);
  if (opened.changed)
    options.log.warn(
      `audit: server.audit changed since the server started; the primary keeps writing the trail it opened then (writer ${opened.name}) until the next start`,
    );
  writer = new IpcAuditWriter(options.client, { ...opened, over: latest ?? opened.over }, options.log);
  return new AuditTrail(writer, opened.include, options.secret);
}

/** The writer as a worker sees it: the primary's, reached over IPC. */
export class IpcAuditWriter implements AuditWriting {
  readonly name: string;
  private readonly budgetBytes: number;
  private readonly choice: BackpressureChoice;
  private primaryOver: boolean;
  /** Lines sent whose message has not left this process yet, by number, with their size in bytes. */
  private readonly sending = new Map<number, { readonly body: string; readonly bytes: number }>();
  private sendingBytes = 0;
  private next = 0;
  private waiters: (() => void)[] = [];
  private idle: (() => void)[] = [];
  /** The channel is backed up beyond the budget: since when, and what it cost (logged when it clears). */
  private backlog: { since: number; blocked: number; refused: number; unrecorded: number } | undefined =
    undefined;
  private closing: Promise<void> | undefined = undefined;
  /** The worker's drain is over: a record that comes now goes to stderr (nothing would send it). */
  private closed = false;

  constructor(
    private readonly client: IpcClient,
    opened: Opened,
    private readonly log: Logger,
  ) {
    this.name = opened.name;
    this.budgetBytes = opened.budgetBytes;
    this.choice = opened.onBackpressure;
    this.primaryOver = opened.over;
    client.onLost(() => {
      // The primary is gone, and its writer with it: what was on its way goes to stderr.
      this.primaryOver = false;
      this.spill('the primary process is gone');
    });
    // A cluster worker exits as soon as its channel closes, before onLost's listeners run: what
    // had not left the process goes to stderr then (written synchronously to a pipe or a file).
    process.once('exit', () => this.spill('this worker is exiting'));
  }

  /** The primary's word: its queue went over the budget, or back under it. */
  pressure(over: boolean): void {
    this.primaryOver = over;
    this.released();
  }

  /** As AuditWriter.admit: the primary's queue, or this worker's unsent lines, over the budget. */
  admit(): Promise<void> | undefined {
    if (this.closing !== undefined || !this.client.connected) return undefined;
    const backedUp = this.sendingBytes >= this.budgetBytes;
    if (!this.primaryOver && !backedUp) return undefined;
    ops.auditPressure(this.choice);
    if (backedUp) this.countBacklog(this.choice === 'refuse' ? 'refused' : 'blocked');
    // Counted in the primary's episode and its `backpressure` record.
    if (this.primaryOver) this.client.note(ROOM, 'held', []);
    if (this.choice === 'refuse') throw new AuditBackpressure();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  append(body: string): void {
    this.send('append', body);
  }

  /** As AuditWriter.appendRefused: past twice the budget unsent, a refused request is only counted. */
  appendRefused(body: string): void {
    if (this.sendingBytes >= 2 * this.budgetBytes && this.client.connected) {
      this.countBacklog('unrecorded');
      return;
    }
    this.send('appendRefused', body);
  }

  /** Resolves once every line sent so far is written by the primary. */
  async flush(): Promise<void> {
    await this.sent();
    try {
      await this.client.call(ROOM, 'flush', []);
    } catch {
      // The primary is gone: what it had not written is gone with it.
    }
  }

  /** Waits for this worker's lines to leave the process (the primary closes the writer itself). */
  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    await settleWithin(this.sent(), CLOSE_WAIT_MS);
    this.spill(`they did not leave this worker within ${CLOSE_WAIT_MS} ms of shutdown`);
    this.closed = true;
    for (const resolve of this.waiters.splice(0)) resolve();
  }

  private send(op: 'append' | 'appendRefused', body: string): void {
    if (this.closed || !this.client.connected) {
      this.toStderr(
        [body],
        this.closed ? "it came after this worker's trail closed" : 'the primary process is gone',
      );
      return;
    }
    const id = this.next++;
    const bytes = Buffer.byteLength(body);
    this.sending.set(id, { body, bytes });
    this.sendingBytes += bytes;
    this.client.note(ROOM, op, [body], (err) => {
      if (!this.sending.delete(id)) return; // spilled already
      this.sendingBytes -= bytes;
      if (err !== null) this.toStderr([body], `it could not be sent to the primary process (${err.message})`);
      this.released();
    });
  }

  private countBacklog(what: 'blocked' | 'refused' | 'unrecorded'): void {
    if (this.backlog === undefined) {
      this.backlog = { since: Date.now(), blocked: 0, refused: 0, unrecorded: 0 };
      this.log.warn(
        `audit: the channel to the primary process is backed up (${this.sendingBytes} bytes unsent); new requests ${this.choice === 'block' ? 'wait' : 'are refused'} until it clears`,
      );
    }
    this.backlog[what]++;
  }

  /** Lets waiting requests go once neither the primary nor the channel is over budget. */
  private released(): void {
    if (!this.primaryOver && this.sendingBytes < this.budgetBytes && this.waiters.length > 0) {
      const go = this.waiters;
      this.waiters = [];
      for (const resolve of go) resolve();
    }
    if (this.sending.size === 0) for (const resolve of this.idle.splice(0)) resolve();
    const backlog = this.backlog;
    if (backlog !== undefined && this.sendingBytes < this.budgetBytes / 2) {
      this.backlog = undefined;
      const { since, blocked, refused, unrecorded } = backlog;
      this.log.warn(
        `audit: the channel to the primary process cleared after ${Date.now() - since} ms; ${blocked} request(s) waited, ${refused} were refused${unrecorded === 0 ? '' : ` (${unrecorded} of them counted only, not recorded one by one)`}`,
      );
    }
  }

  /** Resolves once no line is waiting to leave the process. */
  private sent(): Promise<void> {
    if (this.sending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** The lines not yet out of the process go to stderr, unsealed (some may reach the chain too). */
  private spill(why: string): void {
    if (this.sending.size === 0) return;
    const left = [...this.sending.values()].map(({ body }) => body);
    this.sending.clear();
    this.sendingBytes = 0;
    this.toStderr(left, why);
    this.released();
  }

  private toStderr(bodies: readonly string[], why: string): void {
    this.log.error(
      `audit: ${bodies.length} record(s) may not reach the trail (${why}); they follow on stderr, unsealed`,
    );
    for (const body of bodies) {
      try {
        process.stderr.write(`${body}\n`);
      } catch {
        // stderr is gone too: there is nowhere left to put them.
      }
    }
  }
}

/**
 * The primary's side: the one writer, opened by the first worker's settings; every worker is told
 * when its queue goes over the budget and back. `close` after every worker has exited.
 */
export function hostAudit(
  rooms: IpcRooms,
  log: Logger,
): { forget(peer: number): void; readonly open: boolean; close(): Promise<void> } {
  const peers = new Map<number, IpcPeer>();
  let opening: Promise<AuditWriter> | undefined;
  let writer: AuditWriter | undefined;
  /** The settings the writer was opened with, and as JSON (to tell a worker whose differ). */
  let first: ServerAuditSection = {};
  let openedWith = '';
  let over = false;
  const open = async (settings: ServerAuditSection): Promise<AuditWriter> => {
    if (sinkKindOf(settings) === 'stderr')
      throw new Error(
        "server.audit with sink: stderr cannot be kept with --workers: the workers share the primary's stderr, and a line one of them logs could land inside a record; give it a `file` or `sink: otel`, or serve with one process",
      );
    const opened = await openAuditWriter(settings, {
      // A worker sends `file` absolute.
      base: process.cwd(),
      log,
      onPressure: (now) => {
        over = now;
        for (const peer of peers.values())
          peer.send({ mcpRun: 'push', room: ROOM, data: { over: now } satisfies Pressure });
      },
    });
    first = settings;
    openedWith = JSON.stringify(settings);
    writer = opened;
    log.debug(`audit trail open for every worker, writer ${opened.name}`);
    return opened;
  };
  /** A line that came without a writer to take it (none opened, or closed): to stderr, not lost. */
  const stray = (body: string) => {
    log.error(`audit: a record came with no trail open to take it: ${body}`);
  };
  rooms.handle(ROOM, async (peer, op, args) => {
    if (op === 'open') {
      const settings = args[0] as ServerAuditSection | null;
      if (settings === null && opening === undefined)
        throw new Error('no audit trail is open, and this worker has no server.audit to open one');
      opening ??= open(settings as ServerAuditSection);
      // A failed open is tried again by the next worker that asks (the first one's failure stops the server).
      const opened = await opening.catch((err: unknown) => {
        opening = undefined;
        throw err;
      });
      peers.set(peer.id, peer);
      return {
        name: opened.name,
        include: auditedMethods(first),
        ...pressureOf(first),
        over,
        changed: JSON.stringify(settings) !== openedWith,
      } satisfies Opened;
    }
    if (op === 'append' || op === 'appendRefused') {
      const body = args[0];
      // One JSON object on one line, as AuditRecord encodes it: anything else is not sealed.
      if (typeof body !== 'string' || !body.startsWith('{') || body.includes('\n'))
        log.error(
          `audit: a worker sent a record that is not one JSON line; not written: ${String(body).slice(0, 200)}`,
        );
      else if (writer === undefined) stray(body);
      else writer[op](body);
      return undefined;
    }
    if (op === 'held') {
      writer?.countHeld();
      return undefined;
    }
    if (op === 'flush') return writer?.flush();
    throw new Error(`no audit operation ${op}`);
  });
  return {
    forget(peer) {
      peers.delete(peer);
    },
    /** A worker has opened the trail (or is opening it): the server keeps one. */
    get open() {
      return opening !== undefined;
    },
    async close() {
      // An open that never finished (its `start` record retried on a full disk) does not hold the exit.
      if (writer === undefined && opening !== undefined)
        await settleWithin(
          opening.catch(() => undefined),
          OPEN_WAIT_MS,
        );
      await writer?.close();
    },
  };
}
