/**
 * Resumable SSE streams of one 2025-era session (2025-11-25 transports, "Resumability and
 * Redelivery"). Each POST reply that turns into a stream, and each GET stream, is a *logical* stream
 * with its own key; its events carry ids `<key>/<seq>`, unique across the session's streams, so a
 * GET with `Last-Event-ID` names the stream to continue and the point to continue from. Only that
 * stream's later events are replayed, never another stream's.
 *
 * A logical stream outlives its HTTP response: when the connection drops (the client's network, or
 * the server closing it early to make the client poll), its events keep being recorded, and a
 * resume replays what the client missed and then carries the rest live. A POST stream is finished
 * once its response was recorded; resuming it replays up to that response and closes, so the result
 * of a dropped call reaches the client exactly once however the drop and the result interleave.
 *
 * Bounds: a stream keeps at most `events` events and `bytes` bytes of them (oldest dropped first,
 * the newest always kept, so a large result stays deliverable); a session keeps at most `streams`
 * streams that nobody is connected to and that can hold nothing new (finished POST streams and
 * disconnected GET streams), oldest evicted first. A POST stream whose call is still running is
 * never evicted: it is bounded by the session's requests in flight.
 *
 * Version rules: every 2025-era session gets event ids (resumability exists since 2025-03-26). Only
 * sessions that negotiated 2025-11-25 or later are *primed*: a new stream starts with an event that
 * has an id and empty data, plus `retry:`, and only they are closed early for polling. A client of
 * an older revision may read an empty-data event as a malformed message, and it was never told it
 * may resume a POST stream with a GET, so it gets neither.
 *
 * Unsolicited messages (list_changed, resources/updated) go to one open GET stream, the most
 * recently opened, never to several; with none open they are recorded on the newest GET stream, so
 * a client resuming it gets them, and dropped when the session has no GET stream at all.
 */
import type { ServerResponse } from 'node:http';
import { errorResponse, type RequestId } from '../../protocol/jsonrpc.js';
import { serializeMessage } from '../../protocol/results.js';
import type { LogRead } from '../../state/shared.js';
import { processGoneError } from '../drain.js';
import { SseStream } from './sse.js';

export interface ReplayLimits {
  /** Events one stream keeps for replay. */
  readonly events: number;
  /** Bytes of events one stream keeps (the newest event is kept whatever its size). */
  readonly bytes: number;
  /** Streams a session keeps that nobody is connected to and that can hold nothing new. */
  readonly streams: number;
}

export interface StreamOptions {
  readonly keepAliveMs: number;
  /** The `retry:` value sent with priming and before a polling close. */
  readonly retryMs: number;
  /** A primed POST stream whose call is still running this long is closed for polling; 0 never. */
  readonly pollMs: number;
  readonly limits: ReplayLimits;
}

/**
 * With `--state`: where a session's stream events live, so that any replica can replay and carry a
 * stream (shared-sessions.ts). Events are appended there first and written to the connection after,
 * in order; a replica carrying a stream it did not open reads what others append when `poke`d.
 */
export interface StreamLog {
  /** Starts stream keys, so that keys are unique across replicas: [0-9a-z], fixed length. */
  readonly tag: string;
  /**
   * `lost`: the event that ends the stream should this process go away before it does (a POST
   * stream's error response), written by a store that sees it go (state/epitaphs.ts).
   */
  create(key: string, kind: 'post' | 'get', lost?: string): Promise<void>;
  append(key: string, data: string): Promise<number>;
  read(key: string, afterSeq: number): Promise<LogRead | undefined>;
  close(key: string): Promise<void>;
  /** Tells the replicas that `key` has events up to `seq` (-1: it closed). */
  announce(key: string, seq: number): void;
  /** A GET stream was opened or resumed: unsolicited messages go to it from now on. */
  newestGet(key: string): void;
  /** An append failed (the store is unreachable): the event went out live only. */
  failed(key: string, err: unknown): void;
}

