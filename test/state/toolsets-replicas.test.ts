/**
 * Toolsets with `--state`: two mcp-run replicas sharing Redis (under this test's own key prefix),
 * reached directly. Each official v1 client initializes its 2025 session on replica A, on the path
 * of a toolset (or the default endpoint), and every later request (the GET stream included) goes to
 * replica B, which takes the session up from the store: B serves it that toolset's view on its
 * path and refuses it elsewhere. An edit of one toolset's tool reloads both replicas: only the
 * clients that see that tool get list_changed, exactly once each.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { eventually, type Replica, skipReason, startReplica, stateUrl } from './replicas-harness.js';

const MANIFEST = (alphaText: string) => `
server: { name: toolsets-replicas, version: 1.0.0 }
tools:
  alpha_tool:
    kind: content
    description: ${alphaText}
    content:
      - text: alpha
  beta_tool:
    kind: content
    description: Beta.
    content:
      - text: beta
toolsets:
  alpha:
    tools: [alpha_tool]
  beta:
    tools: [beta_tool]
`;

const skip = skipReason();

/** A v1 client on `path` whose initialize goes to replica `a` and everything after to `b`. */
function splitClient(path: string, a: Replica, b: Replica) {
  const listChanged: number[] = [];
  const served: { method: string; replica: string; status: number }[] = [];
  const client = new Client({ name: `toolsets-replicas${path.replaceAll('/', '-')}`, version: '1.0.0' });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChanged.push(Date.now());
  });
  const transport = new StreamableHTTPClientTransport(new URL(path, a.url), {
    fetch: async (input, init) => {
      const body = typeof init?.body === 'string' ? JSON.parse(init.body) : {};
      const target = body.method === 'initialize' ? a : b;
      const url = new URL(String(input instanceof Request ? input.url : input));
      url.port = String(target.port);
      const res = await fetch(url, init);
      served.push({
        method: init?.method ?? 'GET',
        replica: res.headers.get('x-mcp-run-replica') ?? '?',
        status: res.status,
      });
      return res;
    },
  });
  return { client, transport, listChanged, served, sessionId: () => transport.sessionId };
}

describe('toolsets with replicas sharing Redis', { skip }, () => {
  let dir: string;
  let manifest: string;
  let a: Replica;
  let b: Replica;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-run-toolsets-replicas-'));
    manifest = join(dir, 'mcp.yaml');
    writeFileSync(manifest, MANIFEST('Alpha.'));
    const state = stateUrl();
    [a, b] = await Promise.all([startReplica(manifest, state), startReplica(manifest, state)]);
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  test('a session taken up on another replica keeps its toolset; list_changed only where the view changed, once', async () => {
    const alpha = splitClient('/mcp/alpha', a, b);
    const beta = splitClient('/mcp/beta', a, b);
    const whole = splitClient('/mcp', a, b);
    const clients = [alpha, beta, whole];
    for (const c of clients) await c.client.connect(c.transport);
    try {
      assert.deepEqual(
        (await alpha.client.listTools()).tools.map((t) => t.name),
        ['alpha_tool'],
        "replica B serves the alpha session alpha's view",
      );
      assert.deepEqual(
        (await beta.client.listTools()).tools.map((t) => t.name),
        ['beta_tool'],
      );
      assert.deepEqual(
        (await whole.client.listTools()).tools.map((t) => t.name),
        ['alpha_tool', 'beta_tool'],
      );
      for (const c of clients) {
        assert.equal(c.served.find((s) => s.method === 'POST')?.replica, a.id, 'initialize on A');
        assert.ok(
          c.served.slice(1).every((s) => s.replica === b.id),
          'every later request on B',
        );
        await eventually(
          () => c.served.some((s) => s.method === 'GET' && s.status === 200),
          'the GET stream, on B',
        );
      }

      // On another toolset's path (or the default one) the alpha session is unknown, on B as on A.
      for (const replica of [a, b]) {
        for (const path of ['/mcp/beta', '/mcp']) {
          const res = await fetch(new URL(path, replica.url), {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-session-id': alpha.sessionId() ?? '',
              'mcp-protocol-version': '2025-11-25',
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
          });
          await res.text();
          assert.equal(res.status, 404, `the alpha session on ${path} of replica ${replica.id}`);
        }
      }

      writeFileSync(manifest, MANIFEST('Alpha, edited.'));
      await eventually(
        () => alpha.listChanged.length >= 1 && whole.listChanged.length >= 1,
        'list_changed on the clients that see alpha_tool',
      );
      for (const r of [a, b])
        await eventually(() => r.stderr().includes('reloaded'), `replica ${r.id} reloaded`);
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(alpha.listChanged.length, 1, 'the alpha client: exactly one list_changed');
      assert.equal(whole.listChanged.length, 1, 'the default endpoint client: exactly one list_changed');
      assert.equal(beta.listChanged.length, 0, 'the beta client: none (its view did not change)');
    } finally {
      for (const c of clients) await c.client.close();
    }
  });
});
