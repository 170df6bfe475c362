/**
 * A running server's contract, read as a client reads it: over Streamable HTTP, a 2025-11-25
 * session (initialize, notifications/initialized), then every page of tools/list, resources/list,
 * resources/templates/list and prompts/list the server's capabilities offer, then the session is
 * ended (DELETE). Answers may come as JSON or as an SSE stream. Each answer is bounded in bytes and
 * each request in time: the server is whatever the URL points at.
 *
 * Redirects are followed by hand, and only within the origin of the URL given (a 307 or 308, which
 * keep the POST and its body): a redirect to another origin would carry the request, the session
 * and the --header credentials to a server the user did not name, so it is refused.
 */
import type { Contract } from '../catalog/diff.js';
import { isObject } from '../util/is-object.js';

const PROTOCOL_VERSION = '2025-11-25';
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;
const TIMEOUT_MS = 30_000;
/** A server that keeps answering with a next page is stopped at this many pages of one list. */
const MAX_PAGES = 1000;
/** Same-origin redirects followed for one request at most. */
const MAX_REDIRECTS = 5;

type Json = Record<string, unknown>;

export class RemoteError extends Error {}

export async function remoteContract(
  url: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<Contract> {
  const session = new Session(url, headers);
  try {
    const init = await session.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'mcp-run-diff', version: '1' },
    });
    await session.notify('notifications/initialized');
    const caps = isObject(init.capabilities) ? init.capabilities : {};
    const list = async (capability: string, method: string, key: string) =>
      capability in caps ? await session.listAll(method, key) : [];
    return {
      tools: (await list('tools', 'tools/list', 'tools')) as unknown as Contract['tools'],
      resources: (await list('resources', 'resources/list', 'resources')).map(
        ({ size: _size, ...r }) => r,
      ) as unknown as Contract['resources'],
      templates: (await list(
        'resources',
        'resources/templates/list',
        'resourceTemplates',
      )) as unknown as Contract['templates'],
      prompts: (await list('prompts', 'prompts/list', 'prompts')) as unknown as Contract['prompts'],
    };
  } finally {
    await session.close();
  }
}

class Session {
  private id: string | undefined;
  private next = 1;

  constructor(
    private readonly url: string,
    private readonly headers: Readonly<Record<string, string>>,
  ) {}

  async listAll(method: string, key: string): Promise<Json[]> {
    const items: Json[] = [];
    let cursor: unknown;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.request(method, cursor === undefined ? {} : { cursor });
      const got = result[key];
      if (Array.isArray(got)) items.push(...got.filter(isObject));
      cursor = result.nextCursor;
      if (typeof cursor !== 'string') return items;
    }
    throw new RemoteError(`${method} still had more pages after ${MAX_PAGES}`);
  }

  async request(method: string, params: Json): Promise<Json> {
    const id = this.next++;
    const response = await this.post({ jsonrpc: '2.0', id, method, params });
    const sessionId = response.headers.get('mcp-session-id');
    if (sessionId) this.id = sessionId;
    const text = await readBounded(response);
    if (!response.ok) throw new RemoteError(`${method}: HTTP ${response.status} ${short(text)}`);
    const message = answerOf(text, id, response.headers.get('content-type') ?? '');
    if (message === undefined) throw new RemoteError(`${method}: no answer in ${short(text)}`);
    if (isObject(message.error)) throw new RemoteError(`${method}: ${String(message.error.message)}`);
    if (!isObject(message.result)) throw new RemoteError(`${method}: the answer has no result`);
    return message.result;
  }

  async notify(method: string): Promise<void> {
    const response = await this.post({ jsonrpc: '2.0', method });
    await readBounded(response);
  }

  async close(): Promise<void> {
    if (this.id === undefined) return;
    await this.send('DELETE', this.headersFor())
      .then((r) => r.body?.cancel())
      .catch(() => undefined);
  }

  private headersFor(): Record<string, string> {
    return {
      ...this.headers,
      'mcp-protocol-version': PROTOCOL_VERSION,
      ...(this.id === undefined ? {} : { 'mcp-session-id': this.id }),
    };
  }

  private post(body: Json): Promise<Response> {
    const headers = {
      ...this.headersFor(),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    return this.send('POST', headers, JSON.stringify(body));
  }

  /** One request, following same-origin 307/308 redirects only (see the file comment). */
  private async send(method: string, headers: Record<string, string>, body?: string): Promise<Response> {
    const origin = new URL(this.url).origin;
    let url = this.url;
    for (let hops = 0; ; hops++) {
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers,
          ...(body !== undefined && { body }),
          redirect: 'manual',
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch (err) {
        const cause = (err as { cause?: { message?: string } }).cause?.message;
        throw new RemoteError(`cannot reach ${url}: ${cause ?? (err as Error).message}`);
      }
      const location = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || location === null) return response;
      await response.body?.cancel().catch(() => undefined);
      const target = redirectTarget(location, url);
      const where = `${url} answered ${response.status}, a redirect to ${target?.href ?? JSON.stringify(location)}`;
      if (target?.origin !== origin)
        throw new RemoteError(
          `${where}: another origin than ${origin}. mcp-run does not follow it, so the request and its headers (--header credentials included) reach only the server you named; if that server is the one you mean, give its URL instead`,
        );
      if (response.status !== 307 && response.status !== 308)
        throw new RemoteError(
          `${where}: a ${response.status} would turn the request into a GET; give that URL instead`,
        );
      if (hops === MAX_REDIRECTS)
        throw new RemoteError(`${where}: more than ${MAX_REDIRECTS} redirects; give the final URL instead`);
      url = target.href;
    }
  }
}

function redirectTarget(location: string, base: string): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

async function readBounded(response: Response): Promise<string> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await response.body.cancel().catch(() => undefined);
      throw new RemoteError(`an answer is larger than ${MAX_ANSWER_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The response to request `id`: the JSON body, or the SSE event that carries it. */
function answerOf(text: string, id: number, type: string): Json | undefined {
  const parse = (s: string): unknown => {
    try {
      return JSON.parse(s);
    } catch {
      return undefined;
    }
  };
  const candidates: unknown[] = [];
  if (type.includes('text/event-stream')) {
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) candidates.push(parse(data));
    }
  } else candidates.push(parse(text));
  return candidates.find((m): m is Json => isObject(m) && m.id === id);
}

const short = (text: string): string => (text.length > 200 ? `${text.slice(0, 200)}…` : text);