export const REPLAY_DEFAULTS: ReplayLimits = { events: 1000, bytes: 1024 * 1024, streams: 8 };

/** The first revision whose clients are primed and polled. */
const PRIMING_VERSION = '2025-11-25';

/** What an HttpReply writes to: a plain SSE stream (2026) or a session's resumable one (2025). */
export interface MessageStream {
  send(message: object): void;
  end(): void;
}

interface Kept {
  readonly seq: number;
  readonly frame: string;
  readonly bytes: number;
}

export class ResumableStream implements MessageStream {
  private seq = 0;
  private readonly kept: Kept[] = [];
  private bytes = 0;
  private out: SseStream | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  /** A POST stream is finished once its response (or its silent end) was recorded. */
  finished = false;
  /** Shared (`--state`): the last sequence number written to the current connection. */
  private written = 0;
  /** Shared: appends, reads and closes of this stream, in order. */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    readonly key: string,
    readonly kind: 'post' | 'get',
    private readonly owner: SessionStreams,
  ) {}

  get connected(): boolean {
    return this.out?.open === true;
  }

  /** Nobody is connected and nothing new can arrive for the client on it. */
  get evictable(): boolean {
    return !this.connected && (this.finished || this.kind === 'get');
  }

  send(message: object): void {
    if (this.finished) return;
    const log = this.owner.log;
    if (log !== undefined) {
      const data = serializeMessage(message);
      this.queue(async () => {
        let seq: number;
        try {
          seq = await log.append(this.key, data);
        } catch (err) {
          log.failed(this.key, err);
          this.out?.write(`event: message\ndata: ${data}\n\n`);
          return;
        }
        this.seq = seq;
        if (this.out !== undefined && seq === this.written + 1) {
          this.out.write(`id: ${this.key}/${seq}\nevent: message\ndata: ${data}\n\n`);
          this.written = seq;
        } else await this.pull();
        log.announce(this.key, seq);
      });
      return;
    }
    this.seq++;
    const frame = `id: ${this.key}/${this.seq}\nevent: message\ndata: ${serializeMessage(message)}\n\n`;
    this.keep({ seq: this.seq, frame, bytes: Buffer.byteLength(frame) });
    this.out?.write(frame);
  }

  /** The POST's response was recorded: the stream ends, and a resume replays up to it and closes. */
  end(): void {
    if (this.finished) return;
    this.finished = true;
    const log = this.owner.log;
    if (log !== undefined) {
      this.queue(async () => {
        await log.close(this.key).catch((err: unknown) => log.failed(this.key, err));
        log.announce(this.key, -1);
        this.disconnect();
        this.owner.trim();
      });
      return;
    }
    this.disconnect();
    this.owner.trim();
  }

  /** Shared: another replica appended up to `seq` (-1: closed); a connection here reads it. */
  poke(seq: number): void {
    if (this.out === undefined || (seq >= 0 && seq <= this.written)) return;
    this.queue(() => this.pull());
  }

  /** Shared: runs `step` after everything queued before it. */
  private queue(step: () => Promise<void>): void {
    this.chain = this.chain.then(step).catch(() => {});
  }

  /** Shared: writes what the log holds beyond `written`; a closed log ends the connection. */
  private async pull(): Promise<void> {
    const log = this.owner.log;
    const out = this.out;
    if (log === undefined || out === undefined) return;
    let read: LogRead | undefined;
    try {
      read = await log.read(this.key, this.written);
    } catch (err) {
      log.failed(this.key, err);
      return;
    }
    if (read === undefined) return;
    for (const { seq, item } of read.items) {
      out.write(`id: ${this.key}/${seq}\nevent: message\ndata: ${item}\n\n`);
      this.written = seq;
    }
    this.seq = Math.max(this.seq, read.last);
    if (read.closed) {
      this.finished = true;
      if (this.out === out) this.disconnect();
    }
  }

  /**
   * Carries the stream on `res` from now on: replays the kept events after `afterSeq`, then either
   * closes (a finished stream) or stays attached for what comes next. A previous connection, if
   * any, is closed: the client resumed because it no longer reads it.
   */
  attach(res: ServerResponse, afterSeq: number | undefined): void {
    this.disconnect();
    const out = new SseStream(res, this.owner.options.keepAliveMs);
    this.out = out;
    if (this.owner.log !== undefined) {
      if (afterSeq === undefined && this.owner.priming)
        out.write(`id: ${this.key}/0\nretry: ${this.owner.options.retryMs}\ndata: \n\n`);
      this.written = afterSeq ?? this.seq;
      if (afterSeq !== undefined) this.queue(() => this.pull());
      res.once('close', () => {
        if (this.out === out) this.out = undefined;
        this.owner.trim();
      });
      return;
    }
    if (afterSeq === undefined) {
      if (this.owner.priming)
        out.write(`id: ${this.key}/0\nretry: ${this.owner.options.retryMs}\ndata: \n\n`);
    } else {
      for (const event of this.kept) if (event.seq > afterSeq) out.write(event.frame);
    }
    if (this.finished) {
      this.disconnect();
      return;
    }
    res.once('close', () => {
      if (this.out === out) this.out = undefined;
      this.owner.trim();
    });
  }

  /**
   * Polling (2025-11-25): closes a POST stream whose call is still running after `pollMs`, telling
   * the client with `retry:` when to resume it. Only the first connection is polled.
   */
  pollAfter(ms: number): void {
    if (ms <= 0 || !this.owner.priming || this.kind !== 'post') return;
    this.pollTimer = setTimeout(() => {
      if (this.finished || !this.connected) return;
      this.out?.write(`retry: ${this.owner.options.retryMs}\n\n`);
      this.disconnect();
    }, ms);
    this.pollTimer.unref();
  }

  /** Shared: the log is being created; appends wait for it. */
  created(creating: Promise<void>): void {
    const log = this.owner.log;
    this.queue(() => creating.catch((err: unknown) => log?.failed(this.key, err)));
  }

  /** Whether `seq` lies inside what was sent on this stream. */
  knows(seq: number): boolean {
    return seq >= 0 && seq <= this.seq;
  }

  /** Closes the HTTP response, not the logical stream. */
  disconnect(): void {
    clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    this.out?.end();
    this.out = undefined;
  }

  private keep(event: Kept): void {
    const { events, bytes } = this.owner.options.limits;
    this.kept.push(event);
    this.bytes += event.bytes;
    while (this.kept.length > 1 && (this.kept.length > events || this.bytes > bytes)) {
      const dropped = this.kept.shift() as Kept;
      this.bytes -= dropped.bytes;
    }
  }
}

