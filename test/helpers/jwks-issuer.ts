/**
 * An issuer stand-in on 127.0.0.1 for OAuth tests at the verifier's level: it publishes RFC 8414
 * metadata and a JWKS, and tokens are signed here with locally generated keys, so a test can mint
 * any claims set a real authorization server might (or should never) issue. The end-to-end flow with
 * a real authorization server is test/e2e/oidc-issuer.ts.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

export interface JwksIssuer {
  readonly url: string;
  /** The keys the JWKS publishes; tests add one to rotate. */
  readonly published: JWK[];
  jwksDown: boolean;
  close(): Promise<void>;
}

export async function startJwksIssuer(): Promise<JwksIssuer> {
  const published: JWK[] = [];
  const state = { jwksDown: false };
  const server: Server = createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (req.url === '/.well-known/oauth-authorization-server') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ issuer: base, jwks_uri: `${base}/jwks` }));
    } else if (req.url === '/jwks' && !state.jwksDown) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: published }));
    } else {
      res.writeHead(state.jwksDown ? 500 : 404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    published,
    get jwksDown() {
      return state.jwksDown;
    },
    set jwksDown(value: boolean) {
      state.jwksDown = value;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

export async function keyPair(kid: string): Promise<{ privateKey: PrivateKey; jwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

export interface Claims {
  iss?: string;
  aud?: string;
  scope?: string;
  exp?: number;
  nbf?: number;
  /** `alice` unless given; `undefined` leaves it out. */
  sub?: unknown;
  client_id?: unknown;
  [claim: string]: unknown;
}

/** An ES256 access token (`typ: at+jwt`) with these claims, `iat` now and `exp` in 5 minutes by default. */
export async function sign(key: PrivateKey, kid: string, claims: Claims): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const { exp = now + 300, ...rest } = claims;
  // A claim of the wrong type (a numeric `sub`) is signed as given: tests send what a server must refuse.
  return new SignJWT({ sub: 'alice', ...rest } as JWTPayload)
    .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
    .setIssuedAt(now)
    .setExpirationTime(exp)
    .sign(key);
}

/** Parses a `WWW-Authenticate: Bearer a="b", c="d"` challenge into its parameters. */
export function challenge(header: string | undefined): Record<string, string> {
  assert.ok(header?.startsWith('Bearer '), `WWW-Authenticate: ${header}`);
  if (header === undefined) return {};
  const params: Record<string, string> = {};
  for (const m of header.slice(7).matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g))
    params[m[1] as string] = (m[2] as string).replace(/\\(.)/g, '$1');
  return params;
}
