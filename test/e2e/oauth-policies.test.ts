/**
 * Policies end to end: `mcp-run --http` with `server.auth` in front of oidc-provider (a real OpenID
 * provider issuing JWT access tokens), three accounts with different `roles` claims: alice (staff,
 * hr), bob (staff) and carol (guest). A server policy lets only staff use most entries; another masks
 * a SQL column and card numbers unless the caller is in hr; a tool's own policy refuses a large
 * `limit`. Checked: allow and deny with the policy named and its expression not leaked; masking by
 * claim in the rows and the table the model reads; lists filtered per caller; and every path to a
 * denied entry refused: a mirrored tool, a tool with a step, a task, completion of a prompt and of a
 * template, reads and gets, in both eras, and a tool only an MCP Apps view calls. (Upstream entries
 * do not exist yet.)
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  modernRequest,
  post,
  type ServedCli,
  spawnHttpCli,
  taskRequest,
} from '../transports/http-harness.js';
import { type Issuer, startIssuer } from './oidc-issuer.js';

const REDIRECT = 'http://127.0.0.1:7/callback';
const pin = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
const ROLES: Record<string, readonly string[]> = { alice: ['staff', 'hr'], bob: ['staff'], carol: ['guest'] };

type Json = any;

describe('policies: allow, deny, masking and lists by the caller’s claims (oidc-provider tokens)', () => {
  let issuer: Issuer;
  let cli: ServedCli;
  let dir: string;

  before(async () => {
    let resource = '';
    issuer = await startIssuer({
      resource: () => resource,
      scopes: ['data'],
      clients: { 'policy-client': REDIRECT },
      claims: (account) => ({ roles: ROLES[account] ?? [] }),
    });
    dir = await mkdtemp(join(tmpdir(), 'mcp-run-policies-'));
    await writeFile(
      join(dir, 'seed.sql'),
      [
        'CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, email TEXT, note TEXT);',
        "INSERT INTO customers VALUES (1, 'Ada', 'ada@example.test', 'paid with 4111 1111 1111 1111'), (2, 'Bob', 'bob@example.test', 'no card');",
        '',
      ].join('\n'),
    );
    const manifest = [
      'server:',
      '  name: governed',
      '  mirror: true',
      '  auth:',
      `    issuer: ${issuer.url}`,
      '    scopes: { required: [data] }',
      '  policies:',
      '    staff-only:',
      '      allow: \'"staff" in claims.roles\'',
      '    pii:',
      '      output:',
      '        - unless: \'"hr" in claims.roles\'',
      '          columns: [email]',
      '          detect: [card]',
      'sources:',
      '  db: { kind: sqlite, path: ./c.db, seed: ./seed.sql }',
      'tools:',
      '  customers:',
      '    kind: sql',
      '    source: db',
      '    description: Customers.',
      '    sql: SELECT id, name, email, note FROM customers ORDER BY id LIMIT :limit',
      '    input: { limit: { type: integer, default: 10 } }',
      '    policy: [staff-only, pii, { deny: args.limit > 50 }]',
      '  forget_customer:',
      '    kind: shell',
      '    description: Forgets a customer.',
      '    command: [echo, forgotten]',
      '    confirm: Forget this customer?',
      '    policy: staff-only',
      '  slow_report:',
      '    kind: shell',
      '    description: A long report.',
      '    command: [echo, report]',
      '    task: optional',
      '    policy: staff-only',
      '  ping:',
      '    kind: content',
      '    description: Anyone may ping.',
      '    content: [{ text: pong }]',
      '  customer_card:',
      '    kind: content',
      '    description: One customer, for the view only.',
      '    content: [{ text: card }]',
      '    ui: { view: card, visibility: [app] }',
      '    policy: staff-only',
      'resources:',
      '  handbook:',
      '    kind: text',
      '    uri: docs://handbook',
      '    text: "Payroll: payroll@example.test"',
      '    policy: staff-only',
      '  region:',
      '    kind: text',
      '    uri: region://{code}',
      '    text: "Region {{code}}"',
      '    variables: { code: { enum: [eu, us] } }',
      '    policy: staff-only',
      'prompts:',
      '  brief:',
      '    arguments: { topic: { description: The topic, enum: [sales, support] } }',
      '    messages: [{ text: "Brief on {{topic}}" }]',
      '    policy: staff-only',
      '',
    ].join('\n');
    await writeFile(join(dir, 'mcp.yaml'), manifest);
    // Watched, so the handbook sends updates and can be subscribed to.
    cli = await spawnHttpCli([join(dir, 'mcp.yaml')]);
    resource = cli.url;
  });
  after(async () => {
    await cli?.stop();
    await issuer?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const bearer = (token: string) => ({ requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const token = (account: string) => issuer.token('policy-client', account, 'data');

  async function modernAs(account: string): Promise<ClientV2> {
    const client = new ClientV2({ name: 'policies', version: '1' }, pin);
    await client.connect(new HttpV2(new URL(cli.url), bearer(await token(account))));
    return client;
  }

  /** A client that shows MCP Apps views, so the tools only views call are callable at all. */
  async function withViewsAs(account: string): Promise<ClientV2> {
    const client = new ClientV2(
      { name: 'policies', version: '1' },
      {
        ...pin,
        capabilities: {
          extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
        },
      },
    );
    await client.connect(new HttpV2(new URL(cli.url), bearer(await token(account))));
    return client;
  }

  async function legacyAs(account: string): Promise<ClientV1> {
    const client = new ClientV1({ name: 'policies', version: '1' });
    await client.connect(new HttpV1(new URL(cli.url), bearer(await token(account))));
    return client;
  }

  /** The request fails with the policy error naming `rule`, and says nothing of the expression. */
  async function refused(request: Promise<unknown>, rule: string): Promise<void> {
    await assert.rejects(request, (err: Json) => {
      assert.equal(err.code, -32040, String(err));
      assert.deepEqual(err.data, { rule });
      assert.match(err.message, new RegExp(`"${rule.replace('.', '\\.')}"`));
      assert.doesNotMatch(err.message, /claims\.|roles|limit >/);
      return true;
    });
  }

  it('allows staff and refuses a guest, naming the policy, in both eras', async () => {
    const bob = await modernAs('bob');
    const ok = (await bob.callTool({ name: 'customers', arguments: {} })) as Json;
    assert.equal(ok.isError, undefined, JSON.stringify(ok));
    assert.equal(ok.structuredContent.rows.length, 2);
    await bob.close();
    for (const carol of [await modernAs('carol'), await legacyAs('carol')]) {
      await refused(carol.callTool({ name: 'customers', arguments: {} }), 'staff-only');
      const pong = (await carol.callTool({ name: 'ping', arguments: {} })) as Json;
      assert.equal(pong.content[0].text, 'pong');
      await carol.close();
    }
  });

  it("refuses by the arguments under an entry's own policy, named after the entry", async () => {
    const alice = await modernAs('alice');
    await refused(alice.callTool({ name: 'customers', arguments: { limit: 100 } }), 'tools.customers');
    const fine = (await alice.callTool({ name: 'customers', arguments: { limit: 1 } })) as Json;
    assert.equal(fine.structuredContent.rows.length, 1);
    await alice.close();
  });

  it('masks the email column and card numbers unless the caller is in hr, in rows and text', async () => {
    const bob = await modernAs('bob');
    const masked = (await bob.callTool({ name: 'customers', arguments: {} })) as Json;
    assert.deepEqual(
      masked.structuredContent.rows.map((r: Json) => [r.email, r.note]),
      [
        ['***', 'paid with [card]'],
        ['***', 'no card'],
      ],
    );
    const text = masked.content.map((c: Json) => c.text).join('\n');
    assert.doesNotMatch(text, /example\.test|4111/);
    assert.match(text, /\| Ada \| \*\*\* \| paid with \[card\] \|/);
    await bob.close();

    const alice = await modernAs('alice');
    const plain = (await alice.callTool({ name: 'customers', arguments: {} })) as Json;
    assert.equal(plain.structuredContent.rows[0].email, 'ada@example.test');
    assert.match(plain.content.map((c: Json) => c.text).join('\n'), /4111 1111 1111 1111/);
    await alice.close();
  });

  it("leaves what a caller's claims refuse out of that caller's lists", async () => {
    const staff = [
      'customers',
      'forget_customer',
      'slow_report',
      'read_handbook',
      'read_region',
      'get_prompt_brief',
    ];
    const bob = await modernAs('bob');
    const bobs = ((await bob.listTools()).tools as Json[]).map((t) => t.name);
    for (const name of [...staff, 'ping']) assert.ok(bobs.includes(name), `bob sees ${name}`);
    assert.equal((await bob.listResources()).resources.length, 1);
    assert.equal((await bob.listResourceTemplates()).resourceTemplates.length, 1);
    assert.equal((await bob.listPrompts()).prompts.length, 1);
    await bob.close();

    // A list that depends on the caller is cacheable for that caller only; so is a governed read.
    const carolToken = await token('carol');
    const list = modernRequest(1, 'tools/list');
    const raw = (
      await post(cli.url, list.message, { ...list.headers, authorization: `Bearer ${carolToken}` })
    ).json();
    assert.equal(raw.result.cacheScope, 'private', JSON.stringify(raw));
    const read = modernRequest(2, 'resources/read', { uri: 'docs://handbook' });
    const bobRead = (
      await post(cli.url, read.message, { ...read.headers, authorization: `Bearer ${await token('bob')}` })
    ).json();
    assert.equal(bobRead.result.cacheScope, 'private', JSON.stringify(bobRead));

    for (const carol of [await modernAs('carol'), await legacyAs('carol')]) {
      const tools = ((await carol.listTools()).tools as Json[]).map((t) => t.name);
      assert.deepEqual(tools, ['ping']);
      assert.deepEqual((await carol.listResources()).resources, []);
      assert.deepEqual((await carol.listResourceTemplates()).resourceTemplates, []);
      assert.deepEqual((await carol.listPrompts()).prompts, []);
      await carol.close();
    }
  });

  it('refuses a guest on every path to a denied entry: mirror, step, read, template, prompt, completion', async () => {
    for (const carol of [await modernAs('carol'), await legacyAs('carol')]) {
      await refused(carol.callTool({ name: 'read_handbook', arguments: {} }), 'staff-only');
      await refused(carol.callTool({ name: 'read_region', arguments: { code: 'eu' } }), 'staff-only');
      await refused(
        carol.callTool({ name: 'get_prompt_brief', arguments: { topic: 'sales' } }),
        'staff-only',
      );
      // The step (confirm) would need elicitation, which these clients lack: the policy refuses first.
      await refused(carol.callTool({ name: 'forget_customer', arguments: {} }), 'staff-only');
      await refused(carol.readResource({ uri: 'docs://handbook' }), 'staff-only');
      await refused(carol.readResource({ uri: 'region://eu' }), 'staff-only');
      await refused(carol.getPrompt({ name: 'brief', arguments: { topic: 'sales' } }), 'staff-only');
      if (carol instanceof ClientV1)
        await assert.rejects(
          carol.subscribeResource({ uri: 'docs://handbook' }),
          (err: Json) => err.code === -32002,
        );
      await refused(
        carol.complete({
          ref: { type: 'ref/prompt', name: 'brief' },
          argument: { name: 'topic', value: 's' },
        }),
        'staff-only',
      );
      await refused(
        carol.complete({
          ref: { type: 'ref/resource', uri: 'region://{code}' },
          argument: { name: 'code', value: 'e' },
        }),
        'staff-only',
      );
      await carol.close();
    }
    const bobLegacy = await legacyAs('bob');
    assert.deepEqual(await bobLegacy.subscribeResource({ uri: 'docs://handbook' }), {});
    await bobLegacy.close();
    const bob = await modernAs('bob');
    const read = await bob.readResource({ uri: 'docs://handbook' });
    assert.equal((read.contents[0] as Json).text, 'Payroll: payroll@example.test');
    const done = await bob.complete({
      ref: { type: 'ref/prompt', name: 'brief' },
      argument: { name: 'topic', value: 's' },
    });
    assert.deepEqual(done.completion.values, ['sales', 'support']);
    await bob.close();
  });

  it("refuses a guest the tool only a view calls, as it refuses a model's call; staff get it", async () => {
    const carol = await withViewsAs('carol');
    await refused(carol.callTool({ name: 'customer_card', arguments: {} }), 'staff-only');
    await carol.close();
    const bob = await withViewsAs('bob');
    const card = (await bob.callTool({ name: 'customer_card', arguments: {} })) as Json;
    assert.equal(card.content[0].text, 'card');
    await bob.close();
  });

  it('refuses a guest a task before it is made; staff get theirs', async () => {
    const carol = await token('carol');
    const refusedCall = await taskRequest(cli.url, carol, 1, 'tools/call', {
      name: 'slow_report',
      arguments: {},
    });
    assert.equal(refusedCall.error?.code, -32040, JSON.stringify(refusedCall));
    assert.deepEqual(refusedCall.error.data, { rule: 'staff-only' });
    const legacy = await legacyAs('carol');
    await refused(
      legacy.request(
        { method: 'tools/call', params: { name: 'slow_report', arguments: {}, task: {} } },
        CreateTaskResultSchema,
      ),
      'staff-only',
    );
    await legacy.close();
    const alice = await token('alice');
    const allowed = await taskRequest(cli.url, alice, 4, 'tools/call', {
      name: 'slow_report',
      arguments: {},
    });
    assert.equal(allowed.result?.resultType, 'task', JSON.stringify(allowed));
  });
});
