/**
 * Who a caller is, for the limits, with OAuth: `mcp-run --http` with `server.auth` in front of
 * oidc-provider (a real OpenID provider issuing JWT access tokens). One user through two clients and
 * both protocol eras is one caller and shares one count; another user has a count of their own.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Issuer, startIssuer } from '../e2e/oidc-issuer.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';

const REDIRECT = 'http://127.0.0.1:7/callback';
const pin = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;

describe('limits per OAuth subject (oidc-provider tokens, mcp-run --http)', () => {
  let issuer: Issuer;
  let cli: ServedCli;
  let dir: string;
  const clients: { close(): Promise<void> }[] = [];

  before(async () => {
    let resource = '';
    issuer = await startIssuer({
      resource: () => resource,
      scopes: ['notes'],
      clients: { 'desktop-app': REDIRECT, 'cli-app': REDIRECT },
    });
    dir = await mkdtemp(join(tmpdir(), 'mcp-run-limits-oauth-'));
    await writeFile(
      join(dir, 'mcp.yaml'),
      [
        'server:',
        '  name: limits-oauth',
        '  auth:',
        `    issuer: ${issuer.url}`,
        '    scopes: { required: [notes] }',
        'tools:',
        '  hello:',
        '    kind: content',
        '    description: Says hello.',
        '    content: [{ text: hello }]',
        '    limits: { calls: 2/minute }',
        '',
      ].join('\n'),
    );
    cli = await spawnHttpCli([join(dir, 'mcp.yaml'), '--no-watch']);
    resource = cli.url;
  });
  after(async () => {
    for (const client of clients) await client.close();
    await cli?.stop();
    await issuer?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const bearer = (token: string) => ({ requestInit: { headers: { authorization: `Bearer ${token}` } } });

  async function modern(clientId: string, account: string): Promise<ClientV2> {
    const client = new ClientV2({ name: clientId, version: '1' }, pin);
    await client.connect(
      new HttpV2(new URL(cli.url), bearer(await issuer.token(clientId, account, 'notes'))),
    );
    clients.push(client);
    return client;
  }

  async function legacy(clientId: string, account: string): Promise<ClientV1> {
    const client = new ClientV1({ name: clientId, version: '1' });
    await client.connect(
      new HttpV1(new URL(cli.url), bearer(await issuer.token(clientId, account, 'notes'))),
    );
    clients.push(client);
    return client;
  }

  /** `hello`, or the error's code and rule. */
  async function hello(client: ClientV1 | ClientV2): Promise<string> {
    try {
      const result = await client.callTool({ name: 'hello', arguments: {} });
      return (result.content as { text: string }[])[0]?.text ?? '';
    } catch (err) {
      const { code, data } = err as { code?: number; data?: { rule?: string } };
      return `${code} ${data?.rule}`;
    }
  }

  it('one subject through two clients and both eras shares one count; another subject has its own', async () => {
    const aliceDesktop = await modern('desktop-app', 'alice');
    const aliceCli = await legacy('cli-app', 'alice');
    assert.equal(await hello(aliceDesktop), 'hello');
    assert.equal(await hello(aliceCli), 'hello');
    assert.equal(await hello(aliceCli), '-32041 tools.hello.limits.calls 2/minute');
    assert.equal(await hello(aliceDesktop), '-32041 tools.hello.limits.calls 2/minute');
    const bob = await modern('desktop-app', 'bob');
    assert.equal(await hello(bob), 'hello');
    assert.equal(await hello(bob), 'hello');
    assert.equal(await hello(bob), '-32041 tools.hello.limits.calls 2/minute');
  });
});
