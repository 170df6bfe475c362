/**
 * Claim-bound inputs end to end: `mcp-run --http` with `server.auth` in front of oidc-provider (a
 * real OpenID provider issuing JWT access tokens with an `email` claim), a SQLite tool bound to the
 * caller's email, an http tool sending it in the path, the query and a header to a real upstream,
 * and a shell tool passing it as a program argument. Each caller gets only its own rows; an
 * argument that tries to set the bound input is refused; a static token (no identity) is refused.
 * Run as a task (both eras), the tool gets its caller's claim, and only that caller reads the task.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { type ServedCli, spawnHttpCli, taskRequest } from '../transports/http-harness.js';
import { type Issuer, startIssuer } from './oidc-issuer.js';

const REDIRECT = 'http://127.0.0.1:7/callback';
const STATIC = 'static-token-without-identity';
const pin = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;

type Json = any;

describe('fromClaim: inputs bound to the verified caller (oidc-provider tokens, mcp-run --http)', () => {
  let issuer: Issuer;
  let cli: ServedCli;
  let dir: string;
  let upstream: Server;
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];

  before(async () => {
    upstream = createServer((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ url: req.url, who: req.headers['x-user'] }));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const api = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    let resource = '';
    issuer = await startIssuer({
      resource: () => resource,
      scopes: ['notes'],
      clients: { 'claims-client': REDIRECT },
      claims: (account) => ({ email: `${account}@example.test` }),
    });
    dir = await mkdtemp(join(tmpdir(), 'mcp-run-claims-'));
    await writeFile(
      join(dir, 'seed.sql'),
      [
        'CREATE TABLE notes (id INTEGER PRIMARY KEY, owner TEXT NOT NULL, text TEXT NOT NULL);',
        "INSERT INTO notes (owner, text) VALUES ('alice@example.test', 'alice one'), ('bob@example.test', 'bob one'), ('alice@example.test', 'alice two');",
        '',
      ].join('\n'),
    );
    const manifest = [
      'server:',
      '  name: claims',
      '  auth:',
      `    issuer: ${issuer.url}`,
      '    scopes: { required: [notes] }',
      'sources:',
      '  db: { kind: sqlite, path: ./notes.db, seed: ./seed.sql }',
      `  api: { kind: http, baseUrl: "${api}" }`,
      'tools:',
      '  my_notes:',
      '    kind: sql',
      '    source: db',
      "    description: The caller's own notes.",
      '    sql: SELECT id, text FROM notes WHERE owner = :owner ORDER BY id',
      '    input:',
      '      owner: { type: string, fromClaim: email }',
      '  whoami_api:',
      '    kind: http',
      '    source: api',
      '    description: Asks the API about the caller.',
      '    path: /users/{owner}',
      '    query: { as: "{{owner}}", page: "{{page}}" }',
      '    headers: { X-User: "{{owner}}" }',
      '    input:',
      '      owner: { type: string, fromClaim: email }',
      '      page: { type: integer, default: 1 }',
      '  whoami_shell:',
      '    kind: shell',
      "    description: Echoes the caller's email.",
      '    command: [echo, "user={{owner}}"]',
      '    input:',
      '      owner: { fromClaim: email }',
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
    upstream?.closeAllConnections();
    await new Promise((resolve) => upstream?.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  const bearer = (token: string) => ({ requestInit: { headers: { authorization: `Bearer ${token}` } } });

  async function v2As(token: string): Promise<ClientV2> {
    const client = new ClientV2({ name: 'claims', version: '1' }, pin);
    await client.connect(new HttpV2(new URL(cli.url), bearer(token)));
    return client;
  }

  it('hides the bound input from tools/list, in both eras', async () => {
    const token = await issuer.token('claims-client', 'alice', 'notes');
    const modern = await v2As(token);
    const legacy = new ClientV1({ name: 'claims', version: '1' });
    await legacy.connect(new HttpV1(new URL(cli.url), bearer(token)));
    for (const client of [modern, legacy]) {
      const tools = (await client.listTools()).tools as Json[];
      const notes = tools.find((t) => t.name === 'my_notes');
      assert.deepEqual(notes.inputSchema.properties, {});
      assert.equal(notes.inputSchema.required, undefined);
      const api = tools.find((t) => t.name === 'whoami_api');
      assert.deepEqual(Object.keys(api.inputSchema.properties), ['page']);
    }
    await modern.close();
    await legacy.close();
  });

  it("returns only the caller's rows: alice and bob each see their own (2026 and 2025 eras)", async () => {
    const alice = await v2As(await issuer.token('claims-client', 'alice', 'notes'));
    const mine = (await alice.callTool({ name: 'my_notes', arguments: {} })) as Json;
    assert.equal(mine.isError, undefined, JSON.stringify(mine));
    assert.deepEqual(
      mine.structuredContent.rows.map((r: Json) => r.text),
      ['alice one', 'alice two'],
    );
    await alice.close();

    const bob = new ClientV1({ name: 'claims', version: '1' });
    await bob.connect(
      new HttpV1(new URL(cli.url), bearer(await issuer.token('claims-client', 'bob', 'notes'))),
    );
    const his = (await bob.callTool({ name: 'my_notes', arguments: {} })) as Json;
    assert.deepEqual(
      his.structuredContent.rows.map((r: Json) => r.text),
      ['bob one'],
    );
    await bob.close();
  });

  it('puts the claim in an http path, query and header, and in a program argument', async () => {
    const client = await v2As(await issuer.token('claims-client', 'bob', 'notes'));
    seen.length = 0;
    const api = (await client.callTool({ name: 'whoami_api', arguments: { page: 2 } })) as Json;
    assert.equal(api.isError, undefined, JSON.stringify(api));
    assert.equal(seen.length, 1);
    assert.equal(seen[0]?.url, '/users/bob%40example.test?as=bob%40example.test&page=2');
    assert.equal(seen[0]?.headers['x-user'], 'bob@example.test');
    assert.equal(seen[0]?.headers.authorization, undefined, 'the inbound token is not passed upstream');
    const shell = (await client.callTool({ name: 'whoami_shell', arguments: {} })) as Json;
    assert.equal(shell.content[0].text.trim(), 'user=bob@example.test');
    await client.close();
  });

  it('refuses an argument that tries to set the bound input, naming it, and runs nothing', async () => {
    const client = await v2As(await issuer.token('claims-client', 'bob', 'notes'));
    const res = (await client.callTool({
      name: 'my_notes',
      arguments: { owner: 'alice@example.test' },
    })) as Json;
    assert.equal(res.isError, true);
    assert.match(res.content[0].text, /"owner" \(from the "email" claim\).*cannot be passed/);
    assert.doesNotMatch(JSON.stringify(res), /alice (one|two)/);
    seen.length = 0;
    const api = (await client.callTool({ name: 'whoami_api', arguments: { owner: 'x' } })) as Json;
    assert.equal(api.isError, true);
    assert.equal(seen.length, 0, 'nothing was sent upstream');
    await client.close();
  });

  /** 2026: `tasks/get` until the task ends, or its error (-32602 for a task that is not the caller's). */
  async function settled(token: string, taskId: string): Promise<Json> {
    for (let i = 0; i < 200; i++) {
      const got = await taskRequest(cli.url, token, 2, 'tasks/get', { taskId });
      if (got.error !== undefined || got.result.status !== 'working') return got;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`task ${taskId} did not end`);
  }

  it("runs a bound tool as a 2026 task with the caller's claim; another caller cannot read it", async () => {
    const alice = await issuer.token('claims-client', 'alice', 'notes');
    const bob = await issuer.token('claims-client', 'bob', 'notes');
    const created = await taskRequest(cli.url, alice, 1, 'tools/call', {
      name: 'whoami_shell',
      arguments: {},
    });
    assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
    const taskId = created.result.taskId as string;
    const theirs = await settled(bob, taskId);
    assert.equal(theirs.error?.code, -32602, JSON.stringify(theirs));
    const done = await settled(alice, taskId);
    assert.equal(done.result.status, 'completed', JSON.stringify(done));
    assert.equal(done.result.result.isError, undefined, JSON.stringify(done.result.result));
    assert.equal(done.result.result.content[0].text.trim(), 'user=alice@example.test');
  });

  it("runs a bound tool as a 2025-11-25 task with the caller's claim; another caller cannot read it", async () => {
    const aliceTransport = new HttpV1(
      new URL(cli.url),
      bearer(await issuer.token('claims-client', 'alice', 'notes')),
    );
    const alice = new ClientV1({ name: 'claims', version: '1' });
    await alice.connect(aliceTransport);
    const created = await alice.request(
      { method: 'tools/call', params: { name: 'whoami_shell', arguments: {}, task: {} } },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    const result = (await alice.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as Json;
    assert.equal(result.isError, undefined, JSON.stringify(result));
    assert.equal(result.content[0].text.trim(), 'user=alice@example.test');

    const bobToken = await issuer.token('claims-client', 'bob', 'notes');
    const bob = new ClientV1({ name: 'claims', version: '1' });
    await bob.connect(new HttpV1(new URL(cli.url), bearer(bobToken)));
    await assert.rejects(bob.experimental.tasks.getTask(taskId), (err: Json) => err.code === -32602);
    const onAlices = new ClientV1({ name: 'claims', version: '1' });
    await onAlices.connect(
      new HttpV1(new URL(cli.url), { ...bearer(bobToken), sessionId: aliceTransport.sessionId as string }),
    );
    await assert.rejects(
      onAlices.experimental.tasks.getTaskResult(taskId, CallToolResultSchema),
      /404|not found/i,
    );
    await alice.close();
    await bob.close();
    await onAlices.close().catch(() => {});
  });

  it('refuses a bound tool to a caller with no verified identity (a static bearer token)', async () => {
    const client = await v2As(STATIC);
    const res = (await client.callTool({ name: 'my_notes', arguments: {} })) as Json;
    assert.equal(res.isError, true);
    assert.match(res.content[0].text, /needs the caller's verified identity \(the "email" claim/);
    assert.doesNotMatch(JSON.stringify(res), /alice|bob/);
    await client.close();
  });
});
