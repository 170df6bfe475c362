/**
 * recipes/gateway served by the built CLI over HTTP (`--http`) in front of oidc-provider, from a
 * private copy of the recipe with its issuer pointed at the test's provider and its `npx -y`
 * upstreams pointed at the reference servers installed in node_modules. Both official clients (v1
 * in the 2025 era, v2 pinned to 2026-07-28) see only the filtered tools under their served names,
 * call the renamed server-everything tool, read a runbook through server-filesystem (confined to
 * the recipe's files/ folder) and query the SQLite tool; a filtered-out tool and an old name are
 * refused on tools/call, and a request without a token gets a 401. The README's curl is sent as
 * fetch, so its steps hold.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Issuer, startIssuer } from '../e2e/oidc-issuer.js';
import { REPO } from '../helpers/demo.js';
import { localUpstreams } from '../helpers/recipe-upstreams.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';

type Json = any;
const REDIRECT = 'http://127.0.0.1:7/callback';
const pin = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;

/** What the recipe serves: its filters and renames applied, nothing else. */
const SERVED = [
  'demo_get-annotated-message',
  'demo_get-structured-content',
  'demo_get-sum',
  'demo_get-tiny-image',
  'fs_directory_tree',
  'fs_get_file_info',
  'fs_list_directory',
  'fs_search_files',
  'read_runbook',
  'recent_incidents',
  'say',
];

/** Upstream names renamed away, and tools the filters leave out (server-filesystem's writes among them). */
const NOT_SERVED = [
  'echo',
  'demo_echo',
  'read_text_file',
  'fs_read_text_file',
  'demo_get-env',
  'get-env',
  'fs_write_file',
  'fs_edit_file',
  'fs_move_file',
  'fs_create_directory',
  'write_file',
];

const text = (result: Json) => (result.content as Json[]).map((b) => b.text ?? '').join('\n');

