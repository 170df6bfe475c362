/**
 * Claim-bound resource template variables end to end: `mcp-run --http` with `server.auth` in front
 * of oidc-provider (JWT access tokens with an `email` claim) and a SQLite template
 * `notes://{owner}/recent` whose `owner` is `{ fromClaim: email }`. Each caller reads only its own
 * URI (another's is not found, like a URI nobody serves), completion offers no owner, a 2026 read is
 * `cacheScope: private`, and the mirrored `read_notes` tool hides `owner` and binds it.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';
import { type Issuer, startIssuer } from './oidc-issuer.js';

const REDIRECT = 'http://127.0.0.1:7/callback';
const STATIC = 'static-token-without-identity';
const pin = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
const ALICE = 'notes://alice%40example.test/recent';
const BOB = 'notes://bob%40example.test/recent';

type Json = any;

describe('fromClaim on resource template variables (oidc-provider tokens, mcp-run --http)', () => {
  let issuer: Issuer;
  let cli: ServedCli;
  let dir: string;

  before(async () => {
    let resource = '';
    issuer = await startIssuer({
      resource: () => resource,
      scopes: ['notes'],
      clients: { 'claims-client': REDIRECT },
      claims: (account) => ({ email: `${account}@example.test` }),
    });
    dir = await mkdtemp(join(tmpdir(), 'mcp-run-claim-templates-'));
    await writeFile(
      join(dir, 'seed.sql'),
      [
        'CREATE TABLE notes (id INTEGER PRIMARY KEY, owner TEXT NOT NULL, text TEXT NOT NULL);',
        "INSERT INTO notes (owner, text) VALUES ('alice@example.test', 'alice one'), ('bob@example.test', 'bob one');",
        '',
      ].join('\n'),
    );
    const manifest = [
      'server:',
      '  name: claim-templates',
      '  auth:',
      `    issuer: ${issuer.url}`,
      '    scopes: { required: [notes] }',
      'sources:',
      '  db: { kind: sqlite, path: ./notes.db, seed: ./seed.sql }',
      'resources:',
      '  notes:',
      '    kind: sql',
      '    source: db',
      "    description: The caller's own notes.",
      '    uri: "notes://{owner}/recent"',
      '    sql: SELECT id, text FROM notes WHERE owner = :owner ORDER BY id',
      '    variables:',
      '      owner: { fromClaim: email }',
      '    mirror: true',
      '',
    ].join('\n');
    await writeFile(join(dir, 'mcp.yaml'), manifest);
    cli = await spawnHttpCli([join(dir, 'mcp.yaml'), '--no-watch', '--auth-token-env', 'STATIC_TOKENS'], {
      env: { ...process.env, STATIC_TOKENS: STATIC },
    });
    resource = cli.url;
  });
  after(async () => {
    await cli?.stop();
    await issuer?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const bearer = (token: string) => ({ requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const token = (who: string) => issuer.token('claims-client', who, 'notes');
  async function v2As(bearerToken: string): Promise<ClientV2> {
    const client = new ClientV2({ name: 'claims', version: '1' }, pin);
    await client.connect(new HttpV2(new URL(cli.url), bearer(bearerToken)));
    return client;
  }
  async function v1As(bearerToken: string): Promise<ClientV1> {
    const client = new ClientV1({ name: 'claims', version: '1' });
    await client.connect(new HttpV1(new URL(cli.url), bearer(bearerToken)));
    return client;
  }

  it('lists the template unchanged; each caller reads its own URI, and another caller’s is not found', async () => {
    const alice = await v1As(await token('alice'));
    const templates = (await alice.listResourceTemplates()).resourceTemplates;
    assert.deepEqual(
      templates.map((t) => t.uriTemplate),
      ['notes://{owner}/recent'],
    );
    const mine = await alice.readResource({ uri: ALICE });
    assert.match(JSON.stringify(mine.contents), /alice one/);
    assert.doesNotMatch(JSON.stringify(mine.contents), /bob/);
    await assert.rejects(alice.readResource({ uri: BOB }), (err: Error) => {
      assert.match(err.message, /not found/i);
      assert.doesNotMatch(err.message, /bob one/);
      return true;
    });
    await alice.close();

    const bob = await v2As(await token('bob'));
    const his = await bob.readResource({ uri: BOB });
    assert.match(JSON.stringify(his.contents), /bob one/);
    await assert.rejects(bob.readResource({ uri: ALICE }));
    await bob.close();
  });

  it('a 2026 read of the bound template is cacheScope private', async () => {
    const bob = await v2As(await token('bob'));
    const raw = (await bob.request(
      { method: 'resources/read', params: { uri: BOB } },
      // The raw result, cacheScope included: a schema-less parse keeps every field.
      { parse: (v: unknown) => v } as any,
    )) as Json;
    assert.equal(raw.cacheScope, 'private', JSON.stringify(raw));
    await bob.close();
  });

  it('completion offers no owner, not even the caller’s', async () => {
    const alice = await v1As(await token('alice'));
    const done = await alice.complete({
      ref: { type: 'ref/resource', uri: 'notes://{owner}/recent' },
      argument: { name: 'owner', value: '' },
    });
    assert.deepEqual(done.completion.values, []);
    await alice.close();
  });

  it('refuses a read without a verified identity (a static token)', async () => {
    const anon = await v1As(STATIC);
    await assert.rejects(anon.readResource({ uri: ALICE }), /verified identity/);
    await anon.close();
  });

  it('the mirrored read_notes tool hides owner and reads the caller’s own', async () => {
    const bob = await v1As(await token('bob'));
    const tool = (await bob.listTools()).tools.find((t) => t.name === 'read_notes') as Json;
    assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}), []);
    const res = (await bob.callTool({ name: 'read_notes', arguments: {} })) as Json;
    assert.equal(res.isError, undefined, JSON.stringify(res));
    assert.match(JSON.stringify(res.content), /bob one/);
    assert.doesNotMatch(JSON.stringify(res.content), /alice/);
    await bob.close();
  });
});
