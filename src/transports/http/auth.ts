/**
 * Inbound authentication, two ways that may be combined:
 *
 * - Static bearer tokens (`Authorization: Bearer …`) and API keys (`X-API-Key: …`), for simple
 *   cases. Each presented credential is hashed and compared with every configured one's hash by
 *   `timingSafeEqual`, so neither the content nor the length of a secret leaks through timing, and
 *   the loop never exits early. A static credential carries every right (no scopes apply).
 * - OAuth 2.1 resource server (`oauth`): bearer access tokens issued by the configured
 *   authorization server for this resource, verified by oauth/verifier.ts; their scopes decide what
 *   the caller may see and use (oauth/scopes.ts). A 401 points to the RFC 9728 metadata.
 *
 * `authenticate` yields the request's Principal, which everything downstream uses (the session
 * share, list filtering); nothing else parses credentials. Credentials are never logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { problems } from '../../errors.js';
import { bearerChallenge, metadataDocument } from './oauth/metadata.js';
import { missingScopes, type ScopePolicy } from './oauth/scopes.js';
import { type Principal, TokenVerifier, type VerifierOptions } from './oauth/verifier.js';
import { ProblemError } from './wire.js';

export type { ScopePolicy } from './oauth/scopes.js';
export type { IntrospectionOptions, Principal, VerifierOptions } from './oauth/verifier.js';

export interface OAuthOptions extends VerifierOptions {
  /** This server's resource identifier (RFC 8707), the `aud` its tokens carry. Default: the listening URL. */
  readonly resource?: string;
  /** Named in the metadata; default `[issuer]`. */
  readonly authorizationServers?: readonly string[];
  readonly scopes?: ScopePolicy;
  /** `resource_name` in the metadata. */
  readonly resourceName?: string;
}

export interface AuthOptions {
  /** Accepted `Authorization: Bearer <token>` values. */
  readonly bearerTokens?: readonly string[];
  /** Accepted `X-API-Key` values. */
  readonly apiKeys?: readonly string[];
  /** Accept OAuth access tokens for this resource. */
  readonly oauth?: OAuthOptions;
}

/** Sent with a 401 when only static credentials are configured (no OAuth metadata to point to). */
export const WWW_AUTHENTICATE = 'Bearer realm="mcp-run"';

export type AuthResult =
  | { readonly ok: true; readonly principal: Principal | undefined }
  | {
      readonly ok: false;
      readonly status: 401 | 403 | 503;
      readonly message: string;
      readonly headers: Readonly<Record<string, string>>;
    };

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

export class Authenticator {
  private readonly tokens: readonly Buffer[];
  private readonly keys: readonly Buffer[];
  private readonly verifier: TokenVerifier | undefined;
  private resource: string | undefined;

  constructor(private readonly options: AuthOptions) {
    this.tokens = (options.bearerTokens ?? []).filter((t) => t !== '').map(digest);
    this.keys = (options.apiKeys ?? []).filter((k) => k !== '').map(digest);
    this.resource = options.oauth?.resource;
    if (options.oauth !== undefined) this.verifier = new TokenVerifier(options.oauth, this.resource ?? '');
  }

  get enabled(): boolean {
    return this.tokens.length > 0 || this.keys.length > 0 || this.verifier !== undefined;
  }

  get oauth(): boolean {
    return this.verifier !== undefined;
  }

  get scopes(): ScopePolicy {
    return this.options.oauth?.scopes ?? {};
  }

  /** The resource identifier; the listening URL unless configured. */
  get resourceId(): string {
    return this.resource ?? '';
  }

  /** Called once the server listens: the default resource identifier is its URL. */
  listening(url: string): void {
    if (this.resource !== undefined || this.verifier === undefined) return;
    this.resource = url;
    this.verifier.audience = url;
  }

  /**
   * The resource identifier of one toolset's endpoint: the server's with `/<name>` appended, as the
   * endpoint's path is the server's with `/<name>` appended. Each toolset is its own protected
   * resource (RFC 9728), so a client asks for tokens meant for it.
   */
  toolsetResource(toolset: string | undefined): string {
    return toolset === undefined ? this.resourceId : `${this.resourceId.replace(/\/$/, '')}/${toolset}`;
  }

  /**
   * The RFC 9728 document of the server, or of one toolset's endpoint (its resource, and the scopes
   * that endpoint needs besides the server's); undefined without OAuth.
   */
  metadata(toolset?: string, toolsetScopes: readonly string[] = []): object | undefined {
    const oauth = this.options.oauth;
    if (oauth === undefined) return undefined;
    const policy = oauth.scopes ?? {};
    const all = new Set([...(policy.required ?? []), ...toolsetScopes]);
    for (const table of [policy.tools, policy.resources, policy.prompts])
      for (const scopes of Object.values(table ?? {})) for (const s of scopes) all.add(s);
    return metadataDocument({
      resource: this.toolsetResource(toolset),
      authorizationServers: oauth.authorizationServers ?? [oauth.issuer],
      scopesSupported: [...all].sort(),
      ...(oauth.resourceName === undefined ? {} : { resourceName: oauth.resourceName }),
    });
  }