/** Why a resume was refused. */
export type ResumeFault = 'malformed' | 'unknown';

export class SessionStreams {
  /** Prime and poll this session's streams: it negotiated 2025-11-25 or later. */
  priming = false;
  private next = 0;
  /** In opening order. */
  private readonly streams = new Map<string, ResumableStream>();

  constructor(
    readonly options: StreamOptions,
    /** With `--state`: the shared event log of this session's streams. */
    readonly log?: StreamLog,
  ) {}

  /** The negotiated version decides priming and polling. */
  negotiated(version: string): void {
    this.priming = version >= PRIMING_VERSION;
  }

  /** A POST reply turning into a stream on `res` (primed when the session is). */
  openPost(res: ServerResponse, id?: RequestId): ResumableStream {
    const stream = this.create(
      'post',
      id === undefined ? undefined : serializeMessage(errorResponse(id, processGoneError())),
    );
    stream.attach(res, undefined);
    stream.pollAfter(this.options.pollMs);
    return stream;
  }

  /** A new GET stream: the newest one, where unsolicited messages go from now on. */
  openGet(res: ServerResponse): ResumableStream {
    const stream = this.create('get');
    stream.attach(res, undefined);
    this.log?.newestGet(stream.key);
    return stream;
  }

  /**
   * Shared (`--state`): continues the stream `Last-Event-ID` names, wherever it was opened, from
   * the shared log; or says why not.
   */
  async resumeShared(
    lastEventId: string,
    res: ServerResponse,
    log: StreamLog,
  ): Promise<ResumableStream | ResumeFault> {
    const found = /^([0-9a-z]+)\/(\d+)$/.exec(lastEventId.trim());
    if (found === null) return 'malformed';
    const key = found[1] as string;
    const seq = Number(found[2]);
    const read = await log.read(key, Number.MAX_SAFE_INTEGER);
    if (read === undefined || seq > read.last) return 'unknown';
    let stream = this.streams.get(key);
    if (stream === undefined) {
      stream = new ResumableStream(key, read.tag === 'post' ? 'post' : 'get', this);
      if (read.closed) stream.finished = true;
    }
    this.streams.delete(key);
    this.streams.set(key, stream);
    stream.attach(res, seq);
    if (stream.kind === 'get') log.newestGet(key);
    this.trim();
    return stream;
  }

