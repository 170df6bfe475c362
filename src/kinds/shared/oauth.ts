/**
 * Outbound OAuth for an `http` or `mcp` source: the access token the API wants, from its authorization server.
 *
 * - `oauth` (client credentials, RFC 6749 §4.4): one token for the source, fetched on first use,
 *   cached, and fetched again before it expires (`expires_in`, less a margin). Calls that need a
 *   token while one is being fetched wait for that fetch: there is one request, not one per call.
 * - `tokenExchange` (RFC 8693): the caller's verified inbound token is the `subject_token` of an
 *   exchange, and the upstream token that comes back is used for that caller only, cached per
 *   inbound token (never beyond its expiry). The inbound token itself is never sent to the API: the MCP
 *   specification forbids token passthrough.
 *
 * A fetch shared by several calls is not tied to any one of them: a call that is cancelled stops
 * waiting, and the others still get the token.
 *
 * A failure is an Error with a sentence for the model that names the token endpoint and the
 * server's `error` code, never the client secret nor a token (the source redacts both besides).
 */
import { createHash } from 'node:crypto';
import type { CallSignal } from '../../util/call-signal.js';
import type { CallerIdentity } from '../contract/types.js';

export interface ClientCredentialsConfig {
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scopes?: readonly string[];
  /** RFC 8707 resource indicator, for authorization servers that want one. */
  readonly resource?: string;
  /** `audience`, for authorization servers that want one (Auth0 and the like). */
  readonly audience?: string;
}

export interface TokenExchangeConfig {
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly audience?: string;
  readonly scope?: string;
  readonly resource?: string;
}

/** Time limit of one token request. */
const TOKEN_TIMEOUT_MS = 10_000;
/** A token endpoint's answer is small; a larger one is refused. */
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;
/** Without `expires_in`, a token is reused this long. */
const DEFAULT_LIFETIME_S = 300;
/** Exchanged tokens kept at most (one per caller); the oldest goes first. */
const MAX_EXCHANGED = 1000;

interface Held {
  readonly value: string;
  /** Epoch ms after which the token is fetched again. */
  readonly refreshAt: number;
}

export interface TokenSource {
  /** The upstream access token for this call; rejects with a sentence for the model. */
  token(identity: CallerIdentity | undefined, signal: CallSignal): Promise<string>;
  /** The API refused the token (401): forget it, so the next call fetches a new one. */
  refused(identity: CallerIdentity | undefined): void;
  /** The tokens held now, to redact from results. */
  held(): readonly string[];
}

export function clientCredentials(config: ClientCredentialsConfig): TokenSource {
  let current: Held | undefined;
  let pending: Promise<Held> | undefined;
  return {
    async token(_identity, signal) {
      if (current !== undefined && Date.now() < current.refreshAt) return current.value;
      pending ??= fetchToken(config, grant(config)).finally(() => {
        pending = undefined;
      });
      current = await untilAborted(pending, signal);
      return current.value;
    },
    refused() {
      current = undefined;
    },
    held: () => (current === undefined ? [] : [current.value]),
  };
}

function grant(config: ClientCredentialsConfig): Record<string, string> {
  return {
    grant_type: 'client_credentials',
    ...(config.scopes?.length ? { scope: config.scopes.join(' ') } : {}),
    ...(config.resource === undefined ? {} : { resource: config.resource }),
    ...(config.audience === undefined ? {} : { audience: config.audience }),
  };
}

