/**
 * Outbound OAuth token sources (src/kinds/shared/oauth.ts) against a real token endpoint on
 * 127.0.0.1: a shared fetch survives one waiter's cancellation, failures read as sentences without
 * secrets, a token exchange is per inbound token and refuses passthrough.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { CallerIdentity } from '../../../src/kinds/contract/types.js';
import { clientCredentials, tokenExchange } from '../../../src/kinds/shared/oauth.js';

const SECRET = 'unit-client-secret-3321';

describe('outbound OAuth token sources', () => {
  let server: Server;
  let url = '';
  let requests = 0;
  /** What the endpoint answers next: set by each test. */
  let answer: (form: URLSearchParams) => { status: number; body: string; delayMs?: number };
  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (c: string) => {
        body += c;
      });
      req.on('end', () => {
        requests++;
        const a = answer(new URLSearchParams(body));
        setTimeout(() => {
          res.statusCode = a.status;
          res.end(a.body);
        }, a.delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const ok = (token: string) => ({
    status: 200,
    body: JSON.stringify({ access_token: token, expires_in: 3600 }),
  });
  const config = () => ({ tokenUrl: url, clientId: 'c', clientSecret: SECRET });
  const identity = (token: string, subject?: string): CallerIdentity => ({
    issuer: 'https://issuer.test',
    subject,
    claims: {},
    expiresAt: Math.floor(Date.now() / 1000) + 600,
    accessToken: () => token,
  });

  it('a waiter that is cancelled stops waiting; the shared fetch still serves the others, once', async () => {
    requests = 0;
    answer = () => ({ ...ok('shared-token'), delayMs: 200 });
    const source = clientCredentials(config());
    const cancelled = new AbortController();
    const first = source.token(undefined, cancelled.signal);
    const second = source.token(undefined, new AbortController().signal);
    cancelled.abort();
    await assert.rejects(first, /cancelled while fetching an access token/);
    assert.equal(await second, 'shared-token');
    assert.equal(await source.token(undefined, new AbortController().signal), 'shared-token');
    assert.equal(requests, 1);
    source.refused(undefined);
    answer = () => ok('after-refusal');
    assert.equal(await source.token(undefined, new AbortController().signal), 'after-refusal');
  });

  it('failures are sentences that name the endpoint, never the secret nor the description', async () => {
    const signal = new AbortController().signal;
    answer = () => ({
      status: 400,
      body: JSON.stringify({ error: 'invalid_scope', error_description: SECRET }),
    });
    await assert.rejects(clientCredentials(config()).token(undefined, signal), (err: Error) => {
      assert.match(
        err.message,
        /the token endpoint .*\/token refused the token request with 400: invalid_scope$/,
      );
      assert.ok(!err.message.includes(SECRET));
      return true;
    });
    answer = () => ({ status: 500, body: '<html>oops</html>' });
    await assert.rejects(
      clientCredentials(config()).token(undefined, signal),
      /refused the token request with 500$/,
    );
    answer = () => ({ status: 200, body: JSON.stringify({ token_type: 'Bearer' }) });
    await assert.rejects(
      clientCredentials(config()).token(undefined, signal),
      /answered without an access_token/,
    );
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = clientCredentials({ ...config(), tokenUrl: `http://127.0.0.1:${port}/token` });
    await assert.rejects(down.token(undefined, signal), /cannot be reached \(ECONNREFUSED\)/);
  });

  it('token exchange: one exchange per inbound token, even without a subject; passthrough refused', async () => {
    const signal = new AbortController().signal;
    requests = 0;
    answer = (form) => ok(`upstream-for-${form.get('subject_token')?.slice(0, 6)}`);
    const source = tokenExchange({ ...config(), audience: 'api' });
    assert.equal(await source.token(identity('tokenA-111'), signal), 'upstream-for-tokenA');
    assert.equal(await source.token(identity('tokenB-222'), signal), 'upstream-for-tokenB');
    assert.equal(await source.token(identity('tokenA-111'), signal), 'upstream-for-tokenA');
    assert.equal(requests, 2);
    await assert.rejects(source.token(undefined, signal), /no verified caller/);
    answer = (form) => ok(form.get('subject_token') ?? '');
    await assert.rejects(
      source.token(identity('tokenC-333'), signal),
      /returned the caller's own token unchanged/,
    );
  });
});