  /** Shared: announcements may have been missed; each connection here reads what its log holds. */
  resync(): void {
    for (const stream of this.streams.values()) stream.poke(Number.MAX_SAFE_INTEGER);
  }

  /** Shared: another replica appended to `key`; a connection carrying it here reads on. */
  poke(key: string, seq: number): void {
    this.streams.get(key)?.poke(seq);
  }

  /** Continues the stream `Last-Event-ID` names on `res`, or says why not. */
  resume(lastEventId: string, res: ServerResponse): ResumableStream | ResumeFault {
    const found = /^([0-9a-z]+)\/(\d+)$/.exec(lastEventId.trim());
    if (found === null) return 'malformed';
    const stream = this.streams.get(found[1] as string);
    const seq = Number(found[2]);
    if (stream === undefined || !stream.knows(seq)) return 'unknown';
    // The resumed stream moves to the end: the newest GET stream is the one a client reads.
    this.streams.delete(stream.key);
    this.streams.set(stream.key, stream);
    stream.attach(res, seq);
    return stream;
  }

  /** An unsolicited message: on one GET stream (see the file comment); false when dropped. */
  notify(message: object): boolean {
    let newest: ResumableStream | undefined;
    let connected: ResumableStream | undefined;
    for (const stream of this.streams.values()) {
      if (stream.kind !== 'get') continue;
      newest = stream;
      if (stream.connected) connected = stream;
    }
    const target = connected ?? newest;
    target?.send(message);
    return target !== undefined;
  }

  /** Some client connection is open on this session (a GET stream, or a resumed POST stream). */
  get held(): boolean {
    for (const stream of this.streams.values()) if (stream.connected) return true;
    return false;
  }

  /** Evicts the oldest streams beyond the bound of those nobody needs right now. */
  trim(): void {
    let spare = 0;
    for (const stream of this.streams.values()) if (stream.evictable) spare++;
    if (spare <= this.options.limits.streams) return;
    for (const stream of [...this.streams.values()]) {
      if (spare <= this.options.limits.streams) return;
      if (!stream.evictable) continue;
      this.streams.delete(stream.key);
      spare--;
    }
  }

  /** The session ended: every connection closes, nothing is kept. */
  closeAll(): void {
    for (const stream of this.streams.values()) stream.disconnect();
    this.streams.clear();
  }

  private create(kind: 'post' | 'get', lost?: string): ResumableStream {
    const key = `${this.log?.tag ?? ''}${(this.next++).toString(36)}`;
    const stream = new ResumableStream(key, kind, this);
    if (this.log !== undefined) stream.created(this.log.create(key, kind, lost));
    this.streams.set(key, stream);
    this.trim();
    return stream;
  }
}
