/**
 * Source `http`: one REST API (one origin) for `http` tools, over a keep-alive connection pool.
 * Scheme, host and port come from `baseUrl` alone; tools only add a path below it, a query, headers
 * and a body. Credentials in `auth` are added to every request and redacted from every result.
 * Nothing is sent when the manifest loads: an API that is down fails the calls, not the server.
 *
 * Retries: idempotent methods (GET, HEAD, PUT, DELETE, OPTIONS) are retried `retries` times on 429,
 * 502, 503, 504 or a reset connection, after `Retry-After` when the API sends one (up to 10 s; a
 * longer wait is not retried) or an exponential backoff (200 ms, 400 ms, …) otherwise. The tool's
 * timeoutMs bounds the whole call, retries and waits included: a wait that does not fit in the time
 * left is not retried, and the result says so.
 *
 * @example
 * ```yaml
 * sources:
 *   github:
 *     kind: http
 *     baseUrl: https://api.github.com
 *     headers: { Accept: application/vnd.github+json }
 *     auth: { bearer: "${env:GITHUB_TOKEN}" }   # or basic: {username, password},
 *     timeoutMs: 10000                          # or apiKey: {header: X-Api-Key, value},
 *     maxConcurrent: 4                          # or apiKey: {query: api_key, value}
 *   crm:                                        # OAuth client credentials: the token is cached
 *     kind: http                                # and fetched again before it expires
 *     baseUrl: https://crm.example.com/api
 *     auth:
 *       oauth:
 *         tokenUrl: https://auth.example.com/oauth/token
 *         clientId: mcp-run
 *         clientSecret: "${file:/run/secrets/crm_client_secret}"
 *         scopes: [contacts.read]
 * ```
 *
 * `auth: { tokenExchange: {tokenUrl, clientId, clientSecret, audience?, scope?} }` trades each
 * caller's verified inbound token for an upstream token of its own (RFC 8693; see oauth.ts). The
 * inbound token is never sent to the API.
 */
import type { Pool } from 'undici';
import { problems } from '../../errors.js';
import type { HttpCapability, HttpResponse, KindContext, SourceKind } from '../contract/kinds.js';
import { clientCredentials, type TokenSource, tokenExchange } from '../shared/oauth.js';
import { authParts, type HttpAuth } from '../shared/outbound-auth.js';
import { attemptRequest } from './attempt.js';
import { checkHeaders, checkRequestPath, isLoopbackHost } from './headers.js';
import { isConnectionReset, withRetries } from './retry.js';
import {
  DEFAULT_HTTP_TIMEOUT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_RETRIES,
  httpSourceInfo,
} from './source.info.js';

export type { HttpAuth };

export interface HttpSourceConfig {
  readonly baseUrl: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly auth?: HttpAuth;
  readonly timeoutMs?: number;
  readonly maxConcurrent?: number;
  readonly maxResponseBytes?: number;
  readonly retries?: number;
}

