/**
 * The Streamable HTTP channel (2025 era): each message is one POST to the upstream's URL; the
 * answer comes back as one JSON body or as an SSE stream that carries the request's progress and
 * log notifications before its response. The session id the upstream gives at initialize
 * (`Mcp-Session-Id`) and the negotiated `MCP-Protocol-Version` go on every later request; a 404
 * for the session means it expired, and the channel closes (the source opens a new one). `close`
 * ends the session with a DELETE. A 2026-07-28 request (the `_meta` envelope, modern.ts) goes
 * with its own version and method headers instead, without a session.
 *
 * Every body is read with a byte budget (`maxMessageBytes` per message), and every POST has a time
 * limit, so a server that never finishes its stream holds nothing for long. The source's
 * credentials (../shared/outbound-auth.ts, ../shared/oauth.ts) are added to each POST; a token
 * exchange trades the caller's token for the upstream's: the caller's is never sent.
 */
import { escapeControls } from '../../util/escape-controls.js';
import { isRequestId, type RequestId } from '../../util/jsonrpc.js';
import type { Logger } from '../contract/kinds.js';
import type { TokenSource } from '../shared/oauth.js';
import type { Channel, ChannelEvents, Outgoing } from './client.js';
import { isEnveloped, modernHeaders } from './modern.js';

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
  const end = (reason: string) => {
    if (ended) return;
    ended = true;
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
      if (res.status === 202 || res.body === null) return;
      const type = res.headers.get('content-type') ?? '';
      // What comes back on a request's answer is about that request (its progress, its logs).
      const sent = out.message as { id?: unknown; method?: unknown };
      const related = typeof sent.method === 'string' && isRequestId(sent.id) ? sent.id : undefined;
      try {
        if (type.startsWith('text/event-stream'))
          await readEvents(res.body, o.maxMessageBytes, (data) => deliver(data, related));
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

/** Reads an SSE stream, handing on each event's data; an event over `max` bytes fails the read. */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  max: number,
  onData: (data: string) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let size = 0;
  const line = (text: string) => {
    if (text === '') {
      if (data.length > 0) onData(data.join('\n'));
      data = [];
      size = 0;
    } else if (text.startsWith('data:')) {
      const value = text.slice(text[5] === ' ' ? 6 : 5);
      size += value.length;
      if (size > max) throw new Error(`an event is over maxMessageBytes (${max})`);
      data.push(value);
    }
  };
  try {
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true });
      if (buffer.length > max + 1024 && !buffer.includes('\n'))
        throw new Error(`a line is over maxMessageBytes (${max})`);
      let nl = buffer.indexOf('\n');
      while (nl !== -1) {
        line(buffer.slice(0, nl).replace(/\r$/, ''));
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf('\n');
      }
    }
  } finally {
    await body.cancel().catch(() => {});
  }
  line(buffer);
  line('');
}
