/**
 * The Streamable HTTP channel (2025 era): each message is one POST to the upstream's URL; the
 * answer comes back as one JSON body or as an SSE stream that carries the request's progress and
 * log notifications before its response. The session id the upstream gives at initialize
 * (`Mcp-Session-Id`) and the negotiated `MCP-Protocol-Version` go on every later request; a 404
 * for the session means it expired, and the channel closes (the source opens a new one). `close`
 * ends the session with a DELETE. A 2026-07-28 request (the `_meta` envelope, modern.ts) goes
 * with its own version and method headers instead, without a session.
 *
 * After the handshake the channel opens the upstream's standalone stream (a GET, SSE), on which the
 * upstream sends what no request carries: `list_changed`, `resources/updated`, a `ping` or a
 * request of its own. They go to the client as a POST answer's messages do, related to no request
 * (so a request there is never relayed to a caller). A 405 says the upstream offers none: it is
 * not asked again. When the stream ends or fails it is opened again after a backoff (250 ms
 * doubling to 30 s, or the upstream's `retry:` within those bounds; back to 250 ms after a minute
 * up), with `Last-Event-ID` when its events carried ids; `close` aborts it.
 *
 * Every body is read with a byte budget (`maxMessageBytes` per message, enforced as it streams: an
 * event or a line over it ends the read), and every POST has a time limit, so a server that never
 * finishes its stream holds nothing for long. The standalone stream may stay silent for as long as
 * the session lasts: it holds one socket and at most one message's bytes. The source's
 * credentials (../shared/outbound-auth.ts, ../shared/oauth.ts) are added to each POST; a token
 * exchange trades the caller's token for the upstream's: the caller's is never sent.
 */
import { escapeControls } from '../../util/escape-controls.js';
import { isRequestId, type RequestId } from '../../util/jsonrpc.js';
import type { Logger } from '../contract/kinds.js';
import type { TokenSource } from '../shared/oauth.js';
import type { Channel, ChannelEvents, Outgoing } from './client.js';
import { isEnveloped, modernHeaders } from './modern.js';

/** The standalone stream's reconnection delays: the first, the longest, and when it is reset. */
const STREAM_RETRY_MIN_MS = 250;
const STREAM_RETRY_MAX_MS = 30_000;
const STREAM_HEALTHY_MS = 60_000;
/** An event id longer than this, or not printable ASCII, is not kept (it goes back as a header). */
const MAX_EVENT_ID = 256;
/**
 * What a message on the standalone stream is related to: no request (the client's ids are numbers),
 * so its logs go to mcp-run's log and its requests (other than `ping`) are refused, never relayed to
 * whichever call happens to be in flight (the upstream sent them on no call's answer).
 */
const STANDALONE: RequestId = 'mcp-run/standalone-stream';

export interface HttpChannelOptions {
  readonly name: string;
  readonly url: string;
  /** Fixed headers and static credentials, lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly tokens: TokenSource | undefined;
  readonly maxMessageBytes: number;
  /** The longest one POST and its answer may take. */
  readonly requestTimeoutMs: number;
  readonly log: Logger;
}

