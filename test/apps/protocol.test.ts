/**
 * MCP Apps on the wire: the built CLI over HTTP (`--http`), the official v2 client in each era
 * (2025-11-25 with `initialize`, 2026-07-28 stateless), with and without the
 * `io.modelcontextprotocol/ui` extension declared. A client with it sees each tool's `_meta.ui`
 * (and the flat legacy key), the app-only tool, the `ui://` resources with their `_meta.ui` on the
 * list entry and the read content, and the compact model text; a client without it gets exactly
 * what the same manifest without `ui:` answers (tools, resources, call results).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { modernRequest, post, type ServedCli, spawnHttpCli } from '../transports/http-harness.js';
import { connect, ERAS, FIXTURE, UI, VIEW_MIME } from './harness.js';

type Json = Record<string, any>;

/** A result without the contract hash, which names the manifest (views are part of the contract). */
function withoutContract(result: unknown): Json {
  const { _meta, ...rest } = result as Json;
  if (_meta === undefined) return rest;
  const { 'mcp-run/contract': _hash, ...meta } = _meta;
  return { ...rest, _meta: meta };
}

/** The fixture with every `ui:` taken out, and the tool only views call removed. */
function withoutViews(): string {
  const text = readFileSync(FIXTURE, 'utf8');
  const tools = text.split(/\n(?= {2}\w+:\n)/);
  return tools
    .filter((block) => !block.startsWith('  order_detail:'))
    .map((block) => block.replace(/\n {4}ui:[^\n]*(\n {6}[^\n]*)*/, ''))
    .join('\n');
}

