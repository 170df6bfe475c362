/**
 * The official SDK clients against mcp-run as an OAuth resource server, with oidc-provider (a
 * certified OpenID provider) on 127.0.0.1 issuing the tokens: discovery from the 401, dynamic
 * client registration, PKCE, the resource indicator, the JWT access token, then calls; and the
 * step-up flow when a call needs a scope the token lacks. v1 speaks the 2025 era, v2 the 2026 era.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationFull,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { type Served, type ServedCli, spawnHttpCli, startHttp } from '../transports/http-harness.js';
import { type Issuer, startIssuer } from './oidc-issuer.js';

const REDIRECT = 'http://127.0.0.1:7/callback';

/** Every access token the clients were issued, to look for in the server's log. */
const issued: string[] = [];

/** An OAuthClientProvider whose "browser" is the scripted issuer. */
class ScriptedProvider {
  client: OAuthClientInformationFull | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizations: URL[] = [];
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'mcp-run test',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  /** A pre-registered client's id, or none to register dynamically. */
  constructor(preRegistered?: string) {
    if (preRegistered !== undefined) this.client = { client_id: preRegistered, redirect_uris: [REDIRECT] };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationFull) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
    issued.push(tokens.access_token);
  }
  redirectToAuthorization(url: URL) {
    this.authorizations.push(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const scopes = { required: ['mcp'], tools: { add: ['math'], boom: ['admin'] } };

describe('OAuth with the official SDK clients and oidc-provider', () => {
  let issuer: Issuer;
  let s: Served;
  before(async () => {
    let resource = '';
    issuer = await startIssuer({
      resource: () => resource,
      scopes: ['mcp', 'math', 'admin'],
      clients: { 'v1-client': REDIRECT },
    });
    s = await startHttp({ auth: { oauth: { issuer: issuer.url, scopes } } });
    resource = s.url;
  });
  after(async () => {
    await s.close();
    await issuer.close();
  });

  /** Completes the pending authorization as the user would, then hands the code to the transport. */
  async function consent(
    provider: ScriptedProvider,
    finish: (code: string, iss: string | undefined) => Promise<void>,
  ): Promise<URL> {
    const url = provider.authorizations.at(-1);
    assert.ok(url, 'the client was sent to the authorization endpoint');
    const query = await issuer.authorize(url, REDIRECT);
    const code = query.get('code');
    assert.ok(code, `the issuer redirected back with a code: ${query}`);
    await finish(code, query.get('iss') ?? undefined);
    return url;
  }

  // A pre-registered client here, because step-up asks for scopes beyond the first challenge and
  // oidc-provider holds a dynamically registered client to the scope it registered with (the SDK
  // registers with the challenge's scope). The v2 case below registers dynamically.
  it('v1 (2025 era): discovers from the 401, authorizes a pre-registered client with PKCE, calls, steps up for a scope', async () => {
    const provider = new ScriptedProvider('v1-client');
    const first = new HttpV1(new URL(s.url), { authProvider: provider });
    await assert.rejects(new ClientV1({ name: 'v1', version: '1' }).connect(first), UnauthorizedError);
    const asked = await consent(provider, (code) => first.finishAuth(code));
    assert.equal(asked.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(asked.searchParams.get('resource'), s.url);
    assert.equal(asked.searchParams.get('scope'), 'mcp', 'the scope from the 401 challenge');

    const client = new ClientV1({ name: 'v1', version: '1' });
    const transport = new HttpV1(new URL(s.url), { authProvider: provider });
    await client.connect(transport);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('echo') && !names.includes('add') && !names.includes('boom'), names.join());
    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    assert.deepEqual(echoed.content, [{ type: 'text', text: 'hi' }]);

    // add needs `math`: the 403 challenge sends the client back to authorize with it.
    await assert.rejects(client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }));
    const stepUp = provider.authorizations.at(-1);
    assert.ok(stepUp && stepUp !== asked, 'a second authorization was started');
    assert.deepEqual(stepUp.searchParams.get('scope')?.split(' ').sort(), ['math', 'mcp']);
    await consent(provider, (code) => transport.finishAuth(code));
    await client.close();

    const upgraded = new ClientV1({ name: 'v1', version: '1' });
    await upgraded.connect(new HttpV1(new URL(s.url), { authProvider: provider }));
    const sum = await upgraded.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    assert.deepEqual(sum.structuredContent, { sum: 3 });
    await upgraded.close();
  });

  it('v2 (2026 era): discovers from the 401, registers dynamically, authorizes with PKCE, then calls', async () => {
    const provider = new ScriptedProvider();
    const pin = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
    const first = new HttpV2(new URL(s.url), { authProvider: provider });
    await assert.rejects(new ClientV2({ name: 'v2', version: '1' }, pin).connect(first));
    assert.ok(provider.client?.client_id, 'dynamic client registration happened');
    await consent(provider, (code, iss) => first.finishAuth(code, iss));
    const client = new ClientV2({ name: 'v2', version: '1' }, pin);
    await client.connect(new HttpV2(new URL(s.url), { authProvider: provider }));
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('echo') && !names.includes('add'), names.join());
    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'v2' } });
    assert.deepEqual(echoed.content, [{ type: 'text', text: 'v2' }]);
    await client.close();
  });

  it('never writes a token value to the log', () => {
    assert.ok(issued.length >= 3, `tokens issued: ${issued.length}`);
    for (const token of issued)
      for (const line of s.log.lines) assert.ok(!line.includes(token), `a log line holds a token: ${line}`);
  });
});