export function startHttp(o: HttpChannelOptions, events: ChannelEvents): Channel {
  let session: string | undefined;
  let version: string | undefined;
  let ended = false;
  // Aborts the standalone stream (and its backoff) when the channel ends.
  const stopping = new AbortController();
  let listening = false;
  const end = (reason: string) => {
    if (ended) return;
    ended = true;
    stopping.abort();
    events.closed(reason);
  };

  const headersFor = async (out: Outgoing): Promise<Record<string, string>> => {
    const headers: Record<string, string> = {
      ...o.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    // A 2026-07-28 request (modern.ts) carries its own version and method headers, and no session.
    if (isEnveloped(out.message)) Object.assign(headers, out.headers, modernHeaders(out.message));
    else {
      if (session !== undefined) headers['mcp-session-id'] = session;
      if (version !== undefined) headers['mcp-protocol-version'] = version;
    }
    if (o.tokens !== undefined) {
      const signal = out.signal ?? AbortSignal.timeout(o.requestTimeoutMs);
      headers.authorization = `Bearer ${await o.tokens.token(out.identity, signal)}`;
    }
    return headers;
  };

  return {
    async send(out) {
      if (ended) throw new Error(`the session with ${o.name} has ended`);
      const timeout = AbortSignal.timeout(o.requestTimeoutMs);
      const signal = out.signal ? AbortSignal.any([out.signal, timeout]) : timeout;
      let res: Response;
      try {
        res = await fetch(o.url, {
          method: 'POST',
          headers: await headersFor(out),
          body: JSON.stringify(out.message),
          signal,
          redirect: 'error',
        });
      } catch (err) {
        throw new Error(`cannot reach ${o.name} at ${shownUrl(o.url)}: ${reasonOf(err)}`);
      }
      const given = res.headers.get('mcp-session-id');
      if (given !== null && session === undefined) session = given;
      if (res.status === 404 && session !== undefined) {
        await res.body?.cancel().catch(() => {});
        end(`the session with ${o.name} expired`);
        throw new Error(`the session with ${o.name} expired; the next call opens a new one`);
      }
      if (res.status === 401 || res.status === 403) o.tokens?.refused(out.identity);
      // A 2026 upstream answers a refused request 4xx with its JSON-RPC error: that error is the answer.
      const refusal = !res.ok && isEnveloped(out.message) && res.status < 500 && res.body !== null;
      if (refusal && (res.headers.get('content-type') ?? '').startsWith('application/json')) {
        const sent = out.message as { id?: unknown };
        const text = await readBounded(res.body!, o.maxMessageBytes).catch(() => '');
        // Only an error about this request (its id) answers it; another body (a 2025 server's
        // `id: null` refusal) leaves the status as the reason, so the request fails now.
        if (isRequestId(sent.id) && isErrorFor(text, sent.id)) return deliver(text, sent.id);
        throw new Error(
          `${o.name} answered HTTP ${res.status} ${escapeControls(res.statusText.slice(0, 200))}`,
        );
      }
      if (!res.ok) {
        await res.body?.cancel().catch(() => {});
        throw new Error(
          `${o.name} answered HTTP ${res.status} ${escapeControls(res.statusText.slice(0, 200))}`,
        );
      }
      // The handshake is done (whatever the upstream answered it with): its own stream may open.
      if ((out.message as { method?: unknown }).method === 'notifications/initialized' && !listening) {
        listening = true;
        void listen().catch((err: unknown) =>
          o.log.debug(`the stream of ${o.name} stopped: ${escapeControls(reasonOf(err))}`),
        );
      }
      if (res.status === 202 || res.body === null) return;
      const type = res.headers.get('content-type') ?? '';
      // What comes back on a request's answer is about that request (its progress, its logs).
      const sent = out.message as { id?: unknown; method?: unknown };
      const related = typeof sent.method === 'string' && isRequestId(sent.id) ? sent.id : undefined;
      try {
        if (type.startsWith('text/event-stream'))
          await readEvents(res.body, o.maxMessageBytes, { data: (data) => deliver(data, related) });
        else deliver(await readBounded(res.body, o.maxMessageBytes), related);
      } catch (err) {
        throw new Error(`reading the answer of ${o.name} failed: ${reasonOf(err)}`);
      }
    },
    negotiated(agreed) {
      version = agreed;
    },
    async close() {
      const id = session;
      end(`the session with ${o.name} was closed`);
      if (id === undefined) return;
      try {
        const headers: Record<string, string> = { ...o.headers, 'mcp-session-id': id };
        const res = await fetch(o.url, {
          method: 'DELETE',
          headers,
          redirect: 'error',
          signal: AbortSignal.timeout(2000),
        });
        await res.body?.cancel().catch(() => {});
      } catch {
        // The upstream ends the session itself after a while.
      }
    },
  };

  /**
   * The standalone stream, opened once the handshake is done and again each time it ends, until
   * the channel ends or the upstream says (405) it offers none.
   */
  async function listen(): Promise<void> {
    let delay = STREAM_RETRY_MIN_MS;
    let lastEventId: string | undefined;
    let retryMs: number | undefined;
    while (!ended) {
      const opened = Date.now();
      const attempt = new AbortController();
      const signal = AbortSignal.any([stopping.signal, attempt.signal]);
      // The upstream has requestTimeoutMs to answer the GET; then the stream may stay silent.
      const headersTimer = setTimeout(() => attempt.abort(), o.requestTimeoutMs);
      try {
        const headers: Record<string, string> = { ...o.headers, accept: 'text/event-stream' };
        if (session !== undefined) headers['mcp-session-id'] = session;
        if (version !== undefined) headers['mcp-protocol-version'] = version;
        if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
        if (o.tokens !== undefined)
          headers.authorization = `Bearer ${await o.tokens.token(undefined, signal)}`;
        const res = await fetch(o.url, { method: 'GET', headers, signal, redirect: 'error' });
        clearTimeout(headersTimer);
        const type = res.headers.get('content-type') ?? '';
        if (res.status === 405) {
          await res.body?.cancel().catch(() => {});
          o.log.debug(`${o.name} offers no stream of its own (GET answered 405); it sends only on answers`);
          return;
        }
        if (res.status === 404 && session !== undefined) {
          await res.body?.cancel().catch(() => {});
          end(`the session with ${o.name} expired`);
          return;
        }
        if (res.status === 401 || res.status === 403) o.tokens?.refused(undefined);
        if (!res.ok || res.body === null || !type.startsWith('text/event-stream')) {
          await res.body?.cancel().catch(() => {});
          throw new Error(
            res.ok
              ? `it answered ${escapeControls(type.slice(0, 100)) || 'no content type'}, not an event stream`
              : `it answered HTTP ${res.status} ${escapeControls(res.statusText.slice(0, 200))}`,
          );
        }
        let pendingId: string | undefined;
        await readEvents(res.body, o.maxMessageBytes, {
          data: (data) => {
            if (pendingId !== undefined) lastEventId = pendingId;
            deliver(data, STANDALONE);
          },
          id: (id) => {
            pendingId = /^[\x20-\x7e]*$/.test(id) && id.length <= MAX_EVENT_ID ? id : undefined;
          },
          retry: (ms) => {
            retryMs = Math.min(STREAM_RETRY_MAX_MS, Math.max(STREAM_RETRY_MIN_MS, ms));
          },
        });
        o.log.debug(`the stream of ${o.name} ended; it is opened again`);
      } catch (err) {
        clearTimeout(headersTimer);
        if (ended) return;
        if (err instanceof OversizeError) {
          // Asking to resume would have the oversized event sent again: what it held is lost.
          lastEventId = undefined;
          o.log.warn(
            `${o.name} sent an event over maxMessageBytes (${o.maxMessageBytes}) on its stream; it is opened again`,
          );
        } else
          o.log.debug(
            `the stream of ${o.name} failed (${escapeControls(reasonOf(err))}); it is opened again`,
          );
      }
      if (Date.now() - opened >= STREAM_HEALTHY_MS) delay = STREAM_RETRY_MIN_MS;
      const wait = Math.max(delay, retryMs ?? 0);
      delay = Math.min(delay * 2, STREAM_RETRY_MAX_MS);
      await pause(wait, stopping.signal);
    }
  }

  function deliver(text: string, related: RequestId | undefined): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      o.log.debug(`${o.name} sent a body that is not JSON; ignored`);
      return;
    }
    const bytes = Buffer.byteLength(text);
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) events.message(message, bytes, related);
  }
}