  /**
   * Who sent the request, or the 401/403/503 to answer. On a toolset's endpoint (`toolset`), an
   * access token may name that endpoint or the whole server as its audience, and a challenge
   * points to that endpoint's metadata. `endpointScopes`: what every request to this endpoint needs
   * besides `required` (a toolset's scopes), named in the 401 so a client asks for all at once.
   */
  async authenticate(
    req: IncomingMessage,
    toolset?: string,
    endpointScopes: readonly string[] = [],
  ): Promise<AuthResult> {
    if (!this.enabled) return { ok: true, principal: undefined };
    const bearer = BEARER.exec(req.headers.authorization ?? '')?.[1];
    const key = req.headers['x-api-key'];
    if (bearer !== undefined) {
      const index = indexOf(digest(bearer), this.tokens);
      if (index >= 0) return { ok: true, principal: staticPrincipal(`token#${index}`) };
    }
    if (typeof key === 'string') {
      const index = indexOf(digest(key), this.keys);
      if (index >= 0) return { ok: true, principal: staticPrincipal(`key#${index}`) };
    }
    if (this.verifier === undefined) {
      return {
        ok: false,
        status: 401,
        message: 'Unauthorized: send Authorization: Bearer <token> or X-API-Key: <key>',
        headers: { 'WWW-Authenticate': WWW_AUTHENTICATE },
      };
    }
    const required = this.scopes.required ?? [];
    if (bearer === undefined) {
      const scopes = [...new Set([...required, ...endpointScopes])].sort();
      return this.challenge(
        401,
        'Unauthorized: send Authorization: Bearer <access token>',
        { scopes },
        toolset,
      );
    }
    const audiences =
      toolset === undefined ? [this.resourceId] : [this.toolsetResource(toolset), this.resourceId];
    const verdict = await this.verifier.verify(bearer, audiences);
    if (!verdict.ok) {
      if (verdict.status === 503) {
        return {
          ok: false,
          status: 503,
          message: `Service Unavailable: the access token cannot be checked now: ${verdict.description}`,
          headers: { 'Retry-After': '5' },
        };
      }
      return this.challenge(
        401,
        `Unauthorized: ${verdict.description}`,
        { error: 'invalid_token', description: verdict.description },
        toolset,
      );
    }
    const missing = missingScopes(verdict.principal, required);
    if (missing.length > 0) return this.insufficient(required, toolset);
    return { ok: true, principal: verdict.principal };
  }

  /** The 403 for a caller whose token lacks some of `needed` (every scope the operation needs). */
  insufficient(needed: readonly string[], toolset?: string): AuthResult & { ok: false } {
    const description = `the access token lacks a needed scope; this needs: ${needed.join(' ')}`;
    return this.challenge(
      403,
      `Forbidden: ${description}`,
      { error: 'insufficient_scope', scopes: needed, description },
      toolset,
    );
  }

  private challenge(
    status: 401 | 403,
    message: string,
    challenge: Parameters<typeof bearerChallenge>[1],
    toolset: string | undefined,
  ): AuthResult & { ok: false } {
    return {
      ok: false,
      status,
      message,
      headers: { 'WWW-Authenticate': bearerChallenge(this.toolsetResource(toolset), challenge) },
    };
  }
}

const staticPrincipal = (label: string): Principal => ({
  label,
  subject: undefined,
  clientId: undefined,
  scopes: undefined,
});

/** The position of the matching credential, or -1; every entry is compared, in constant time each. */
function indexOf(candidate: Buffer, accepted: readonly Buffer[]): number {
  let found = -1;
  for (const [i, value] of accepted.entries()) if (timingSafeEqual(candidate, value) && found < 0) found = i;
  return found;
}

/**
 * Reads the accepted credentials from environment variables named on the command line (so secrets
 * never appear in argv or shell history). Each holds one or more values, comma-separated. Throws
 * a Problem (HTTP_AUTH_ENV_MISSING) when a named variable is unset or holds no value.
 */
export function authFromEnv(
  names: { readonly tokenEnv?: string; readonly apiKeyEnv?: string },
  env: NodeJS.ProcessEnv,
): AuthOptions {
  const read = (name: string | undefined, flag: string): string[] => {
    if (name === undefined) return [];
    const values = (env[name] ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '');
    if (values.length === 0) throw new ProblemError(problems.HTTP_AUTH_ENV_MISSING(name, flag));
    return values;
  };
  return {
    bearerTokens: read(names.tokenEnv, '--auth-token-env'),
    apiKeys: read(names.apiKeyEnv, '--api-key-env'),
  };
}
