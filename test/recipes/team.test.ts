/**
 * recipes/team served by the built CLI over HTTP in front of oidc-provider, from a private copy of
 * the recipe with its issuer pointed at the test's provider. Two roles from the token's `roles`
 * claim: ann (analyst) finds customers with emails and card numbers masked and is not shown the
 * export; root (admin) sees everything and exports, five times an hour, the sixth refused with when
 * to retry; a token without a role is shown no tool. Afterwards the audit file holds one record per
 * call with its decision, no token and no masked value, and `mcp-run audit --verify` finds the
 * chain intact. Both official clients: v2 pinned to 2026-07-28, v1 in the 2025 era.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Issuer, startIssuer } from '../e2e/oidc-issuer.js';
import { CLI, REPO } from '../helpers/demo.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';

type Json = any;
const REDIRECT = 'http://127.0.0.1:7/callback';
const pin = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
const ROLES: Record<string, string[]> = { ann: ['analyst'], root: ['admin'] };

describe('recipes/team', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-team-recipe-'));
  let issuer: Issuer;
  let cli: ServedCli;
  const tokens: string[] = [];

  before(async () => {
    let resource = '';
    issuer = await startIssuer({
      resource: () => resource,
      scopes: ['customers.read'],
      clients: { 'team-demo': REDIRECT },
      claims: (account) => (ROLES[account] === undefined ? {} : { roles: ROLES[account] }),
    });
    cpSync(join(REPO, 'recipes/team'), dir, {
      recursive: true,
      filter: (src) => !src.endsWith('.db') && !src.includes('/audit'),
    });
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

  async function bearer(account: string) {
    const token = await issuer.token('team-demo', account, 'customers.read');
    tokens.push(token);
    return { requestInit: { headers: { authorization: `Bearer ${token}` } } };
  }

  async function modernAs(account: string): Promise<ClientV2> {
    const client = new ClientV2({ name: 'team', version: '1' }, pin);
    await client.connect(new HttpV2(new URL(cli.url), await bearer(account)));
    return client;
  }

  async function legacyAs(account: string): Promise<ClientV1> {
    const client = new ClientV1({ name: 'team', version: '1' });
    await client.connect(new HttpV1(new URL(cli.url), await bearer(account)));
    return client;
  }

  const toolNames = async (client: ClientV1 | ClientV2) =>
    ((await client.listTools()).tools as Json[]).map((t) => t.name).sort();

  test('each role is shown the tools it may use', async () => {
    const ann = await modernAs('ann');
    assert.deepEqual(await toolNames(ann), ['find_customers']);
    await ann.close();
    const root = await legacyAs('root');
    assert.deepEqual(await toolNames(root), ['export_customers', 'find_customers']);
    await root.close();
    const nobody = await modernAs('nobody');
    assert.deepEqual(await toolNames(nobody), []);
    await nobody.close();
  });

  test('an analyst sees emails, card numbers and IBANs masked, in rows and text; an admin sees them', async () => {
    const ann = await modernAs('ann');
    const masked = (await ann.callTool({ name: 'find_customers', arguments: { plan: 'pro' } })) as Json;
    assert.deepEqual(
      masked.structuredContent.rows.map((r: Json) => [r.name, r.email, r.note]),
      [
        ['Ada Lovelace', '***', 'Pays by card [card]'],
        ['Grace Hopper', '***', 'Invoice to IBAN [iban]'],
      ],
    );
    const text = masked.content.map((c: Json) => c.text).join('\n');
    assert.doesNotMatch(text, /@example\.com|4111|GB82/);
    await ann.close();

    const root = await legacyAs('root');
    const plain = (await root.callTool({ name: 'find_customers', arguments: { plan: 'pro' } })) as Json;
    assert.equal(plain.structuredContent.rows[0].email, 'ada@example.com');
    assert.match(plain.content.map((c: Json) => c.text).join('\n'), /4111 1111 1111 1111/);
    await root.close();
  });

  test("an analyst's export is refused by the admins policy, naming it and nothing of its expression", async () => {
    const ann = await legacyAs('ann');
    await assert.rejects(ann.callTool({ name: 'export_customers', arguments: {} }), (err: Json) => {
      assert.equal(err.code, -32040);
      assert.deepEqual(err.data, { rule: 'admins' });
      assert.doesNotMatch(err.message, /claims|roles/);
      return true;
    });
    await ann.close();
  });

  test('an admin exports five times an hour; the sixth is refused with when to retry', async () => {
    const root = await modernAs('root');
    for (let i = 0; i < 5; i++) {
      const all = (await root.callTool({ name: 'export_customers', arguments: {} })) as Json;
      assert.equal(all.structuredContent.rows.length, 4);
    }
    await assert.rejects(root.callTool({ name: 'export_customers', arguments: {} }), (err: Json) => {
      assert.equal(err.code, -32041);
      assert.equal(err.data.rule, 'tools.export_customers.limits.calls 5/hour');
      assert.ok(err.data.retryAfter > 0 && err.data.retryAfter <= 3700, JSON.stringify(err.data));
      return true;
    });
    // The limit is root's: an analyst's calls are not counted against it.
    const ann = await modernAs('ann');
    const found = (await ann.callTool({ name: 'find_customers', arguments: { plan: 'free' } })) as Json;
    assert.equal(found.structuredContent.rows.length, 2);
    await ann.close();
    await root.close();
  });

  test('the audit file records every call with its decision, no token and no value it masked', async () => {
    const folder = join(dir, 'audit');
    const read = () => {
      const files = readdirSync(folder).map((f) => join(folder, f));
      const text = files.map((f) => readFileSync(f, 'utf8')).join('');
      const records = text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Json)
        .filter((r) => r.method === 'tools/call');
      return { files, text, records };
    };
    // The trail is written after each answer is sent: the last call's record may still be on its
    // way when its answer arrived, so the file is read again until it holds them all (bounded).
    let { files, text, records } = read();
    for (let waited = 0; records.length < 10 && waited < 10_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      ({ files, text, records } = read());
    }
    // 2 finds and 1 refused export above, 6 exports and 1 find in the limits test.
    assert.equal(records.length, 10, text);
    const decisions = records.map((r) => r.decision?.decision ?? r.decision).sort();
    assert.deepEqual(
      decisions.filter((d) => d !== 'allow'),
      ['deny', 'limit'],
      JSON.stringify(records.map((r) => r.decision)),
    );
    for (const token of tokens) assert.ok(!text.includes(token), 'no access token in the trail');
    assert.doesNotMatch(text, /4111 1111|GB82 WEST/);
    const verify = spawnSync(process.execPath, [CLI, 'audit', ...files, '--verify'], { encoding: 'utf8' });
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
  });
});
