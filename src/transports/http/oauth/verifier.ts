/**
 * Access-token verification for the OAuth resource server (RFC 9068 JWTs, RFC 7662 introspection).
 *
 * A JWT is checked by `jose` against the issuer's JWKS (fetched from the issuer's metadata unless
 * `jwksUri` is given), which jose caches and re-fetches when a token names an unknown `kid` (key
 * rotation), at most once per cooldown. Checked: the signature with an asymmetric algorithm from the
 * allow list (so `alg: none` and HMAC-with-the-public-key never pass), `iss`, `exp`/`nbf` with a small
 * leeway, and `aud` naming this resource (RFC 8707). A token that is not a JWT goes to introspection
 * when it is configured, else it is invalid.
 *
 * Outcomes: a Principal, keyed on the token's `sub` (else its `client_id`); `invalid` (401,
 * `error="invalid_token"`), also for a valid token that names neither; or `unavailable` (503) when the
 * JWKS, the issuer's metadata or the introspection endpoint cannot be reached: a token that cannot be
 * checked is never accepted. A JWT that no key could make valid (its algorithm, issuer, audience or
 * times) is refused with 401 before the keys are fetched, so an outage answers 503 only to tokens
 * that might be good. Token values are never put into a message or a log line.
 */
import type { createRemoteJWKSet, JWTPayload } from 'jose';
import { type Principal, principalFault, principalOf } from './principal.js';

export type { Principal } from './principal.js';

export interface IntrospectionOptions {
  /** The RFC 7662 endpoint; default: `introspection_endpoint` from the issuer's metadata. */
  readonly endpoint?: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface VerifierOptions {
  /** The authorization server's issuer identifier; tokens must carry exactly this `iss`. */
  readonly issuer: string;
  /** Where the signing keys are; default: `jwks_uri` from the issuer's metadata. */
  readonly jwksUri?: string;
  /** Accepted JWS algorithms; default the common asymmetric ones. */
  readonly algorithms?: readonly string[];
  /** Leeway for `exp`/`nbf`/`iat`, in seconds. Default 30. */
  readonly clockToleranceSec?: number;
  /** Opaque (non-JWT) tokens are checked here; without it, only JWTs are accepted. */
  readonly introspection?: IntrospectionOptions;
  /** Time limit of each fetch (metadata, JWKS, introspection). Default 5000 ms. */
  readonly timeoutMs?: number;
  /** An unknown `kid` re-fetches the JWKS at most this often (rotation). Default 30000 ms. */
  readonly jwksCooldownMs?: number;
}

export type Verdict =
  | { readonly ok: true; readonly principal: Principal }
  | { readonly ok: false; readonly status: 401 | 503; readonly description: string };

export const DEFAULT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

type KeySet = ReturnType<typeof createRemoteJWKSet>;

let jose: Promise<typeof import('jose')> | undefined;
/** Loaded with the first token: a server without OAuth never loads jose. */
const loadJose = (): Promise<typeof import('jose')> => {
  jose ??= import('jose');
  return jose;
};

interface IssuerMetadata {
  readonly jwks_uri?: string;
  readonly introspection_endpoint?: string;
}

export class TokenVerifier {
  private keys: KeySet | undefined;
  private metadata: Promise<IssuerMetadata> | undefined;
  private readonly algorithms: string[];
  private readonly timeoutMs: number;