describe('MCP Apps on the wire', () => {
  let served: ServedCli;
  let plain: ServedCli;
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-apps-'));

  before(async () => {
    const bare = join(dir, 'mcp.yaml');
    writeFileSync(bare, withoutViews());
    [served, plain] = await Promise.all([spawnHttpCli([FIXTURE]), spawnHttpCli([bare])]);
  });
  after(async () => {
    await Promise.all([served?.stop(), plain?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  test("2026-07-28: a task's result is shortened for the model like the call's", async () => {
    const capabilities = {
      extensions: { 'io.modelcontextprotocol/tasks': {}, [UI]: { mimeTypes: [VIEW_MIME] } },
    };
    let id = 0;
    const request = async (method: string, params: Json): Promise<Json> => {
      const { message, headers } = modernRequest(++id, method, params, {
        'io.modelcontextprotocol/clientCapabilities': capabilities,
      });
      if (typeof params.taskId === 'string') headers['mcp-name'] = params.taskId;
      const res = await post(served.url, message, headers);
      const type = String(res.headers['content-type'] ?? '');
      const response = type.includes('event-stream')
        ? res.events().find((m) => m.id === message.id)
        : res.json();
      return (response as Json).result;
    };
    const created = await request('tools/call', { name: 'monthly', arguments: {} });
    assert.equal(created.resultType, 'task');
    let task = await request('tasks/get', { taskId: created.taskId });
    for (let i = 0; task.status !== 'completed' && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 25));
      task = await request('tasks/get', { taskId: created.taskId });
    }
    assert.equal(task.status, 'completed');
    assert.match(
      task.result.content[0].text,
      /^4 rows, shown to the user in a chart\.\nColumns: month, total\./,
    );
    assert.equal(task.result.structuredContent.rows.length, 4);
  });

  for (const era of ERAS) {
    test(`${era}: a client with the extension sees the views, the app-only tool and compact text`, async () => {
      const client = await connect(served.url, era, true);
      try {
        const { tools } = (await client.listTools()) as Json;
        const byName = new Map<string, Json>(tools.map((t: Json) => [t.name, t]));
        assert.deepEqual(
          [...byName.keys()],
          ['orders', 'order_detail', 'monthly', 'monthly_vega', 'customer', 'custom', 'plain'],
        );
        assert.deepEqual(byName.get('orders')?._meta, {
          ui: { resourceUri: 'ui://orders/view.html' },
          'ui/resourceUri': 'ui://orders/view.html',
        });
        assert.deepEqual(byName.get('order_detail')?._meta.ui, {
          resourceUri: 'ui://order_detail/view.html',
          visibility: ['app'],
        });
        assert.equal(byName.get('plain')?._meta, undefined);

        const { resources } = (await client.listResources()) as Json;
        assert.deepEqual(
          resources.map((r: Json) => r.uri),
          ['orders', 'order_detail', 'monthly', 'monthly_vega', 'customer', 'custom'].map(
            (t) => `ui://${t}/view.html`,
          ),
        );
        const custom = resources.find((r: Json) => r.uri === 'ui://custom/view.html');
        const expectedUi = {
          csp: { connectDomains: ['https://api.example.com'] },
          permissions: { clipboardWrite: {} },
          prefersBorder: false,
        };
        assert.equal(custom.mimeType, VIEW_MIME);
        assert.deepEqual(custom._meta, { ui: expectedUi });
        const read = (await client.readResource({ uri: 'ui://custom/view.html' })) as Json;
        assert.deepEqual(read.contents[0]._meta, { ui: expectedUi });
        assert.match(read.contents[0].text, /A custom view/);
        const table = (await client.readResource({ uri: 'ui://orders/view.html' })) as Json;
        assert.equal(table.contents[0].mimeType, VIEW_MIME);
        assert.deepEqual(table.contents[0]._meta, {
          ui: { permissions: { clipboardWrite: {} }, prefersBorder: true },
        });
        assert.match(table.contents[0].text, /<script type="application\/json" id="mcp-run-view-config">/);
        assert.doesNotMatch(table.contents[0].text, /<script[^>]+src=|<link[^>]+href=/, 'nothing is fetched');

        const orders = (await client.callTool({ name: 'orders', arguments: {} })) as Json;
        assert.equal(orders.structuredContent.rows.length, 6);
        const text = orders.content.map((b: Json) => b.text).join('\n');
        assert.match(
          text,
          /^6 rows, shown to the user in a table\.\nColumns: id, customer, total, placed\.\nFirst 5:/,
        );
        assert.equal(text.split('\n').length, 8);

        const detail = (await client.callTool({ name: 'order_detail', arguments: { id: 3 } })) as Json;
        assert.deepEqual(detail.structuredContent.rows, [{ id: 3, customer: 'Bo', total: 200 }]);
        const refused = (await client.callTool({ name: 'order_detail', arguments: { id: 0 } })) as Json;
        assert.equal(refused.isError, true, 'an app-only call is validated like any other');
      } finally {
        await client.close();
      }
    });

    test(`${era}: a toolset with a tool serves its view, and only that one`, async () => {
      const client = await connect(`${served.url}/reports`, era, true);
      try {
        assert.deepEqual(
          ((await client.listTools()) as Json).tools.map((t: Json) => t.name),
          ['monthly'],
        );
        assert.deepEqual(
          ((await client.listResources()) as Json).resources.map((r: Json) => r.uri),
          ['ui://monthly/view.html'],
        );
      } finally {
        await client.close();
      }
    });

    test(`${era}: a client without the extension gets the answers of the manifest without views`, async () => {
      const [client, bare] = await Promise.all([
        connect(served.url, era, false),
        connect(plain.url, era, false),
      ]);
      try {
        const same = (a: unknown, b: unknown, what: string) =>
          assert.equal(JSON.stringify(withoutContract(a)), JSON.stringify(withoutContract(b)), what);
        same(await client.listTools(), await bare.listTools(), 'tools/list');
        for (const name of ['orders', 'monthly', 'monthly_vega', 'customer', 'plain'])
          same(
            await client.callTool({ name, arguments: {} }),
            await bare.callTool({ name, arguments: {} }),
            name,
          );
        same(await client.listResources(), await bare.listResources(), 'resources/list: no ui:// page');
        await assert.rejects(client.callTool({ name: 'order_detail', arguments: { id: 1 } }), /Unknown tool/);
      } finally {
        await Promise.all([client.close(), bare.close()]);
      }
    });
  }
});
