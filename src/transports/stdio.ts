/**
 * The stdio transport: newline-delimited JSON-RPC on stdin/stdout (digest §6.1). This file holds the
 * only writer to stdout in the whole program; every log line goes to the injected Logger (stderr).
 *
 * Framing works on bytes, not strings, so a multi-byte character split across two chunks is never
 * decoded half. A line longer than the limit is skipped as it streams in (its bytes are never kept)
 * and answered with -32600; the transport keeps serving. On stdin EOF or close() it drains (drain.ts):
 * the requests in flight get a bounded wait, and each one still running then is answered with an
 * error; then it closes the connection and resolves `closed`, so the CLI can exit.
 *
 * Backpressure: a client that stops reading must not make results pile up in memory. While stdout
 * holds more than the high-water mark, stdin is paused and the lines already read wait in a queue;
 * on 'drain' they are served and reading resumes.
 */
import type { Readable, Writable } from 'node:stream';
import type { Logger } from '../log.js';
import { ErrorCode, errorResponse, isObject, isRequestId, ProtocolError } from '../protocol/jsonrpc.js';
import { cachedResponseParts, serializeMessage } from '../protocol/results.js';
import type { Connection, Protocol } from '../protocol/server.js';
import { LineFramer } from '../util/line-framer.js';
import { settleWithin } from '../util/with-timeout.js';
import { drain } from './drain.js';

export interface StdioOptions {
  readonly log: Logger;
  /** Defaults to process.stdin. */
  readonly input?: Readable;
  /** Defaults to process.stdout. */
  readonly output?: Writable;
  /** The toolsets this connection is served (`--toolset`); absent: the default endpoint's. */
  readonly toolsets?: readonly string[];
  /** Longest accepted line in bytes; default 16 MiB. */
  readonly maxLineBytes?: number;
  /** How long EOF or close() waits for requests in flight before answering them with an error; default 5000 ms. */
  readonly drainTimeoutMs?: number;
  /**
   * Output bytes buffered (a client that stops reading) above which no new request is started until
   * stdout drains; default 4 MiB.
   */
  readonly outputHighWaterBytes?: number;
}

/**
 * At most this many requests run at once; the next wait in the queue. Results not yet written are
 * not in stdout's buffer, so the high-water mark alone would let a burst of requests (400 read in
 * one chunk) each build a large result at the same time. Notifications (a cancellation) never wait.
 */
const MAX_IN_FLIGHT = 16;

export interface StdioTransport {
  readonly connection: Connection;
  /** Resolves once input ended (or close() was called) and the requests in flight are done. */
  readonly closed: Promise<void>;
  /**
   * Resolves once the client's opening exchange is over: after the first message written to stdout,
   * SETTLE_MS passed with no line read and nothing running (or the transport closed first).
   */
  readonly settled: Promise<void>;
  /** Stops reading and shuts down as on EOF; resolves with `closed`. */
  close(): Promise<void>;
}

const MIB = 1024 * 1024;

/**
 * A client answered `initialize` sends `notifications/initialized` and its first lists within a
 * millisecond or two: work that can wait (the file watcher, preloading ajv) waits until the input
 * has been this quiet, rather than delaying the first `tools/list` answer as well as the first.
 */
const SETTLE_MS = 20;

