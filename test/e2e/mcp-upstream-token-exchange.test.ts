/**
 * `kind: mcp` over Streamable HTTP with `auth: { tokenExchange }`: each caller gets an upstream
 * session of its own, opened with the token its own was exchanged for (RFC 8693). Real parts:
 * oidc-provider issues the callers' tokens to `mcp-run --http` (server.auth); a token endpoint in
 * this file verifies each subject token against oidc-provider's keys and performs the exchange
 * (oidc-provider has no RFC 8693 grant; the http kind's test stands its endpoint up the same way);
 * the upstream is the v1 server library over node:http (test/fixtures/mcp-upstream/auth-http.ts),
 * recording every Authorization header it sees. The callers are the official v2 and v1 clients.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { type AuthUpstream, startAuthUpstream } from '../fixtures/mcp-upstream/auth-http.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';
import { type Issuer, startIssuer } from './oidc-issuer.js';

const REDIRECT = 'http://127.0.0.1:7/callback';
const SECRET = 'exchange-client-secret-3b9d71';
const LISTING = 'listing-token-of-the-source-5e2a';
const pin = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;

/** A token endpoint doing RFC 8693 token exchange for subject tokens oidc-provider signed. */
interface Exchanger {
  readonly url: string;
  /** Exchanged token → the subject it was issued for. */
  readonly issued: Map<string, string>;
  readonly grants: { subject: string; audience: string | null; scope: string | null }[];
  close(): Promise<void>;
}

/** Subjects whose exchanged tokens live one second (to see a session renewed before expiry). */
const SHORT_LIVED = new Set(['dave']);

