/**
 * recipes/oauth served by the built CLI over HTTP (`--http`) in front of oidc-provider, from a private
 * copy of the recipe with its issuer pointed at the test's provider: alice and bob each read only
 * their own notes, an argument naming the owner is refused, and a token without `notes.stats` is
 * not shown `note_count`; over stdio (no identity) the bound tools are refused. The raw request is
 * the README's curl, so the README's steps hold.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type Issuer, startIssuer } from '../e2e/oidc-issuer.js';
import { CLI, REPO } from '../helpers/demo.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';

type Json = Record<string, any>;
const REDIRECT = 'http://127.0.0.1:7/callback';

describe('recipes/oauth', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-oauth-recipe-'));
  let issuer: Issuer;
  let cli: ServedCli;

  before(async () => {
    let resource = '';
    issuer = await startIssuer({
      resource: () => resource,
      moreResources: () => [`${resource}/stats`],
      scopes: ['notes.read', 'notes.stats'],
      clients: { 'notes-demo': REDIRECT },
      claims: (account) => ({ email: `${account}@example.test` }),
    });
    cpSync(join(REPO, 'recipes/oauth'), dir, { recursive: true, filter: (src) => !src.endsWith('.db') });
    const file = join(dir, 'mcp.yaml');
    const text = readFileSync(file, 'utf8');
    assert.match(text, /issuer: http:\/\/127\.0\.0\.1:4444/);
    writeFileSync(file, text.replace('http://127.0.0.1:4444', issuer.url));
    cli = await spawnHttpCli([file, '--no-watch']);
    resource = cli.url;
  });
  after(async () => {
    await cli?.stop();
    await issuer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The README's curl, as fetch. */
  async function call(
    token: string | undefined,
    name: string,
    args: Json = {},
    method = 'tools/call',
    url = cli.url,
  ) {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(method === 'tools/call' || method === 'prompts/get' ? { 'mcp-name': name } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method,
        params: {
          ...(method === 'tools/call' || method === 'prompts/get' ? { name, arguments: args } : {}),
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const body = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      json: res.status === 200 ? (JSON.parse(body) as Json) : undefined,
      body,
    };
  }

  test('without a token: 401 pointing to the resource metadata', async () => {
    const res = await call(undefined, 'my_notes');
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /resource_metadata=".*oauth-protected-resource/);
  });

  test('alice and bob each read only their own notes', async () => {
    const alice = await call(await issuer.token('notes-demo', 'alice', 'notes.read'), 'my_notes');
    assert.equal(alice.status, 200, alice.body);
    const aliceRows = alice.json?.result?.structuredContent?.rows as Json[];
    assert.deepEqual(
      aliceRows.map((r) => r.text),
      ['Book the train to Turku', 'Call the plumber about the sink', 'Buy milk'],
    );
    const bob = await call(await issuer.token('notes-demo', 'bob', 'notes.read'), 'my_notes', {
      text: 'plan',
    });
    assert.deepEqual(
      ((bob.json?.result?.structuredContent?.rows ?? []) as Json[]).map((r) => r.text),
      ["Bob's secret plan"],
    );
  });

  test('an argument naming the owner is refused', async () => {
    const bob = await call(await issuer.token('notes-demo', 'bob', 'notes.read'), 'my_notes', {
      owner: 'alice@example.test',
    });
    assert.equal(bob.json?.result?.isError, true);
    assert.match(JSON.stringify(bob.json), /cannot be passed/);
    assert.doesNotMatch(JSON.stringify(bob.json), /Turku|plumber|milk/);
  });

  test('note_count is listed and callable only with notes.stats', async () => {
    const plain = await issuer.token('notes-demo', 'alice', 'notes.read');
    const listed = await call(plain, '', {}, 'tools/list');
    const names = ((listed.json?.result?.tools ?? []) as Json[]).map((t) => t.name);
    assert.deepEqual(names.sort(), ['about', 'my_notes']);
    assert.equal((await call(plain, 'note_count')).status, 403);
    const stats = await call(
      await issuer.token('notes-demo', 'alice', 'notes.read notes.stats'),
      'note_count',
    );
    assert.deepEqual(stats.json?.result?.structuredContent?.rows, [{ notes: 3 }]);
  });

  test("the prompt and its mirror fill the owner from the caller's token, and need the prompt's scope", async () => {
    const plain = await issuer.token('notes-demo', 'alice', 'notes.read');
    const listed = await call(plain, '', {}, 'prompts/list');
    assert.deepEqual(listed.json?.result?.prompts, [], 'weekly_review needs notes.stats');
    assert.equal((await call(plain, 'get_prompt_weekly_review', { focus: 'errands' })).status, 403);
    const stats = await issuer.token('notes-demo', 'alice', 'notes.read notes.stats');
    const prompts = (await call(stats, '', {}, 'prompts/list')).json?.result?.prompts as Json[];
    assert.deepEqual(
      prompts[0]?.arguments.map((a: Json) => a.name),
      ['focus'],
      'the owner is not an argument a client sees',
    );
    const tools = ((await call(stats, '', {}, 'tools/list')).json?.result?.tools ?? []) as Json[];
    const mirror = tools.find((t) => t.name === 'get_prompt_weekly_review');
    assert.deepEqual(Object.keys(mirror?.inputSchema.properties ?? {}), ['focus']);
    const got = await call(stats, 'weekly_review', { focus: 'errands' }, 'prompts/get');
    assert.match(got.json?.result?.messages?.[0]?.content?.text ?? '', /notes of alice@example\.test and/);
    const called = await call(stats, 'get_prompt_weekly_review', { focus: 'errands' });
    assert.match(called.json?.result?.content?.[0]?.text ?? '', /notes of alice@example\.test and/);
    const forged = await call(
      stats,
      'weekly_review',
      { focus: 'x', owner: 'bob@example.test' },
      'prompts/get',
    );
    assert.match(forged.json?.error?.message ?? '', /cannot be passed/);
  });

  test('the stats toolset has its own endpoint, which needs notes.stats for every request', async () => {
    const stats = `${cli.url}/stats`;
    const plain = await issuer.token('notes-demo', 'alice', 'notes.read');
    const refused = await call(plain, '', {}, 'tools/list', stats);
    assert.equal(refused.status, 403);
    assert.match(
      refused.headers.get('www-authenticate') ?? '',
      /insufficient_scope.*notes\.read notes\.stats/,
    );
    const token = await issuer.token('notes-demo', 'alice', 'notes.read notes.stats');
    const listed = await call(token, '', {}, 'tools/list', stats);
    assert.deepEqual(
      ((listed.json?.result?.tools ?? []) as Json[]).map((t) => t.name),
      ['note_count'],
    );
    const counted = await call(token, 'note_count', {}, 'tools/call', stats);
    assert.deepEqual(counted.json?.result?.structuredContent?.rows, [{ notes: 3 }]);
    const elsewhere = await call(token, 'my_notes', {}, 'tools/call', stats);
    assert.match(JSON.stringify(elsewhere.json), /Unknown tool/i);
  });

  test('the stats endpoint is its own protected resource: its metadata, its challenge, its audience', async () => {
    const stats = `${cli.url}/stats`;
    const origin = new URL(cli.url).origin;
    const documentUrl = `${origin}/.well-known/oauth-protected-resource/mcp/stats`;
    const unauthenticated = await call(undefined, '', {}, 'tools/list', stats);
    assert.equal(unauthenticated.status, 401);
    assert.match(
      unauthenticated.headers.get('www-authenticate') ?? '',
      new RegExp(`resource_metadata="${documentUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`),
    );
    const document = (await (await fetch(documentUrl)).json()) as Json;
    assert.equal(document.resource, stats);
    assert.deepEqual(document.authorization_servers, [issuer.url]);
    assert.ok((document.scopes_supported as string[]).includes('notes.stats'));
    const root = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json()) as Json;
    assert.equal(root.resource, cli.url, 'the server itself is still one resource');
    const unknown = await fetch(`${origin}/.well-known/oauth-protected-resource/mcp/nope`);
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();

    // A token for the stats endpoint (the `resource` its metadata names) works there only.
    const narrow = await issuer.token('notes-demo', 'alice', 'notes.read notes.stats', stats);
    const listed = await call(narrow, '', {}, 'tools/list', stats);
    assert.equal(listed.status, 200, listed.body);
    assert.deepEqual(
      ((listed.json?.result?.tools ?? []) as Json[]).map((t) => t.name),
      ['note_count'],
    );
    const wide = await call(narrow, 'my_notes', {}, 'tools/call', cli.url);
    assert.equal(wide.status, 401, 'a token for one toolset is not one for the whole server');
    assert.match(wide.headers.get('www-authenticate') ?? '', /invalid_token.*not meant for this resource/);
    assert.match(wide.headers.get('www-authenticate') ?? '', /oauth-protected-resource\/mcp"/);
  });

  test('the v2 SDK client on the stats endpoint discovers its metadata and asks for a token for it', async () => {
    const stats = `${cli.url}/stats`;
    const authorizations: URL[] = [];
    let saved: { access_token: string; token_type: string } | undefined;
    let verifier = '';
    const provider = {
      redirectUrl: REDIRECT,
      clientMetadata: { client_name: 'recipe', redirect_uris: [REDIRECT] },
      clientInformation: () => ({ client_id: 'notes-demo', redirect_uris: [REDIRECT] }),
      tokens: () => saved,
      saveTokens: (tokens: { access_token: string; token_type: string }) => {
        saved = tokens;
      },
      redirectToAuthorization: (url: URL) => {
        authorizations.push(url);
      },
      saveCodeVerifier: (v: string) => {
        verifier = v;
      },
      codeVerifier: () => verifier,
    };
    const pin = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
    const first = new StreamableHTTPClientTransport(new URL(stats), { authProvider: provider });
    await assert.rejects(new Client({ name: 'recipe-stats', version: '1' }, pin).connect(first));
    const asked = authorizations.at(-1);
    assert.ok(asked, 'the client was sent to the authorization endpoint');
    assert.equal(
      asked.searchParams.get('resource'),
      stats,
      "the resource its metadata names: the endpoint's",
    );
    assert.deepEqual(
      asked.searchParams.get('scope')?.split(' ').sort(),
      ['notes.read', 'notes.stats'],
      "the 401 names the toolset's scopes too",
    );
    const query = await issuer.authorize(asked, REDIRECT);
    await first.finishAuth(query.get('code') ?? '', query.get('iss') ?? undefined);
    const client = new Client({ name: 'recipe-stats', version: '1' }, pin);
    await client.connect(new StreamableHTTPClientTransport(new URL(stats), { authProvider: provider }));
    try {
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['note_count'],
      );
    } finally {
      await client.close();
    }
  });

  test('over stdio (no identity) the bound tools are refused and the public one answers', async () => {
    const client = new Client(
      { name: 'recipe-oauth-stdio', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, join(dir, 'mcp.yaml'), '--no-watch'],
        stderr: 'pipe',
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(
        names,
        ['about', 'get_prompt_weekly_review', 'my_notes', 'note_count'],
        'stdio has no scopes: everything is listed',
      );
      const refused = (await client.callTool({ name: 'my_notes', arguments: {} })) as Json;
      assert.equal(refused.isError, true);
      assert.match(JSON.stringify(refused.content), /needs the caller's verified identity/);
      assert.doesNotMatch(JSON.stringify(refused), /Turku|plumber|milk|secret plan/);
      const about = (await client.callTool({ name: 'about', arguments: {} })) as Json;
      assert.equal(about.isError, undefined);
    } finally {
      await client.close();
    }
  });
});