describe('recipes/gateway', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-gateway-recipe-'));
  let issuer: Issuer;
  let cli: ServedCli;

  before(async () => {
    let resource = '';
    issuer = await startIssuer({
      resource: () => resource,
      scopes: ['gateway'],
      clients: { 'gateway-demo': REDIRECT },
    });
    cpSync(join(REPO, 'recipes/gateway'), dir, { recursive: true, filter: (src) => !src.endsWith('.db') });
    const file = join(dir, 'mcp.yaml');
    const original = readFileSync(file, 'utf8');
    assert.match(original, /issuer: http:\/\/127\.0\.0\.1:4444/);
    const local = localUpstreams(original.replace('http://127.0.0.1:4444', issuer.url));
    assert.doesNotMatch(local, /\[npx/, 'every upstream runs from node_modules');
    writeFileSync(file, local);
    cli = await spawnHttpCli([file, '--no-watch']);
    resource = cli.url;
  });
  after(async () => {
    await cli?.stop();
    await issuer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const bearer = async () => ({
    requestInit: {
      headers: { authorization: `Bearer ${await issuer.token('gateway-demo', 'alice', 'gateway')}` },
    },
  });

  test('a request without a token gets a 401 that points to the resource metadata', async () => {
    const res = await fetch(cli.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });
    await res.body?.cancel();
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /resource_metadata=".*oauth-protected-resource/);
    // An official client without a token cannot even connect.
    await assert.rejects(
      new ClientV1({ name: 'anonymous', version: '1' }).connect(new HttpV1(new URL(cli.url))),
    );
  });

  test("the README's curl: a raw 2026-07-28 tools/call with a bearer token reads a runbook", async () => {
    const token = await issuer.token('gateway-demo', 'alice', 'gateway');
    const res = await fetch(cli.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'read_runbook',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'read_runbook',
          arguments: { path: 'runbooks/db-failover.md' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const body = await res.text();
    assert.equal(res.status, 200, body);
    assert.match(body, /Runbook: database failover/);
    const readme = readFileSync(join(REPO, 'recipes/gateway/README.md'), 'utf8');
    assert.match(readme, /'Mcp-Name: read_runbook'/);
    assert.match(readme, /"arguments":\{"path":"runbooks\/db-failover\.md"\}/);
  });

  const clients = {
    'v1 client (2025 era)': async () => {
      const client = new ClientV1({ name: 'gateway-v1', version: '1' });
      await client.connect(new HttpV1(new URL(cli.url), await bearer()));
      return client;
    },
    'v2 client (2026-07-28)': async () => {
      const client = new ClientV2({ name: 'gateway-v2', version: '1' }, pin);
      await client.connect(new HttpV2(new URL(cli.url), await bearer()));
      return client;
    },
  };

  for (const [label, connect] of Object.entries(clients)) {
    test(`${label}: lists the filtered tools under their served names, and calls each kind`, async () => {
      const client = await connect();
      try {
        const names = ((await client.listTools()).tools as Json[]).map((t) => t.name).sort();
        assert.deepEqual(names, SERVED);
        for (const name of NOT_SERVED) assert.ok(!names.includes(name), `${name} is listed`);

        // server-everything's echo, renamed by an override.
        const said = (await client.callTool({
          name: 'say',
          arguments: { message: `hello from ${label}` },
        })) as Json;
        assert.equal(said.isError, undefined, text(said));
        assert.match(text(said), new RegExp(`hello from ${label.replace(/[()]/g, '\\$&')}`));
        // A prefixed one.
        const sum = (await client.callTool({ name: 'demo_get-sum', arguments: { a: 40, b: 2 } })) as Json;
        assert.match(text(sum), /\b42\b/);

        // server-filesystem, reading a file the recipe ships, by a path relative to its folder.
        const runbook = (await client.callTool({
          name: 'read_runbook',
          arguments: { path: 'runbooks/db-failover.md' },
        })) as Json;
        assert.equal(runbook.isError, undefined, text(runbook));
        assert.equal(
          runbook.content[0].text,
          readFileSync(join(REPO, 'recipes/gateway/files/runbooks/db-failover.md'), 'utf8'),
        );

        // The SQL tool, on the database its seed creates.
        const incidents = (await client.callTool({
          name: 'recent_incidents',
          arguments: { service: 'billing' },
        })) as Json;
        assert.deepEqual(
          (incidents.structuredContent.rows as Json[]).map((r) => [r.opened, r.runbook]),
          [
            ['2026-03-14', 'runbooks/db-failover.md'],
            ['2026-03-02', 'runbooks/db-failover.md'],
          ],
        );
      } finally {
        await client.close();
      }
    });

    test(`${label}: a filtered-out tool, an old name and a write tool are refused on tools/call`, async () => {
      const client = await connect();
      try {
        for (const [name, args] of [
          ['demo_get-env', {}],
          ['get-env', {}],
          ['echo', { message: 'x' }],
          ['demo_echo', { message: 'x' }],
          ['fs_read_text_file', { path: 'oncall.md' }],
          ['fs_write_file', { path: 'pwned.md', content: 'x' }],
          ['write_file', { path: 'pwned.md', content: 'x' }],
        ] as const) {
          await assert.rejects(client.callTool({ name, arguments: args }), new RegExp(name), name);
        }
        assert.equal(existsSync(join(dir, 'files/pwned.md')), false);
      } finally {
        await client.close();
      }
    });
  }

  test('server-filesystem reads nothing outside the folder the recipe ships', async () => {
    const client = await clients['v1 client (2025 era)']();
    try {
      for (const path of ['../mcp.yaml', join(dir, 'mcp.yaml'), '/etc/passwd']) {
        const refused = (await client.callTool({ name: 'read_runbook', arguments: { path } })) as Json;
        assert.equal(refused.isError, true, path);
        assert.match(text(refused), /Access denied|outside allowed/i, path);
        assert.doesNotMatch(text(refused), /issuer:|root:/, path);
      }
    } finally {
      await client.close();
    }
  });
});