/** Whether a body is a JSON-RPC error answering request `id`. */
function isErrorFor(text: string, id: RequestId): boolean {
  try {
    const parsed = JSON.parse(text) as { id?: unknown; error?: unknown };
    return parsed.id === id && typeof parsed.error === 'object' && parsed.error !== null;
  } catch {
    return false;
  }
}

/**
 * The URL as a message shows it: each query value and a password replaced by `***`, since a key
 * in the query (`?api_key=…`) is a credential like any other (urlSecrets registers them too).
 */
export function shownUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'its url';
  }
  const user = parsed.username === '' ? '' : `${parsed.username}${parsed.password === '' ? '' : ':***'}@`;
  const query = parsed.search
    .slice(1)
    .split('&')
    .map((pair) => (pair.includes('=') ? `${pair.slice(0, pair.indexOf('='))}=***` : pair))
    .join('&');
  return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}${query === '' ? '' : `?${query}`}${parsed.hash}`;
}

/** The URL's query values and password, as written and decoded: what redaction must hide. */
export function urlSecrets(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const raw = parsed.search
    .slice(1)
    .split('&')
    .filter((pair) => pair.includes('='))
    .map((pair) => pair.slice(pair.indexOf('=') + 1));
  const out = [...raw, ...parsed.searchParams.values(), parsed.password];
  try {
    out.push(decodeURIComponent(parsed.password));
  } catch {
    // Not percent-encoded: as written.
  }
  return out;
}

function reasonOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === 'ECONNREFUSED') return 'the connection was refused';
  if ((err as Error).name === 'TimeoutError') return 'no answer in time';
  return cause?.message ?? (err as Error).message;
}

async function readBounded(body: ReadableStream<Uint8Array>, max: number): Promise<string> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) {
      await body.cancel().catch(() => {});
      throw new Error(`the answer is over maxMessageBytes (${max})`);
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    timer.unref();
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** An SSE event or line over the byte budget: the read stops there. */
class OversizeError extends Error {}

interface EventHandlers {
  /** Each event's data (its `data:` lines joined). */
  readonly data: (data: string) => void;
  /** An `id:` field, before the data of the event it belongs to. */
  readonly id?: (id: string) => void;
  /** A `retry:` field: the reconnection delay the upstream asks for, in ms. */
  readonly retry?: (ms: number) => void;
}

/**
 * Reads an SSE stream, handing on each event's data. The budget holds while it streams: an event
 * whose data passes `max` bytes, or a line that passes it without ending, fails the read at once;
 * comments, other fields and junk lines are dropped as they come, so they hold nothing.
 */
async function readEvents(body: ReadableStream<Uint8Array>, max: number, on: EventHandlers): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let size = 0;
  const line = (text: string) => {
    if (text === '') {
      if (data.length > 0) on.data(data.join('\n'));
      data = [];
      size = 0;
    } else if (text.startsWith('data:')) {
      const value = text.slice(text[5] === ' ' ? 6 : 5);
      // Each line counts its newline too, so that empty `data:` lines cannot pile up for free.
      size += Buffer.byteLength(value) + 1;
      if (size > max + 1) throw new OversizeError(`an event is over maxMessageBytes (${max})`);
      data.push(value);
    } else if (text.startsWith('id:')) on.id?.(text.slice(text[3] === ' ' ? 4 : 3));
    else if (text.startsWith('retry:')) {
      const value = text.slice(text[6] === ' ' ? 7 : 6);
      if (/^\d{1,9}$/.test(value)) on.retry?.(Number(value));
    }
  };
  try {
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true });
      let nl = buffer.indexOf('\n');
      while (nl !== -1) {
        line(buffer.slice(0, nl).replace(/\r$/, ''));
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf('\n');
      }
      if (buffer.length > max + 1024) throw new OversizeError(`a line is over maxMessageBytes (${max})`);
    }
  } finally {
    await body.cancel().catch(() => {});
  }
  line(buffer);
  line('');
}
