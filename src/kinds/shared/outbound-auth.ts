/**
 * The credentials of an `http` or `mcp` source: the headers and query parameters that carry them, and the
 * strings to redact from everything returned to the model (the raw values and their encodings).
 * OAuth tokens (`oauth`, `tokenExchange`) are fetched per call by oauth.ts; here only their client
 * secret is a string to redact.
 */
import type { ClientCredentialsConfig, TokenExchangeConfig } from './oauth.js';

export type HttpAuth =
  | { readonly bearer: string }
  | { readonly basic: { readonly username: string; readonly password: string } }
  | { readonly apiKey: { readonly header?: string; readonly query?: string; readonly value: string } }
  | { readonly oauth: ClientCredentialsConfig }
  | { readonly tokenExchange: TokenExchangeConfig };

/** Shorter credentials are not redacted (as in the logger): replacing every "1" would garble text. */
const MIN_SECRET_LENGTH = 4;

export function authParts(auth: HttpAuth | undefined): {
  headers: Record<string, string>;
  query: [string, string][];
  secrets: string[];
} {
  const headers: Record<string, string> = {};
  const query: [string, string][] = [];
  const secrets: string[] = [];
  if (auth && 'bearer' in auth) {
    headers.authorization = `Bearer ${auth.bearer}`;
    secrets.push(auth.bearer);
  } else if (auth && 'basic' in auth) {
    const encoded = Buffer.from(`${auth.basic.username}:${auth.basic.password}`).toString('base64');
    headers.authorization = `Basic ${encoded}`;
    secrets.push(auth.basic.password, encoded);
  } else if (auth && 'apiKey' in auth) {
    const { header, query: param, value } = auth.apiKey;
    if (header) headers[header.toLowerCase()] = value;
    if (param) query.push([param, value]);
    secrets.push(value, encodeURIComponent(value));
  } else if (auth && 'oauth' in auth) {
    secrets.push(auth.oauth.clientSecret, encodeURIComponent(auth.oauth.clientSecret));
  } else if (auth && 'tokenExchange' in auth) {
    secrets.push(auth.tokenExchange.clientSecret, encodeURIComponent(auth.tokenExchange.clientSecret));
  }
  return {
    headers,
    query,
    // Longest first, so a secret containing another is replaced whole.
    secrets: [...new Set(secrets)]
      .filter((s) => s.length >= MIN_SECRET_LENGTH)
      .sort((a, b) => b.length - a.length),
  };
}
