/**
 * The RequestRoute of one POST: how a request's related notifications and its response reach the
 * HTTP response. The media type is chosen lazily: the first related notification (progress, a log
 * line, a listen acknowledgement) turns the reply into `text/event-stream`; a request that emits
 * nothing before its result is answered as one `application/json` body, which is cheaper. A 2025
 * session's reply opens its stream through the session (`open`), so it is resumable, and may open it
 * once the request has gone unanswered for a while (`openAfterMs`), so that a long call is
 * resumable before it emits anything while a quick one is still one JSON body.
 */

import type { ServerResponse } from 'node:http';
import type { CallerIdentity } from '../../catalog/types.js';
import type { HeaderReader } from '../../protocol/routing-headers.js';
import type { Access, ReceiveOutcome, RequestRoute } from '../../protocol/server.js';
import { SseStream } from './sse.js';
import type { MessageStream } from './streams.js';
import { sendEmpty, sendJson } from './wire.js';

export interface ReplyOptions {
  readonly keepAliveMs: number;
  readonly signal?: AbortSignal;
  readonly protocolVersion?: string;
  readonly header?: HeaderReader;
  /** What the authenticated caller may see in lists. */
  readonly access?: Access;
  /** The verified caller (OAuth), handed to tool calls. */
  readonly identity?: CallerIdentity;
  /** The authenticated caller, who owns the tasks it starts (RequestRoute.caller). */
  readonly caller?: string;
  /** Whom the limits per caller count it against (RequestRoute.client). */
  readonly client?: string;
  /** The toolsets of the endpoint the request came to (RequestRoute.toolsets). */
  readonly toolsets?: readonly string[];
  /** Sees the final response before it is written (e.g. to keep or drop a new session's header). */
  readonly beforeRespond?: (message: object) => void;
  /** Opens the reply's stream on the response; default a plain SseStream. */
  readonly open?: (res: ServerResponse) => MessageStream;
  /** Open the stream when the request is still unanswered this long after it came, not only at the first notification. */
  readonly openAfterMs?: number;
  /**
   * Runs before the final response is written, which waits for it (`--state`: the session is saved
   * first); it may give another response to write instead.
   */
  readonly hold?: (message: object) => Promise<object | undefined>;
}

export class HttpReply implements RequestRoute {
  readonly signal?: AbortSignal;
  readonly protocolVersion?: string;
  readonly header?: HeaderReader;
  readonly access?: Access;
  readonly identity?: CallerIdentity;
  readonly caller?: string;
  readonly client?: string;
  readonly toolsets?: readonly string[];
  /** True once the final response went out (or could not, the peer being gone). */
  responded = false;
  private stream: MessageStream | undefined;
  private opener: NodeJS.Timeout | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly options: ReplyOptions,
  ) {
    if (options.signal !== undefined) this.signal = options.signal;
    if (options.protocolVersion !== undefined) this.protocolVersion = options.protocolVersion;
    if (options.header !== undefined) this.header = options.header;
    if (options.access !== undefined) this.access = options.access;
    if (options.identity !== undefined) this.identity = options.identity;
    if (options.caller !== undefined) this.caller = options.caller;
    if (options.client !== undefined) this.client = options.client;
    if (options.toolsets !== undefined) this.toolsets = options.toolsets;
    if (options.openAfterMs !== undefined) {
      this.opener = setTimeout(() => {
        if (!this.responded && !this.res.destroyed) this.openStream();
      }, options.openAfterMs);
      this.opener.unref();
    }
  }

  notify(message: object): void {
    if (this.responded) return;
    this.openStream().send(message);
  }

  private openStream(): MessageStream {
    this.stream ??= this.options.open?.(this.res) ?? new SseStream(this.res, this.options.keepAliveMs);
    return this.stream;
  }

  respond(message: object, status: number): void {
    if (this.responded) return;
    this.responded = true;
    clearTimeout(this.opener);
    this.options.beforeRespond?.(message);
    const write = (replaced?: object) => {
      const final = replaced ?? message;
      if (this.stream !== undefined) {
        this.stream.send(final);
        this.stream.end();
      } else sendJson(this.res, status, final);
    };
    const hold = this.options.hold;
    if (hold === undefined) write();
    else
      void hold(message).then(
        (replaced) => write(replaced),
        () => write(),
      );
  }

  /** Completes the HTTP exchange once `receive` has resolved. */
  settle(outcome: ReceiveOutcome): void {
    clearTimeout(this.opener);
    switch (outcome.kind) {
      case 'accepted':
        sendEmpty(this.res, 202);
        return;
      case 'silent':
        // A request that ends without a response (cancelled): an SSE stream that closes empty.
        this.responded = true;
        if (this.stream === undefined && !this.res.headersSent && !this.res.destroyed)
          this.stream = this.options.open?.(this.res) ?? new SseStream(this.res, 0);
        this.stream?.end();
        return;
      default:
      // 'answered' already wrote; 'subscribed' stays open until the listen ends.
    }
  }
}
