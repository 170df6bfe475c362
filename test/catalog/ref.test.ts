import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Catalog, CatalogRef } from '../../src/catalog/types.js';

const catalog = (name: string): Catalog => ({
  server: { name, version: '1' },
  tools: new Map(),
  resources: new Map(),
  templates: [],
  prompts: new Map(),
  pageSize: 10,
  dispose: async () => {},
});

test('a swapped-out catalog is idle only once every request that acquired it has released it', async () => {
  const first = catalog('first');
  const ref = new CatalogRef(first);
  const a = ref.acquire();
  const b = ref.acquire();
  assert.equal(ref.swap(catalog('second')), first);
  assert.equal(ref.current.server.name, 'second');
  let idle = false;
  const waiting = ref.idle(first).then(() => {
    idle = true;
  });
  ref.release(a);
  await new Promise((r) => setImmediate(r));
  assert.equal(idle, false, 'one request still runs on the first catalog');
  ref.release(b);
  await waiting;
  assert.equal(idle, true);
});

test('a catalog nobody acquired is idle at once', async () => {
  const ref = new CatalogRef(catalog('only'));
  await ref.idle(ref.current);
  const c = ref.acquire();
  ref.release(c);
  await ref.idle(c);
});