export function tokenExchange(config: TokenExchangeConfig): TokenSource {
  const cache = new Map<string, Held>();
  const pending = new Map<string, Promise<Held>>();
  // Per inbound token (its hash, never the token): one caller's exchanged token is never another's,
  // even for tokens without a subject.
  const keyOf = (identity: CallerIdentity) =>
    createHash('sha256').update(identity.issuer).update('\0').update(identity.accessToken()).digest('hex');
  return {
    async token(identity, signal) {
      if (identity === undefined) {
        throw new Error(
          "this API is reached with the caller's own token (token exchange), and this call has no verified caller: call it over HTTP with an OAuth access token",
        );
      }
      const key = keyOf(identity);
      const held = cache.get(key);
      if (held !== undefined && Date.now() < held.refreshAt) return held.value;
      let fetching = pending.get(key);
      if (fetching === undefined) {
        fetching = fetchToken(
          config,
          {
            grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
            subject_token: identity.accessToken(),
            subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
            requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
            ...(config.audience === undefined ? {} : { audience: config.audience }),
            ...(config.scope === undefined ? {} : { scope: config.scope }),
            ...(config.resource === undefined ? {} : { resource: config.resource }),
          },
          identity.expiresAt,
        ).finally(() => pending.delete(key));
        pending.set(key, fetching);
      }
      const got = await untilAborted(fetching, signal);
      // The inbound token must never come back as the upstream one: that would be passthrough.
      if (got.value === identity.accessToken())
        throw new Error(`the token endpoint ${config.tokenUrl} returned the caller's own token unchanged`);
      cache.delete(key);
      cache.set(key, got);
      while (cache.size > MAX_EXCHANGED) cache.delete(cache.keys().next().value as string);
      return got.value;
    },
    refused(identity) {
      if (identity !== undefined) cache.delete(keyOf(identity));
    },
    held: () => [...cache.values()].map((h) => h.value),
  };
}

/** One token request with client_secret_basic; `notAfter` (epoch s) caps the cache lifetime. */
async function fetchToken(
  config: { readonly tokenUrl: string; readonly clientId: string; readonly clientSecret: string },
  form: Record<string, string>,
  notAfter?: number,
): Promise<Held> {
  const where = `the token endpoint ${config.tokenUrl}`;
  const basic = Buffer.from(
    `${encodeURIComponent(config.clientId)}:${encodeURIComponent(config.clientSecret)}`,
  ).toString('base64');
  let status: number;
  let text: string;
  try {
    const res = await fetch(config.tokenUrl, {
      method: 'POST',
      redirect: 'error',
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams(form).toString(),
    });
    status = res.status;
    text = await readCapped(res);
  } catch (err) {
    const name = (err as Error).name;
    if (name === 'TimeoutError') throw new Error(`${where} did not answer within ${TOKEN_TIMEOUT_MS} ms`);
    throw new Error(`${where} cannot be reached (${causeOf(err)})`);
  }
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: said below.
  }
  if (status !== 200) {
    const code = typeof body.error === 'string' ? `: ${safeCode(body.error)}` : '';
    throw new Error(`${where} refused the token request with ${status}${code}`);
  }
  const value = body.access_token;
  if (typeof value !== 'string' || value === '') throw new Error(`${where} answered without an access_token`);
  const lifetime =
    typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : DEFAULT_LIFETIME_S;
  // Fetch again before expiry: a tenth of the lifetime early, at most a minute.
  const margin = Math.min(60, lifetime / 10);
  let refreshAt = Date.now() + (lifetime - margin) * 1000;
  if (notAfter !== undefined) refreshAt = Math.min(refreshAt, notAfter * 1000);
  return { value, refreshAt };
}

/** The promise's outcome, or a rejection as soon as this call is cancelled. */
function untilAborted<T>(promise: Promise<T>, signal: CallSignal): Promise<T> {
  const cancelled = () => new Error('the call was cancelled while fetching an access token');
  if (signal.aborted) return Promise.reject(cancelled());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

async function readCapped(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_TOKEN_RESPONSE_BYTES) {
      await reader.cancel();
      throw new Error(`the answer is larger than ${MAX_TOKEN_RESPONSE_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** An OAuth error code is a short ASCII word; anything else is not repeated. */
function safeCode(code: string): string {
  return /^[\w.-]{1,64}$/.test(code) ? code : 'an error';
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return (err as Error).message;
}
