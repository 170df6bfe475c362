/**
 * A Server-Sent Events stream on one HTTP response: `message` events carrying one JSON-RPC message
 * each, and `: keep-alive` comments so proxies and idle timers do not cut a quiet stream.
 *
 * This class writes frames; it keeps nothing. The 2026 era has no resumability, so its streams send
 * plain `message` events. The 2025 era's streams are resumable (streams.ts): their frames carry event
 * ids and are kept by the session, and this class only carries them on one HTTP response.
 */
import type { ServerResponse } from 'node:http';
import { serializeMessage } from '../../protocol/results.js';

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  // nginx buffers responses unless told not to; a buffered SSE stream delivers nothing until it ends.
  'X-Accel-Buffering': 'no',
};

/** The responses an SseStream carries or carried: the metrics count those still open (isSseStream). */
const streaming = new WeakSet<ServerResponse>();

export function isSseStream(res: ServerResponse): boolean {
  return streaming.has(res);
}

export class SseStream {
  private timer: NodeJS.Timeout | undefined;
  private ended = false;

  /** Sends the headers now (a GET stream must open before anything happens on it). */
  constructor(
    private readonly res: ServerResponse,
    keepAliveMs: number,
    status = 200,
  ) {
    res.writeHead(status, SSE_HEADERS);
    streaming.add(res);
    // The headers, a priming event and an answer that follows at once leave in one write: the
    // socket stays corked until this turn of the event loop is over (`end` uncorks it sooner).
    // The keep-alive starts at that turn's end too: a stream answered at once (most POST streams)
    // never makes a timer.
    const socket = res.socket;
    const corked = socket !== null && !socket.destroyed;
    if (corked) socket.cork();
    res.flushHeaders();
    if (corked || keepAliveMs > 0) {
      setImmediate(() => {
        if (corked && socket.writableCorked > 0) socket.uncork();
        if (keepAliveMs > 0 && !this.ended) {
          this.timer = setInterval(() => this.comment('keep-alive'), keepAliveMs);
          this.timer.unref();
        }
      });
    }
    res.on('close', () => this.stop());
  }

  /** False once ended or once the peer went away. */
  get open(): boolean {
    return !this.ended && !this.res.destroyed && this.res.writable;
  }

  send(message: object): void {
    if (!this.open) return;
    this.res.write(`event: message\ndata: ${serializeMessage(message)}\n\n`);
  }

  /** One ready-made SSE frame (it ends with a blank line). */
  write(frame: string): void {
    if (this.open) this.res.write(frame);
  }

  comment(text: string): void {
    if (this.open) this.res.write(`: ${text}\n\n`);
  }

  end(): void {
    if (this.ended) return;
    this.stop();
    if (!this.res.writableEnded) this.res.end();
  }

  private stop(): void {
    this.ended = true;
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