  /** `audience` is this resource's identifier; it may be set once the listening URL is known. */
  constructor(
    private readonly options: VerifierOptions,
    public audience: string,
  ) {
    this.algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)].filter((a) => a !== 'none');
    this.timeoutMs = options.timeoutMs ?? 5000;
  }

  /**
   * `audiences`: the identifiers a token may name, this resource's by default; a toolset's endpoint
   * accepts its own and the server's (docs/security.md).
   */
  async verify(token: string, audiences: readonly string[] = [this.audience]): Promise<Verdict> {
    const { decodeProtectedHeader, decodeJwt, jwtVerify } = await loadJose();
    if (!looksLikeJwt(token, decodeProtectedHeader)) {
      if (this.options.introspection !== undefined)
        return this.introspect(token, this.options.introspection, audiences);
      return invalid('the access token is not a JWT');
    }
    // A token that could never pass is refused before the keys are asked for: with the
    // authorization server down, only a token whose signature needs its keys waits for them (503).
    const hopeless = this.hopeless(token, decodeProtectedHeader, decodeJwt, audiences);
    if (hopeless !== undefined) return hopeless;
    let keys: KeySet;
    try {
      keys = await this.keySet();
    } catch (err) {
      return unavailable(`the authorization server's metadata could not be read (${reason(err)})`);
    }
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.options.issuer,
        audience: [...audiences],
        algorithms: this.algorithms,
        clockTolerance: this.options.clockToleranceSec ?? 30,
        requiredClaims: ['exp'],
      });
      return admit(payload, this.options.issuer, token);
    } catch (err) {
      return classify(err);
    }
  }

  /**
   * The 401 for a JWT that fails whatever the keys say: an algorithm not accepted (`none`, HMAC), a
   * payload that is not a claims set, another issuer or audience, no `exp`, expired, not yet valid,
   * no principal (principalFault).
   * The claims are unverified here, so they can only refuse, never admit: jwtVerify checks them
   * again against the signature.
   */
  private hopeless(
    token: string,
    decodeProtectedHeader: typeof import('jose').decodeProtectedHeader,
    decodeJwt: typeof import('jose').decodeJwt,
    accepted: readonly string[],
  ): Verdict | undefined {
    const { alg } = decodeProtectedHeader(token);
    if (typeof alg !== 'string' || !this.algorithms.includes(alg))
      return invalid(DESCRIPTIONS.ERR_JOSE_ALG_NOT_ALLOWED!);
    let claims: JWTPayload;
    try {
      claims = decodeJwt(token);
    } catch {
      return invalid(DESCRIPTIONS.ERR_JWT_INVALID!);
    }
    if (claims.iss !== this.options.issuer) return invalid('the access token has another issuer');
    const audiences = Array.isArray(claims.aud) ? claims.aud : claims.aud === undefined ? [] : [claims.aud];
    if (!audiences.some((a) => accepted.includes(a)))
      return invalid('the access token is not meant for this resource');
    const now = Math.floor(Date.now() / 1000);
    const leeway = this.options.clockToleranceSec ?? 30;
    if (typeof claims.exp !== 'number') return invalid('the access token\'s "exp" claim is not acceptable');
    if (claims.exp + leeway <= now) return invalid(DESCRIPTIONS.ERR_JWT_EXPIRED!);
    if (typeof claims.nbf === 'number' && claims.nbf - leeway > now)
      return invalid('the access token is not yet valid');
    const fault = principalFault(claims);
    return fault === undefined ? undefined : invalid(fault);
  }

  private async keySet(): Promise<KeySet> {
    if (this.keys !== undefined) return this.keys;
    const uri = this.options.jwksUri ?? (await this.issuerMetadata()).jwks_uri;
    if (typeof uri !== 'string') throw new Error('the issuer metadata has no jwks_uri');
    const { createRemoteJWKSet } = await loadJose();
    this.keys ??= createRemoteJWKSet(new URL(uri), {
      timeoutDuration: this.timeoutMs,
      cooldownDuration: this.options.jwksCooldownMs ?? 30_000,
    });
    return this.keys;
  }

  /** RFC 8414 metadata, then OpenID Connect Discovery; a failure is forgotten, so the next request retries. */
  private issuerMetadata(): Promise<IssuerMetadata> {
    this.metadata ??= (async () => {
      const issuer = new URL(this.options.issuer);
      const path = issuer.pathname === '/' ? '' : issuer.pathname.replace(/\/$/, '');
      const candidates = [
        `${issuer.origin}/.well-known/oauth-authorization-server${path}`,
        `${issuer.origin}${path}/.well-known/openid-configuration`,
      ];
      let last: unknown;
      for (const url of candidates) {
        try {
          const res = await fetch(url, {
            signal: AbortSignal.timeout(this.timeoutMs),
            headers: { accept: 'application/json' },
          });
          if (res.status !== 200) {
            last = new Error(`${url} answered ${res.status}`);
            continue;
          }
          const body = (await res.json()) as IssuerMetadata & { issuer?: unknown };
          if (body.issuer !== this.options.issuer) throw new Error(`${url} names another issuer`);
          return body;
        } catch (err) {
          last = err;
        }
      }
      throw last;
    })();
    const pending = this.metadata;
    pending.catch(() => {
      if (this.metadata === pending) this.metadata = undefined;
    });
    return pending;
  }

  private async introspect(
    token: string,
    options: IntrospectionOptions,
    accepted: readonly string[],
  ): Promise<Verdict> {
    let endpoint: string | undefined;
    try {
      endpoint = options.endpoint ?? (await this.issuerMetadata()).introspection_endpoint;
    } catch (err) {
      return unavailable(`the authorization server's metadata could not be read (${reason(err)})`);
    }
    if (endpoint === undefined)
      return unavailable('the authorization server names no introspection_endpoint');
    let body: Record<string, unknown>;
    try {
      const basic = Buffer.from(
        `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`,
      ).toString('base64');
      const res = await fetch(endpoint, {
        method: 'POST',
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
      });
      if (res.status !== 200) return unavailable(`introspection answered ${res.status}`);
      body = (await res.json()) as Record<string, unknown>;
    } catch (err) {
      return unavailable(`introspection failed (${reason(err)})`);
    }
    if (body.active !== true) return invalid('the access token is not active');
    if (body.iss !== undefined && body.iss !== this.options.issuer)
      return invalid('the access token has another issuer');
    const now = Math.floor(Date.now() / 1000);
    const leeway = this.options.clockToleranceSec ?? 30;
    if (typeof body.exp === 'number' && body.exp + leeway <= now) return invalid('the access token expired');
    if (typeof body.nbf === 'number' && body.nbf - leeway > now)
      return invalid('the access token is not yet valid');
    const aud = body.aud;
    const audiences = Array.isArray(aud) ? aud : aud === undefined ? [] : [aud];
    if (!audiences.some((a) => typeof a === 'string' && accepted.includes(a)))
      return invalid('the access token is not meant for this resource');
    return admit(body as JWTPayload, this.options.issuer, token);
  }
}

