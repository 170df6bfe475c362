/**
 * Optional inbound authentication: static bearer tokens (`Authorization: Bearer …`) and API keys
 * (`X-API-Key: …`). Each presented credential is hashed and compared with every configured one's
 * hash by `timingSafeEqual`, so neither the content nor the length of a secret leaks through timing,
 * and the loop never exits early. Credentials are never logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { problems } from '../../errors.js';
import { ProblemError } from './wire.js';

export interface AuthOptions {
  /** Accepted `Authorization: Bearer <token>` values. */
  readonly bearerTokens?: readonly string[];
  /** Accepted `X-API-Key` values. */
  readonly apiKeys?: readonly string[];
}

/** Sent with every 401: the token-based scheme, without OAuth metadata (mcp-run is not an AS). */
export const WWW_AUTHENTICATE = 'Bearer realm="mcp-run"';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

export class Authenticator {
  private readonly tokens: readonly Buffer[];
  private readonly keys: readonly Buffer[];

  constructor(options: AuthOptions) {
    this.tokens = (options.bearerTokens ?? []).filter((t) => t !== '').map(digest);
    this.keys = (options.apiKeys ?? []).filter((k) => k !== '').map(digest);
  }

  get enabled(): boolean {
    return this.tokens.length > 0 || this.keys.length > 0;
  }

  /** True when auth is off, or the request carries one accepted credential. */
  admits(req: IncomingMessage): boolean {
    if (!this.enabled) return true;
    const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '')?.[1];
    const key = req.headers['x-api-key'];
    const tokenOk = bearer !== undefined && matchesAny(digest(bearer), this.tokens);
    const keyOk = typeof key === 'string' && matchesAny(digest(key), this.keys);
    return tokenOk || keyOk;
  }
}

function matchesAny(candidate: Buffer, accepted: readonly Buffer[]): boolean {
  let found = false;
  for (const value of accepted) found = timingSafeEqual(candidate, value) || found;
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
