// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${env:…} in plain strings is the manifest syntax.
/**
 * Outbound OAuth for http sources, end to end: `mcp-run --http --log-format json --log-level debug`
 * behind oidc-provider (the inbound authorization server), in front of a real node:http upstream on
 * 127.0.0.1 that is both an authorization server's token endpoint (client credentials and RFC 8693
 * token exchange) and the API.
 *
 * Shown: a client-credentials token is fetched once for concurrent calls, cached, and fetched again
 * before it expires; a refused token request is a clear error without the secret; a token exchange
 * gives each caller its own upstream token and the API never sees an inbound token; and no token
 * value nor the client secret appears in the server's stderr, at debug level, in JSON.
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
import { compileCatalog } from '../../src/catalog/compile.js';
import type { Catalog } from '../../src/catalog/types.js';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { StderrLogger } from '../../src/log.js';
import { loadManifest } from '../../src/manifest/load.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';
import { type Issuer, startIssuer } from './oidc-issuer.js';

const REDIRECT = 'http://127.0.0.1:7/callback';
const SECRET = 'client-secret-that-must-not-leak-9f2c';
const STATIC = 'static-token-no-identity-4411';
const pin = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;

/** The upstream: a token endpoint and an API, recording everything it is sent. */
interface Upstream {
  readonly url: string;
  readonly grants: { grant: string; subject?: string; scope?: string; client: string }[];
  /** Every request the API got: its Authorization header, URL and body. */
  readonly api: { authorization: string; url: string; body: string }[];
  readonly issued: string[];
  /** Every byte the API side (not the token endpoint) received, to look for inbound tokens in. */
  apiBytes: string;
  close(): Promise<void>;
}

async function startUpstream(): Promise<Upstream> {
  const state: Omit<Upstream, 'url' | 'close'> = { grants: [], api: [], issued: [], apiBytes: '' };
  let n = 0;
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = '';
      req.setEncoding('utf8').on('data', (c: string) => {
        body += c;
      });
      req.on('end', () => resolve(body));
    });
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await read(req);
      res.setHeader('content-type', 'application/json');
      if (req.url === '/token') {
        const form = new URLSearchParams(body);
        const [id, secret] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
          .toString()
          .split(':')
          .map(decodeURIComponent);
        if (secret !== SECRET) {
          res.statusCode = 401;
          res.end(JSON.stringify({ error: 'invalid_client', error_description: `bad secret ${secret}` }));
          return;
        }
        const grant = form.get('grant_type') ?? '';
        const subjectToken = form.get('subject_token');
        let subject: string | undefined;
        if (subjectToken !== null) {
          const payload = JSON.parse(Buffer.from(subjectToken.split('.')[1] ?? '', 'base64url').toString());
          subject = String(payload.sub);
        }
        state.grants.push({
          grant,
          client: id ?? '',
          ...(subject === undefined ? {} : { subject }),
          ...(form.get('scope') === null ? {} : { scope: form.get('scope') ?? '' }),
        });
        const token = `upstream-${subject ?? 'service'}-${++n}-${Math.random().toString(36).slice(2)}`;
        state.issued.push(token);
        res.end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 2 }));
        return;
      }
      state.apiBytes += `${JSON.stringify(req.headers)} ${req.url} ${body}\n`;
      state.api.push({ authorization: req.headers.authorization ?? '', url: req.url ?? '', body });
      // Echoes the credential: results must redact it.
      res.end(JSON.stringify({ path: req.url, authorization: req.headers.authorization }));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