export const httpSource: SourceKind<HttpSourceConfig> = {
  ...httpSourceInfo,

  async open(config, ctx) {
    const url = parseBaseUrl(config.baseUrl, ctx);
    const headerProblems = checkHeaders(config.headers ?? {});
    for (const [name, reason] of headerProblems) {
      ctx.error(['headers', name], problems.MANIFEST_INVALID_VALUE(reason));
    }
    if (!url || headerProblems.length > 0) return undefined;
    const auth = authParts(config.auth);
    const tokens = tokenSourceOf(config.auth);
    // undici (~60 ms and a few MB) loads on the source's first request or ping, not when the
    // manifest is served: the first answers a client asks for (tools/list) never need it.
    let opened: Pool | undefined;
    let opening: Promise<Pool> | undefined;
    const pool = (): Promise<Pool> =>
      (opening ??= import('undici').then(({ Pool: UndiciPool }) => {
        opened = new UndiciPool(url.origin, { connections: config.maxConcurrent ?? null });
        return opened;
      }));
    const basePath = url.pathname.replace(/\/+$/, '');
    const fixedHeaders = lowerKeys(config.headers ?? {});
    const limits = {
      timeoutMs: config.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS,
      retries: config.retries ?? DEFAULT_RETRIES,
      maxBytes: config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    };

    const http: HttpCapability = {
      baseUrl: url.href.replace(/\/$/, ''),
      loopback: isLoopbackHost(url.hostname),
      redact: (text) => {
        // Called on every string of every answer: a source without credentials does no work.
        let out = text;
        for (const secret of auth.secrets) out = out.split(secret).join('***');
        if (tokens !== undefined) for (const secret of tokens.held()) out = out.split(secret).join('***');
        return out;
      },
      async request(request): Promise<HttpResponse> {
        checkRequestPath(request.path);
        const invalid = checkHeaders(request.headers ?? {});
        if (invalid.length > 0) throw new Error(invalid[0]![1]);
        const method = request.method.toUpperCase();
        const query = [...(request.query ?? []), ...auth.query];
        const target = basePath + request.path + queryString(query);
        const headers = { ...fixedHeaders, ...lowerKeys(request.headers ?? {}), ...auth.headers };
        if (tokens !== undefined) {
          headers.authorization = `Bearer ${await tokens.token(request.identity, request.signal)}`;
        }
        const retries = request.retries ?? limits.retries;
        const timeoutMs = request.timeoutMs ?? limits.timeoutMs;
        try {
          const connections = await pool();
          const response = await withRetries(method, retries, request.signal, timeoutMs, (deadline) =>
            attemptRequest(connections, {
              method,
              target,
              headers,
              ...(request.body !== undefined && { body: request.body }),
              timeoutMs,
              deadline,
              maxBytes: limits.maxBytes,
              signal: request.signal,
            }),
          );
          if (response.status === 401) tokens?.refused(request.identity);
          return response;
        } catch (err) {
          throw new Error(connectionMessage(err, url.origin));
        }
      },
    };

    return {
      capabilities: { http },
      async ping(signal) {
        // Reachable means the origin answers at all: any status will do, a refused connection not.
        try {
          const res = await (await pool()).request({ method: 'HEAD', path: basePath || '/', signal });
          await res.body.dump();
        } catch (err) {
          throw new Error(connectionMessage(err, url.origin));
        }
      },
      pool: () => {
        const s = opened?.stats;
        return { total: s?.connected ?? 0, idle: s?.free ?? 0, waiting: s?.pending ?? 0 };
      },
      async dispose() {
        const connections = await opening?.catch(() => undefined);
        if (connections === undefined) return;
        try {
          await connections.close();
        } catch {
          await connections.destroy().catch(() => {});
        }
      },
    };
  },
};

function tokenSourceOf(auth: HttpAuth | undefined): TokenSource | undefined {
  if (auth && 'oauth' in auth) return clientCredentials(auth.oauth);
  if (auth && 'tokenExchange' in auth) return tokenExchange(auth.tokenExchange);
  return undefined;
}

function parseBaseUrl(text: string, ctx: KindContext): URL | undefined {
  const fail = (reason: string) => {
    ctx.error(['baseUrl'], problems.MANIFEST_INVALID_VALUE(reason));
    return undefined;
  };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail(`baseUrl ${JSON.stringify(text)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return fail('baseUrl must be http:// or https://');
  if (url.username || url.password) {
    return fail('baseUrl may not contain credentials; put them in auth: (they are then redacted)');
  }
  if (url.search || url.hash) {
    return fail('baseUrl may not have a query or fragment; declare query parameters on the tools');
  }
  return url;
}

function queryString(pairs: readonly (readonly [string, string])[]): string {
  if (pairs.length === 0) return '';
  return `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`;
}

function lowerKeys(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function connectionMessage(err: unknown, origin: string): string {
  const code = (err as { code?: string }).code;
  const message = (err as Error).message;
  if (code === 'ECONNREFUSED') return `cannot connect to ${origin}: the connection was refused`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot resolve the host of ${origin}`;
  if (isConnectionReset(err)) return `the connection to ${origin} was closed before the answer was complete`;
  return message;
}
