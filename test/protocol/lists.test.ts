/** The list methods: manifest order, pagination, cursors, and the 2026 decoration. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CatalogRef } from '../../src/catalog/types.js';
import { createProtocol } from '../../src/protocol/server.js';
import { makeCatalog } from './catalog-fixture.js';
import { captureLogger, FIXTURE_META, modern, setup, TestClient } from './harness.js';

async function collect(client: TestClient, method: string, key: string, wrap: (p: object) => object) {
  const names: string[] = [];
  const pages: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const response = await client.request(method, wrap(cursor === undefined ? {} : { cursor }));
    assert.equal(response.error, undefined, JSON.stringify(response.error));
    pages.push(response.result);
    for (const item of response.result[key]) names.push(item.name);
    cursor = response.result.nextCursor;
  } while (cursor !== undefined);
  return { names, pages };
}

describe('list methods', () => {
  it('pages tools in manifest order by pageSize (legacy)', async () => {
    const client = setup().client();
    await client.initialize();
    const { names, pages } = await collect(client, 'tools/list', 'tools', (p) => p);
    assert.deepEqual(names, ['echo', 'add', 'work', 'slow', 'late', 'boom']);
    assert.equal(pages.length, 3);
    assert.equal((pages[0]!.tools as unknown[]).length, 2);
    assert.equal(pages[2]!.nextCursor, undefined, 'the last page has no nextCursor');
    assert.deepEqual(Object.keys(pages[0]!).sort(), ['nextCursor', 'tools']);
  });

  it('lists resources, templates and prompts in both eras', async () => {
    const client = setup().client();
    await client.initialize();
    const legacy = await client.request('resources/list', {});
    assert.deepEqual(
      legacy.result.resources.map((r: { uri: string }) => r.uri),
      ['test://static', 'test://broken'],
    );
    const templates = await client.request('resources/templates/list', modern());
    assert.deepEqual(templates.result.resourceTemplates, [
      { uriTemplate: 'test://items/{id}', name: 'item' },
    ]);
    assert.equal(templates.result.ttlMs, 60000);
    const prompts = await collect(client, 'prompts/list', 'prompts', (p) =>
      modern(p as Record<string, unknown>),
    );
    assert.deepEqual(prompts.names, ['greet', 'many']);
  });

  it('decorates every modern page with resultType, ttlMs, cacheScope and serverInfo', async () => {
    const client = setup({ listChanged: false }).client();
    const { names, pages } = await collect(client, 'tools/list', 'tools', (p) =>
      modern(p as Record<string, unknown>),
    );
    assert.equal(names.length, 6);
    for (const page of pages) {
      assert.equal(page.resultType, 'complete');
      assert.equal(page.ttlMs, 3600000);
      assert.equal(page.cacheScope, 'public');
      assert.deepEqual(page._meta, FIXTURE_META);
    }
  });

  it('serves the same cached page twice without corrupting it', async () => {
    const client = setup().client();
    await client.initialize();
    const a = await client.request('tools/list', {});
    const m = await client.request('tools/list', modern());
    const b = await client.request('tools/list', {});
    assert.deepEqual(a.result, b.result);
    assert.equal(b.result.resultType, undefined, 'the modern decoration never leaks into the cached page');
    assert.equal(m.result.resultType, 'complete');
  });

  for (const cursor of ['garbage!', 'eyJvIjotMX0', 'bm90IGpzb24', '', 42, 'eyJvIjo5OX0']) {
    it(`refuses the bad cursor ${JSON.stringify(cursor)} with -32602`, async () => {
      const client = setup().client();
      await client.initialize();
      const response = await client.request('tools/list', { cursor });
      assert.equal(response.error.code, -32602);
      assert.ok((await client.request('tools/list', {})).result.tools.length > 0);
    });
  }

  it('serves a swapped catalog (after a reload) from the next request on', async () => {
    const fixture = { slowStarted: 0, slowAborted: 0, releaseSlow: [] };
    const ref = new CatalogRef(makeCatalog(fixture));
    const client = new TestClient(createProtocol(ref, { log: captureLogger(), listChanged: true }));
    await client.initialize();
    ref.swap(makeCatalog(fixture, { tools: new Map(), pageSize: 10 }));
    const response = await client.request('tools/list', {});
    assert.deepEqual(response.result, { tools: [] });
  });
});