describe('outbound OAuth for http sources (mcp-run --http, oidc-provider inbound, a real upstream)', () => {
  let issuer: Issuer;
  let up: Upstream;
  let cli: ServedCli;
  let dir: string;
  const inbound: string[] = [];

  before(async () => {
    up = await startUpstream();
    let resource = '';
    issuer = await startIssuer({
      resource: () => resource,
      scopes: ['mcp'],
      clients: { 'out-client': REDIRECT },
    });
    dir = await mkdtemp(join(tmpdir(), 'mcp-run-outbound-'));
    const oauth = (secret: string) =>
      `{ tokenUrl: "${up.url}/token", clientId: mcp-run, clientSecret: "${secret}", scopes: [read, write] }`;
    const manifest = [
      'server:',
      '  name: outbound',
      '  auth:',
      `    issuer: ${issuer.url}`,
      '    scopes: { required: [mcp] }',
      'sources:',
      `  service: { kind: http, baseUrl: "${up.url}/api", auth: { oauth: ${oauth('${env:CLIENT_SECRET}')} } }`,
      `  wrong: { kind: http, baseUrl: "${up.url}/api", auth: { oauth: ${oauth('not-the-secret')} } }`,
      '  per_user:',
      '    kind: http',
      `    baseUrl: "${up.url}/api"`,
      `    auth: { tokenExchange: { tokenUrl: "${up.url}/token", clientId: mcp-run, clientSecret: "\${env:CLIENT_SECRET}", audience: api, scope: files } }`,
      'tools:',
      '  service_ping: { kind: http, source: service, description: Pings as the service., path: /ping }',
      '  wrong_ping: { kind: http, source: wrong, description: Pings with a bad secret., path: /ping }',
      '  my_files:',
      '    kind: http',
      '    source: per_user',
      "    description: The caller's files.",
      '    method: POST',
      '    path: /files',
      '    body: { q: "{{q}}" }',
      '    input: { q: { type: string, default: all } }',
      '',
    ].join('\n');
    await writeFile(join(dir, 'mcp.yaml'), manifest);
    cli = await spawnHttpCli(
      [
        join(dir, 'mcp.yaml'),
        '--no-watch',
        '--log-format',
        'json',
        '--log-level',
        'debug',
        '--auth-token-env',
        'STATIC_TOKENS',
      ],
      { env: { ...process.env, CLIENT_SECRET: SECRET, STATIC_TOKENS: STATIC } },
    );
    resource = cli.url;
  });
  after(async () => {
    await cli?.stop();
    await issuer?.close();
    await up?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function as(token: string): Promise<ClientV2> {
    const client = new ClientV2({ name: 'outbound', version: '1' }, pin);
    await client.connect(
      new HttpV2(new URL(cli.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    return client;
  }
  const tokenFor = async (account: string) => {
    const token = await issuer.token('out-client', account, 'mcp');
    inbound.push(token);
    return token;
  };
  const text = (res: unknown) => JSON.stringify(res);

  it('client credentials: concurrent calls share one token fetch; the token is reused, then fetched again before it expires', async () => {
    const client = await as(await tokenFor('alice'));
    const results = await Promise.all(
      Array.from({ length: 5 }, () => client.callTool({ name: 'service_ping', arguments: {} })),
    );
    for (const res of results) assert.equal(res.isError, undefined, text(res));
    const fetched = () => up.grants.filter((g) => g.grant === 'client_credentials').length;
    assert.equal(fetched(), 1, 'one token request for five concurrent calls');
    assert.deepEqual(up.grants[0], { grant: 'client_credentials', client: 'mcp-run', scope: 'read write' });
    const first = up.issued[0];
    assert.ok(up.api.slice(-5).every((r) => r.authorization === `Bearer ${first}`));
    for (const res of results) assert.ok(!text(res).includes(first ?? '?'), 'a result shows the token');

    // expires_in is 2 s: after it, the next call fetches a new token rather than sending a stale one.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const later = await client.callTool({ name: 'service_ping', arguments: {} });
    assert.equal(later.isError, undefined, text(later));
    assert.equal(fetched(), 2);
    assert.equal(up.api.at(-1)?.authorization, `Bearer ${up.issued.at(-1)}`);
    assert.notEqual(up.issued.at(-1), first);
    await client.close();
  });

  it('a refused token request is a clear tool error that does not show the secret, and nothing reaches the API', async () => {
    const client = await as(await tokenFor('alice'));
    const before = up.api.length;
    const res = await client.callTool({ name: 'wrong_ping', arguments: {} });
    assert.equal(res.isError, true);
    assert.match(
      text(res),
      /the token endpoint http:\/\/127\.0\.0\.1:\d+\/token refused the token request with 401: invalid_client/,
    );
    assert.ok(!text(res).includes('not-the-secret'), 'the secret is in the result');
    assert.equal(up.api.length, before);
    await client.close();
  });

  it('token exchange: each caller gets its own upstream token, cached; the API never sees an inbound token', async () => {
    const aliceToken = await tokenFor('alice');
    const alice = await as(aliceToken);
    const bob = new ClientV1({ name: 'outbound', version: '1' });
    const bobToken = await tokenFor('bob');
    await bob.connect(
      new HttpV1(new URL(cli.url), { requestInit: { headers: { authorization: `Bearer ${bobToken}` } } }),
    );
    const a1 = await alice.callTool({ name: 'my_files', arguments: {} });
    const a2 = await alice.callTool({ name: 'my_files', arguments: { q: 'x' } });
    const b1 = await bob.callTool({ name: 'my_files', arguments: {} });
    for (const res of [a1, a2, b1]) assert.equal(res.isError, undefined, text(res));
    const exchanges = up.grants.filter((g) => g.grant === 'urn:ietf:params:oauth:grant-type:token-exchange');
    assert.deepEqual(
      exchanges.map((g) => [g.subject, g.scope]),
      [
        ['alice', 'files'],
        ['bob', 'files'],
      ],
      'one exchange per caller; the second call of alice used the cached token',
    );
    const calls = up.api.filter((r) => r.url === '/api/files');
    assert.equal(calls.length, 3);
    assert.equal(calls[0]?.authorization, calls[1]?.authorization);
    assert.notEqual(calls[0]?.authorization, calls[2]?.authorization);
    assert.match(calls[0]?.authorization ?? '', /^Bearer upstream-alice-/);
    assert.match(calls[2]?.authorization ?? '', /^Bearer upstream-bob-/);
    for (const token of inbound) assert.ok(!up.apiBytes.includes(token), 'the API saw an inbound token');
    await alice.close();
    await bob.close();
  });

  it('token exchange without a verified caller (a static token) is refused with a clear error', async () => {
    const client = await as(STATIC);
    const before = up.grants.length;
    const res = await client.callTool({ name: 'my_files', arguments: {} });
    assert.equal(res.isError, true);
    assert.match(text(res), /no verified caller/);
    assert.equal(up.grants.length, before, 'no exchange was attempted');
    await client.close();
  });

  it('no token value and no client secret in stderr (debug level, JSON lines)', () => {
    const stderr = cli.stderr();
    const lines = stderr.split('\n').filter((l) => l.trim() !== '');
    assert.ok(lines.length > 5, 'the server logged');
    for (const line of lines) if (line.startsWith('{')) JSON.parse(line);
    assert.ok(
      lines.some((l) => l.startsWith('{') && l.includes('"level":"debug"')),
      'debug lines were written',
    );
    const needles = [SECRET, STATIC, ...inbound, ...up.issued];
    assert.ok(inbound.length >= 4 && up.issued.length >= 4, 'tokens were issued');
    for (const needle of needles)
      assert.ok(!stderr.includes(needle), `stderr holds a secret: ${needle.slice(0, 12)}…`);
  });
});

describe('outbound client credentials at a real authorization server (oidc-provider)', () => {
  const SERVICE_SECRET = 'service-secret-for-oidc-provider-77';
  let issuer: Issuer;
  let api: Server;
  let apiUrl = '';
  const verified: { client: unknown; scope: unknown }[] = [];
  let catalog: Catalog;
  let dir: string;

  before(async () => {
    let resource = '';
    issuer = await startIssuer({
      resource: () => 'http://127.0.0.1:1/unused',
      scopes: ['mcp'],
      service: {
        id: 'mcp-run-svc',
        secret: SERVICE_SECRET,
        resource: () => resource,
        scopes: ['reports.read'],
      },
    });
    const keys = createRemoteJWKSet(new URL(`${issuer.url}/jwks`));
    // The upstream API is a resource server of its own: it verifies the token it gets.
    api = createServer((req, res) => {
      void (async () => {
        const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
        try {
          const { payload } = await jwtVerify(token, keys, { issuer: issuer.url, audience: resource });
          verified.push({ client: payload.client_id, scope: payload.scope });
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ ok: true, client: payload.client_id }));
        } catch (err) {
          res.statusCode = 401;
          res.end((err as Error).message);
        }
      })();
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/api`;
    resource = apiUrl;
    dir = await mkdtemp(join(tmpdir(), 'mcp-run-cc-'));
    const file = join(dir, 'mcp.yaml');
    await writeFile(
      file,
      [
        'sources:',
        '  reports:',
        '    kind: http',
        `    baseUrl: "${apiUrl}"`,
        `    auth: { oauth: { tokenUrl: "${issuer.url}/token", clientId: mcp-run-svc, clientSecret: "\${env:SVC_SECRET}", scopes: [reports.read], resource: "${apiUrl}" } }`,
        'tools:',
        '  report: { kind: http, source: reports, description: The report., path: /report }',
        '',
      ].join('\n'),
    );
    const registry = builtinKinds();
    const manifest = await loadManifest(file, registry, { SVC_SECRET: SERVICE_SECRET });
    catalog = await compileCatalog(manifest, registry, new StderrLogger('silent'));
  });
  after(async () => {
    await catalog?.dispose();
    api?.closeAllConnections();
    await new Promise((resolve) => api?.close(resolve));
    await issuer?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('gets a JWT for the API from oidc-provider, which the API verifies; the token is reused', async () => {
    const ctx = { signal: new AbortController().signal, progress: () => {}, log: () => {} };
    const tool = catalog.tools.get('report');
    assert.ok(tool);
    const first = await tool.call({}, ctx);
    assert.equal(first.isError, undefined, JSON.stringify(first));
    const second = await tool.call({}, ctx);
    assert.equal(second.isError, undefined, JSON.stringify(second));
    assert.deepEqual(verified, [
      { client: 'mcp-run-svc', scope: 'reports.read' },
      { client: 'mcp-run-svc', scope: 'reports.read' },
    ]);
    assert.ok(!JSON.stringify([first, second]).includes(SERVICE_SECRET));
  });
});