async function startExchanger(issuer: Issuer, audience: () => string): Promise<Exchanger> {
  const keys = createRemoteJWKSet(new URL(`${issuer.url}/jwks`));
  const issued = new Map<string, string>();
  const grants: Exchanger['grants'] = [];
  let n = 0;
  const read = async (req: IncomingMessage) => {
    const parts: Buffer[] = [];
    for await (const chunk of req) parts.push(chunk as Buffer);
    return Buffer.concat(parts).toString('utf8');
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const form = new URLSearchParams(await read(req));
      res.setHeader('content-type', 'application/json');
      const [, secret] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
        .toString()
        .split(':')
        .map(decodeURIComponent);
      if (secret !== SECRET) {
        res.statusCode = 401;
        res.end(JSON.stringify({ error: 'invalid_client' }));
        return;
      }
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:token-exchange') {
        res.statusCode = 400;
        res.end(JSON.stringify({ error: 'unsupported_grant_type' }));
        return;
      }
      let subject: string;
      try {
        const { payload } = await jwtVerify(form.get('subject_token') ?? '', keys, {
          issuer: issuer.url,
          audience: audience(),
        });
        subject = String(payload.sub);
      } catch {
        res.statusCode = 400;
        res.end(JSON.stringify({ error: 'invalid_grant' }));
        return;
      }
      grants.push({ subject, audience: form.get('audience'), scope: form.get('scope') });
      const token = `exchanged-${subject}-${++n}-${Math.random().toString(36).slice(2)}`;
      issued.set(token, subject);
      res.end(
        JSON.stringify({
          access_token: token,
          issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
          token_type: 'Bearer',
          expires_in: SHORT_LIVED.has(subject) ? 1 : 3600,
        }),
      );
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`,
    issued,
    grants,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('kind: mcp with a token exchange: a session per caller (mcp-run --http, oidc-provider)', () => {
  let issuer: Issuer;
  let exchanger: Exchanger;
  let upstream: AuthUpstream;
  let cli: ServedCli;
  let dir: string;
  let resource = '';
  const inbound: string[] = [];
  /** Exchanged tokens the upstream no longer accepts (revoked there). */
  const revoked = new Set<string>();

  before(async () => {
    issuer = await startIssuer({ resource: () => resource, scopes: ['mcp'], clients: { caller: REDIRECT } });
    exchanger = await startExchanger(issuer, () => resource);
    upstream = await startAuthUpstream((token) =>
      token === LISTING ? 'listing' : revoked.has(token) ? undefined : exchanger.issued.get(token),
    );
    dir = await mkdtemp(join(tmpdir(), 'mcp-run-exchange-'));
    const manifest = [
      'server:',
      '  name: exchange',
      '  auth:',
      `    issuer: ${issuer.url}`,
      '    scopes: { required: [mcp] }',
      'sources:',
      '  files:',
      '    kind: mcp',
      `    url: ${upstream.url}`,
      `    auth: { tokenExchange: { tokenUrl: "${exchanger.url}", clientId: mcp-run, clientSecret: "\${env:CLIENT_SECRET}", audience: files, scope: read } }`,
      `    listingAuth: { bearer: "\${env:LISTING_TOKEN}" }`,
      '    maxSessions: 2',
      '    expose: { tools: {} }',
      '',
    ].join('\n');
    await writeFile(join(dir, 'mcp.yaml'), manifest);
    cli = await spawnHttpCli(
      [join(dir, 'mcp.yaml'), '--no-watch', '--log-format', 'json', '--log-level', 'debug'],
      {
        env: { ...process.env, CLIENT_SECRET: SECRET, LISTING_TOKEN: LISTING },
      },
    );
    resource = cli.url;
  });
  after(async () => {
    await cli?.stop();
    await upstream?.close();
    await exchanger?.close();
    await issuer?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const tokenFor = async (account: string) => {
    const token = await issuer.token('caller', account, 'mcp', resource);
    inbound.push(token);
    return token;
  };
  async function v2As(token: string): Promise<ClientV2> {
    const client = new ClientV2({ name: 'exchange', version: '1' }, pin);
    await client.connect(
      new HttpV2(new URL(cli.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    return client;
  }
  async function v1As(token: string): Promise<ClientV1> {
    const client = new ClientV1({ name: 'exchange', version: '1' });
    await client.connect(
      new HttpV1(new URL(cli.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    return client;
  }
  const textOf = (res: unknown) =>
    ((res as { content: { text?: string }[] }).content ?? []).map((b) => b.text ?? '').join('');
  /** The session ids the upstream opened for a subject, in order. */
  const sessionsOf = (subject: string) =>
    [...upstream.opened].filter(([, auth]) => exchanger.issued.get(auth.replace(/^Bearer /, '')) === subject);

  it('the lists were read with the listing credentials, and nothing else was sent before a call', () => {
    assert.ok(upstream.seen.length > 0);
    for (const r of upstream.seen) assert.equal(r.authorization, `Bearer ${LISTING}`);
    assert.equal(exchanger.grants.length, 0, 'no exchange without a caller');
  });

  it('two callers each get their own subject back, through their own session and exchanged token', async () => {
    const aliceToken = await tokenFor('alice');
    const bobToken = await tokenFor('bob');
    const alice = await v2As(aliceToken);
    const bob = await v1As(bobToken);
    const a1 = await alice.callTool({ name: 'whoami', arguments: {} });
    const b1 = await bob.callTool({ name: 'whoami', arguments: {} });
    const a2 = await alice.callTool({ name: 'whoami', arguments: {} });
    for (const res of [a1, b1, a2]) assert.equal(res.isError, undefined, JSON.stringify(res));
    assert.match(textOf(a1), /^subject=alice token=\*\*\*$/, 'the exchanged token is redacted');
    assert.match(textOf(a2), /^subject=alice /);
    assert.match(textOf(b1), /^subject=bob token=\*\*\*$/);
    assert.deepEqual(
      exchanger.grants.map((g) => [g.subject, g.audience, g.scope]),
      [
        ['alice', 'files', 'read'],
        ['bob', 'files', 'read'],
      ],
      "one exchange per caller, with the source's audience and scope; alice's second call reused hers",
    );
    assert.equal(sessionsOf('alice').length, 1, "alice's calls share one session");
    assert.equal(sessionsOf('bob').length, 1);
    // Every request of a caller's session carries that caller's exchanged token, never another's.
    for (const [subject] of [['alice'], ['bob']]) {
      const [id] = sessionsOf(subject!)[0]!;
      const requests = upstream.seen.filter((r) => r.session === id);
      assert.ok(requests.length > 0);
      for (const r of requests)
        assert.equal(exchanger.issued.get(r.authorization.replace(/^Bearer /, '')), subject);
    }
    await alice.close();
    await bob.close();
  });

  it("the upstream never sees a caller's own token, in any header or body", () => {
    assert.ok(inbound.length >= 2);
    const everything = JSON.stringify(upstream.seen);
    for (const token of inbound) assert.ok(!everything.includes(token), 'the upstream saw an inbound token');
  });

  it('past maxSessions the least recently used session is closed, with its DELETE and its own token', async () => {
    // The calls went alice, bob, alice: bob's session is the least recently used, and a third
    // caller (maxSessions 2) closes it.
    const bobSession = sessionsOf('bob')[0]!;
    const carol = await v2As(await tokenFor('carol'));
    const res = await carol.callTool({ name: 'whoami', arguments: {} });
    assert.match(textOf(res), /^subject=carol /);
    // The DELETE is sent when the session is closed; wait for it (the call does not wait for it).
    for (let i = 0; i < 200 && !upstream.seen.some((r) => r.method === 'DELETE'); i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    const deletes = upstream.seen.filter((r) => r.method === 'DELETE');
    assert.deepEqual(
      deletes.map((r) => [r.session, r.authorization]),
      [[bobSession[0], bobSession[1]]],
      "bob's session (the least recently used) was closed with his exchanged token, alice's kept",
    );
    // alice is still served by her session (no new exchange, no new session).
    const alice = await v2As(inbound[0]!);
    const again = await alice.callTool({ name: 'whoami', arguments: {} });
    assert.match(textOf(again), /^subject=alice /);
    assert.equal(sessionsOf('alice').length, 1);
    assert.equal(exchanger.grants.filter((g) => g.subject === 'alice').length, 1);
    await alice.close();
    await carol.close();
  });

  it('a token the upstream refuses (401) is exchanged again, in a new session, and the call goes through', async () => {
    const [oldId, oldAuth] = sessionsOf('alice')[0]!;
    revoked.add(oldAuth.replace(/^Bearer /, ''));
    const alice = await v2As(inbound[0]!);
    const res = await alice.callTool({ name: 'whoami', arguments: {} });
    assert.equal(res.isError, undefined, JSON.stringify(res));
    assert.match(textOf(res), /^subject=alice /);
    assert.equal(exchanger.grants.filter((g) => g.subject === 'alice').length, 2, 'exchanged again');
    const ids = sessionsOf('alice').map(([id]) => id);
    assert.equal(ids.length, 2);
    assert.equal(ids[0], oldId);
    assert.ok(
      upstream.seen.some((r) => r.session === oldId && r.authorization === oldAuth && r.method === 'POST'),
      'the refused request went to the old session',
    );
    await alice.close();
  });

  it('a session is renewed (exchanged again, opened again, the old one deleted) when its token expires', async () => {
    const dave = await v2As(await tokenFor('dave'));
    const first = await dave.callTool({ name: 'whoami', arguments: {} });
    assert.match(textOf(first), /^subject=dave /);
    const [oldId] = sessionsOf('dave')[0]!;
    // dave's exchanged token lives 1 s: past it, the next call must not use it.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const second = await dave.callTool({ name: 'whoami', arguments: {} });
    assert.match(textOf(second), /^subject=dave /);
    assert.equal(exchanger.grants.filter((g) => g.subject === 'dave').length, 2);
    const sessions = sessionsOf('dave');
    assert.equal(sessions.length, 2);
    const newId = sessions[1]![0];
    assert.ok(upstream.seen.some((r) => r.session === newId && r.method === 'POST'));
    for (let i = 0; i < 200 && !upstream.seen.some((r) => r.method === 'DELETE' && r.session === oldId); i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    assert.ok(
      upstream.seen.some((r) => r.method === 'DELETE' && r.session === oldId),
      'the old session was deleted',
    );
    await dave.close();
  });

  it('a caller without a token is refused at the front door (401), and nothing reaches upstream', async () => {
    const before = upstream.seen.length;
    const res = await fetch(cli.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'whoami', arguments: {} },
      }),
    });
    assert.equal(res.status, 401);
    await res.body?.cancel();
    assert.equal(upstream.seen.length, before);
  });

  it('no exchanged token, inbound token or secret in the server log (debug level)', () => {
    const stderr = cli.stderr();
    assert.ok(stderr.includes('"level":"debug"'), 'debug lines were written');
    assert.ok(exchanger.issued.size >= 5);
    for (const needle of [SECRET, LISTING, ...inbound, ...exchanger.issued.keys()])
      assert.ok(!stderr.includes(needle), `stderr holds a secret: ${needle.slice(0, 14)}…`);
  });
});
