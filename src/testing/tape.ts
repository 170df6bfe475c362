/**
 * HTTP record and replay for `mcp-run test`: each http source of the manifest is pointed at a
 * server of ours on 127.0.0.1 (its baseUrl's origin replaced, its path kept). Replaying, that server
 * answers from the fixture file and sends nothing anywhere, unless `live` lets a request with no
 * recorded answer go to the real upstream (`test --live`: answered, not kept). Recording, it
 * forwards each request to the source's own origin (the one the manifest and environment name,
 * never another) and keeps the exchange. What is kept never holds a secret: request headers are not
 * kept at all (Authorization, API key headers), only the response's content-type is, and every
 * value that came from the environment or sits in a source's `auth` (tokens, keys in a query), and
 * every query parameter named like a credential (api_key, token, …), is replaced by `***` in paths,
 * bodies and answers.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Exchange {
  readonly source: string;
  readonly method: string;
  /** Path and query, from the origin, secrets replaced by `***`. */
  readonly path: string;
  readonly body?: string;
  readonly status: number;
  readonly contentType?: string;
  readonly response: string;
}

export interface Fixture {
  readonly exchanges: readonly Exchange[];
}

/**
 * A request the tape could not answer truly: `unrecorded` (replaying, no answer in the fixture),
 * `unreachable` (forwarding, the upstream did not answer: refused, unknown host, …) or `refused`
 * (a request target outside the source's origin, never forwarded).
 */
export interface Miss {
  /** `source METHOD path`, secrets replaced. */
  readonly request: string;
  readonly why: 'unrecorded' | 'unreachable' | 'refused';
  /** What went wrong, for `unreachable` and `refused`. */
  readonly detail?: string;
}

export interface TapeOptions {
  readonly mode: 'replay' | 'record';
  /** Replaying: the recorded answers. */
  readonly fixture: Fixture;
  /** Replaying: a request with no recorded answer is forwarded to the real upstream (not kept). */
  readonly live?: boolean;
  /** Redacted before matching and keeping. */
  readonly secrets: readonly string[];
}

export interface Tape {
  /** The baseUrl to give each source (its original path below our origin). */
  readonly baseUrls: ReadonlyMap<string, string>;
  /** Requests that had no true answer, in order. */
  readonly misses: Miss[];
  /** Recording: what was exchanged, in order. */
  readonly recorded: Exchange[];
  close(): Promise<void>;
}

export const MISS_STATUS = 599;

/** One server per source (name → its baseUrl). */
export async function startTape(sources: ReadonlyMap<string, string>, options: TapeOptions): Promise<Tape> {
  const { mode, fixture, secrets } = options;
  const redact = (text: string) =>
    secrets
      .filter((s) => s.length >= 4)
      .reduce(
        (out, secret) => out.split(secret).join('***').split(encodeURIComponent(secret)).join('***'),
        text,
      );
  const used = new Set<Exchange>();
  const misses: Miss[] = [];
  const recorded: Exchange[] = [];
  const servers: Server[] = [];
  const baseUrls = new Map<string, string>();
  for (const [source, baseUrl] of sources) {
    const original = new URL(baseUrl);
    const server = createServer(async (req, res) => {
      const body = await readBody(req);
      const method = req.method ?? 'GET';
      const path = redactQuery(redact(req.url ?? '/'));
      const keptBody = body.length ? redact(body.toString('utf8')) : undefined;
      const request = `${source} ${method} ${path}${keptBody ? ` ${keptBody}` : ''}`;
      if (mode === 'replay') {
        const match = fixture.exchanges.find(
          (x) =>
            !used.has(x) &&
            x.source === source &&
            x.method === method &&
            x.path === path &&
            x.body === keptBody,
        );
        if (match) {
          used.add(match);
          res.writeHead(match.status, match.contentType ? { 'content-type': match.contentType } : {});
          res.end(match.response);
          return;
        }
        if (!options.live) {
          misses.push({ request, why: 'unrecorded' });
          res.writeHead(MISS_STATUS, { 'content-type': 'text/plain' });
          res.end(`mcp-run test: no recorded answer for ${method} ${path}; record with --record`);
          return;
        }
      }
      // Only ever the source's own origin: an absolute-form or `//host` request target is refused.
      const requested = req.url ?? '/';
      const target = requested.startsWith('/') ? parseUrl(`${original.origin}${requested}`) : undefined;
      if (target === undefined || target.origin !== original.origin) {
        misses.push({ request, why: 'refused', detail: `not a path below ${original.origin}` });
        res.writeHead(400, { 'content-type': 'text/plain' });
        res.end('mcp-run test: only paths below the source origin are forwarded');
        return;
      }
      try {
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(
            ([k]) => !['host', 'connection', 'content-length', 'accept-encoding'].includes(k),
          ),
        ) as Record<string, string>;
        const answer = await fetch(target, {
          method,
          headers,
          ...(body.length && { body }),
          redirect: 'manual',
        });
        const text = await answer.text();
        const contentType = answer.headers.get('content-type') ?? undefined;
        if (mode === 'record')
          recorded.push({
            source,
            method,
            path,
            ...(keptBody !== undefined && { body: keptBody }),
            status: answer.status,
            ...(contentType && { contentType }),
            response: redact(text),
          });
        res.writeHead(answer.status, contentType ? { 'content-type': contentType } : {});
        res.end(text);
      } catch (err) {
        const detail = redact(causeOf(err, target));
        misses.push({ request, why: 'unreachable', detail });
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`mcp-run test: the upstream did not answer: ${detail}`);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    const { port } = server.address() as AddressInfo;
    baseUrls.set(source, `http://127.0.0.1:${port}${original.pathname.replace(/\/+$/, '')}`);
  }
  return {
    baseUrls,
    misses,
    recorded,
    async close() {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeAllConnections();
            }),
        ),
      );
    },
  };
}

/** fetch says only "fetch failed"; the reason (ECONNREFUSED 127.0.0.1:9, ENOTFOUND …) is its cause. */
function causeOf(err: unknown, target: URL): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const text = cause?.message ?? cause?.code ?? (err as Error).message;
  // fetch refuses the ports browsers block (9, 6000, 6667, …) before connecting.
  return text === 'bad port' ? `fetch refuses to connect to port ${target.port}` : text;
}

/** `URL.parse` is Node 22's; this runs on 20 too. */
function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** Query parameters whose name says they carry a credential, whatever their value's origin. */
const SECRET_PARAM = /key|token|secret|password|passwd|signature|sig$|auth|credential/i;

export function redactQuery(path: string): string {
  const q = path.indexOf('?');
  if (q < 0) return path;
  const pairs = path
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const raw = eq < 0 ? pair : pair.slice(0, eq);
      let name = raw;
      try {
        name = decodeURIComponent(raw);
      } catch {}
      return eq >= 0 && SECRET_PARAM.test(name) ? `${pair.slice(0, eq)}=***` : pair;
    });
  return `${path.slice(0, q)}?${pairs.join('&')}`;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