export function serveStdio(protocol: Protocol, options: StdioOptions): StdioTransport {
  const { log } = options;
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const maxLineBytes = options.maxLineBytes ?? 16 * MIB;
  const drainTimeoutMs = options.drainTimeoutMs ?? 5000;
  const highWater = options.outputHighWaterBytes ?? 4 * MIB;

  let outputBroken = false;
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  let answeredOnce = false;
  let isSettled = false;
  let settleTimer: NodeJS.Timeout | undefined;
  /** Every line read, answer written and request finished after the first answer starts the wait again. */
  const awaitQuiet = (): void => {
    if (!answeredOnce || isSettled) return;
    clearTimeout(settleTimer);
    settleTimer = setTimeout(() => {
      if (inFlight > 0 || queue.length > 0) return; // the request's end waits again
      isSettled = true;
      settle();
    }, SETTLE_MS);
  };
  const write = (message: object): void => {
    if (outputBroken) return;
    // A cached list page goes out as its ready-made bytes after the id, in one writev: serializing
    // it again would flatten and copy megabytes of text per answer.
    const parts = cachedParts(message, log);
    if (parts === undefined) output.write(`${serialize(message, log)}\n`);
    else {
      output.cork();
      output.write(parts.head);
      for (const chunk of parts.tail) output.write(chunk);
      output.write('\n');
      output.uncork();
    }
    answeredOnce = true;
    awaitQuiet();
  };
  output.on('error', (err) => {
    outputBroken = true;
    log.warn(`stdout closed: ${err.message}`);
    void shutdown();
  });

  const connection = protocol.connect(write, options.toolsets && { toolsets: options.toolsets });
  // A count: a Set of the handled promises, only ever asked its size, kept every request's objects
  // past the young generation (util/live-set.ts says how).
  let inFlight = 0;
  const dispatch = (message: unknown): void => {
    inFlight++;
    void connection.receive(message).finally(() => {
      inFlight--;
      pump();
      awaitQuiet();
    });
  };

  /** Requests read but not yet started, while the output is backed up. */
  const queue: unknown[] = [];
  let inputPaused = false;
  let pumpScheduled = false;
  let idleWaiter: (() => void) | undefined;
  const backedUp = (): boolean =>
    inFlight >= MAX_IN_FLIGHT || (!outputBroken && output.writableLength > highWater);
  const enqueue = (line: string): void => {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      dispatch(line); // the core answers the parse error
      return;
    }
    // Only requests (and batches, which hold them) wait. A notification or a response to one of
    // our requests has no answer to buffer and may be what a call in flight waits for: a
    // notifications/cancelled, an elicitation's answer. It goes at once, even past a full queue.
    const waits = Array.isArray(message) || (isObject(message) && 'method' in message && 'id' in message);
    if (!waits) {
      // A JSON string is handed on as the line, so the core reads the same text (and refuses it).
      dispatch(typeof message === 'string' ? line : message);
      return;
    }
    queue.push(message);
    schedulePump();
  };
  function schedulePump(): void {
    if (pumpScheduled) return;
    pumpScheduled = true;
    setImmediate(() => {
      pumpScheduled = false;
      pump();
    });
  }
  /** Starts one queued line per turn of the event loop, so each result can reach the buffer first. */
  function pump(): void {
    if (queue.length > 0 && !backedUp()) dispatch(queue.shift()!);
    if (queue.length > 0 && !backedUp()) schedulePump();
    const full = queue.length > 0 || output.writableLength > highWater;
    if (full && !inputPaused && !shuttingDown) {
      inputPaused = true;
      input.pause();
    } else if (!full && inputPaused && !shuttingDown) {
      inputPaused = false;
      input.resume();
    }
    if (idleWaiter && queue.length === 0 && inFlight === 0) idleWaiter();
  }
  output.on('drain', pump);

  /** The drain ran out with lines still queued: each request among them is answered, not dropped. */
  const refuseQueued = (error: ProtocolError): number => {
    let answered = 0;
    for (const message of queue.splice(0)) {
      for (const request of Array.isArray(message) ? message : [message]) {
        if (!isObject(request) || !isRequestId(request.id)) continue;
        write(errorResponse(request.id, error));
        answered++;
      }
    }
    return answered;
  };

  const framer = new LineFramer(maxLineBytes, enqueue, () => {
    log.warn(`dropped an input line longer than ${maxLineBytes} bytes`);
    write(errorResponse(null, oversize(maxLineBytes)));
  });

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let shuttingDown = false;
  async function shutdown(): Promise<void> {
    if (shuttingDown) return closed;
    shuttingDown = true;
    input.off('data', onData);
    framer.end();
    // The lines already read are served too (the queue only holds them back while stdout is full).
    const idle = new Promise<void>((resolve) => {
      idleWaiter = resolve;
    });
    pump();
    await drain(idle, drainTimeoutMs, (error) => connection.abandon(error) + refuseQueued(error), log);
    output.off('drain', pump);
    connection.close();
    if (!outputBroken && output.writableNeedDrain) {
      await settleWithin(new Promise((resolve) => output.once('drain', resolve)), drainTimeoutMs);
    }
    clearTimeout(settleTimer);
    settle();
    resolveClosed();
  }

  const onData = (chunk: Buffer | string): void => {
    awaitQuiet();
    framer.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  };
  input.on('data', onData);
  input.once('end', () => void shutdown());
  input.once('close', () => void shutdown());
  input.once('error', (err) => {
    log.error(`stdin failed: ${err.message}`);
    void shutdown();
  });

  return { connection, closed, settled, close: shutdown };
}

/** A cached page's response in parts (results.ts); undefined for any other message, or if that fails. */
function cachedParts(message: object, log: Logger): { head: string; tail: readonly Buffer[] } | undefined {
  try {
    return cachedResponseParts(message);
  } catch (err) {
    log.error(`could not serialize a cached list page: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/** The message as one line; an unserializable one is logged and answered -32603. */
function serialize(message: object, log: Logger): string {
  return serializeMessage(message, (err) =>
    log.error(`could not serialize an outbound message: ${err instanceof Error ? err.message : String(err)}`),
  );
}

function oversize(maxLineBytes: number): ProtocolError {
  return new ProtocolError(
    ErrorCode.InvalidRequest,
    `Message too large: a line may hold at most ${maxLineBytes} bytes`,
  );
}