function looksLikeJwt(
  token: string,
  decodeProtectedHeader: typeof import('jose').decodeProtectedHeader,
): boolean {
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/.test(token)) return false;
  try {
    decodeProtectedHeader(token);
    return true;
  } catch {
    return false;
  }
}

/** jose's error codes that mean the keys could not be fetched, as opposed to a bad token. */
const UNAVAILABLE = new Set(['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID', 'ERR_JOSE_GENERIC']);

const DESCRIPTIONS: Record<string, string> = {
  ERR_JWT_EXPIRED: 'the access token expired',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'the access token signature does not verify',
  ERR_JWKS_NO_MATCHING_KEY: 'the access token is signed with an unknown key',
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: 'the access token does not name its key unambiguously',
  ERR_JOSE_ALG_NOT_ALLOWED: 'the access token is signed with an algorithm that is not accepted',
  ERR_JOSE_NOT_SUPPORTED: 'the access token is signed with an algorithm that is not accepted',
  ERR_JWS_INVALID: 'the access token is malformed',
  ERR_JWT_INVALID: 'the access token is malformed',
};

function classify(err: unknown): Verdict {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE.has(code)) return unavailable('the signing keys could not be fetched');
    if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') {
      const claim = (err as { claim?: unknown }).claim;
      if (claim === 'iss') return invalid('the access token has another issuer');
      if (claim === 'aud') return invalid('the access token is not meant for this resource');
      if (claim === 'nbf') return invalid('the access token is not yet valid');
      return invalid(`the access token's "${String(claim)}" claim is not acceptable`);
    }
    return invalid(DESCRIPTIONS[code] ?? 'the access token is not valid');
  }
  // fetch() itself failed (connection refused, DNS, abort): the keys cannot be had.
  return unavailable('the signing keys could not be fetched');
}

const invalid = (description: string): Verdict => ({ ok: false, status: 401, description });

/** A verified token's verdict: its principal, or 401 when it names none (principal.ts). */
function admit(claims: JWTPayload, issuer: string, token: string): Verdict {
  const named = principalOf(claims, issuer, token);
  return typeof named === 'string' ? invalid(named) : { ok: true, principal: named };
}
const unavailable = (description: string): Verdict => ({ ok: false, status: 503, description });

/** An error's message for a 503 description; these come from fetch/URLs, never from a token. */
function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