describe('OAuth from the manifest: mcp-run --http with server.auth', () => {
  let issuer: Issuer;
  let cli: ServedCli;
  let dir: string;
  before(async () => {
    let resource = '';
    issuer = await startIssuer({ resource: () => resource, scopes: ['mcp', 'admin'] });
    dir = await mkdtemp(join(tmpdir(), 'mcp-run-oauth-'));
    const manifest = [
      'server:',
      '  name: oauth-cli',
      '  auth:',
      `    issuer: ${issuer.url}`,
      '    scopes: { required: [mcp], tools: { secret: [admin] } }',
      'tools:',
      '  hello: { kind: shell, description: Says hello., command: [echo, hello] }',
      '  secret: { kind: shell, description: Needs admin., command: [echo, secret] }',
      '',
    ].join('\n');
    await writeFile(join(dir, 'mcp.yaml'), manifest);
    cli = await spawnHttpCli([join(dir, 'mcp.yaml'), '--log-level', 'debug', '--no-watch']);
    resource = cli.url;
  });
  after(async () => {
    await cli.stop();
    await issuer.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the manifest to an authorized v2 client, listing by scope, with no token in stderr', async () => {
    const provider = new ScriptedProvider();
    const pin = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
    const first = new HttpV2(new URL(cli.url), { authProvider: provider });
    await assert.rejects(new ClientV2({ name: 'v2', version: '1' }, pin).connect(first));
    const url = provider.authorizations.at(-1);
    assert.ok(url);
    const query = await issuer.authorize(url, REDIRECT);
    await first.finishAuth(query.get('code') ?? '', query.get('iss') ?? undefined);
    const client = new ClientV2({ name: 'v2', version: '1' }, pin);
    await client.connect(new HttpV2(new URL(cli.url), { authProvider: provider }));
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['hello'],
    );
    const res = await client.callTool({ name: 'hello', arguments: {} });
    assert.match(JSON.stringify(res.content), /hello/);
    await client.close();
    const token = provider.saved?.access_token;
    assert.ok(token);
    assert.ok(!cli.stderr().includes(token), 'stderr holds the access token');
  });
});

describe('OAuth with opaque tokens: RFC 7662 introspection at oidc-provider', () => {
  let issuer: Issuer;
  let s: Served;
  before(async () => {
    let resource = '';
    issuer = await startIssuer({
      resource: () => resource,
      scopes: ['mcp', 'math'],
      accessTokenFormat: 'opaque',
      introspector: { id: 'mcp-run', secret: 'introspection-secret' },
    });
    const introspection = { clientId: 'mcp-run', clientSecret: 'introspection-secret' };
    s = await startHttp({ auth: { oauth: { issuer: issuer.url, introspection, scopes } } });
    resource = s.url;
  });
  after(async () => {
    await s.close();
    await issuer.close();
  });

  it('admits an introspected opaque token and lists by its scopes (v2 client)', async () => {
    const provider = new ScriptedProvider();
    const pin = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
    const first = new HttpV2(new URL(s.url), { authProvider: provider });
    await assert.rejects(new ClientV2({ name: 'v2', version: '1' }, pin).connect(first));
    const url = provider.authorizations.at(-1);
    assert.ok(url);
    const query = await issuer.authorize(url, REDIRECT);
    await first.finishAuth(query.get('code') ?? '', query.get('iss') ?? undefined);
    const token = provider.saved?.access_token ?? '';
    assert.equal(token.split('.').length, 1, 'the issuer handed out an opaque token');
    const client = new ClientV2({ name: 'v2', version: '1' }, pin);
    await client.connect(new HttpV2(new URL(s.url), { authProvider: provider }));
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('echo') && !names.includes('add'), names.join());
    await client.close();
  });

  it('refuses an opaque token the issuer does not know with 401 invalid_token', async () => {
    const res = await fetch(s.url, {
      method: 'POST',
      headers: {
        authorization: 'Bearer not-a-token-the-issuer-knows',
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
      },
      body: JSON.stringify(initialize),
    });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  });
});

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};
