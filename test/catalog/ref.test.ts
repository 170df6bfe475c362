import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Catalog, CatalogRef } from '../../src/catalog/types.js';

const catalog = (name: string): Catalog => ({
  server: { name, version: '1' },
  tools: new Map(),
  resources: new Map(),
  templates: [],
  prompts: new Map(),
  skills: new Map(),
  pageSize: 10,
  dispose: async () => {},
});

/** Whether `promise` has settled once the microtasks queued so far and one macrotask have run. */
async function settles(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await new Promise((r) => setImmediate(r));
  return settled;
}

test('a swapped-out catalog is idle only once every request that acquired it has released it', async () => {
  const first = catalog('first');
  const ref = new CatalogRef(first);
  const a = ref.acquire();
  const b = ref.acquire();
  assert.equal(ref.swap(catalog('second')), first);
  assert.equal(ref.current.server.name, 'second');
  const waiting = ref.idle(first);
  ref.release(a);
  assert.equal(await settles(waiting), false, 'one request still runs on the first catalog');
  ref.release(b);
  assert.equal(await settles(waiting), true, 'the last release wakes the waiter');
});

test('a catalog nobody acquired is idle at once; one acquired is idle again after its release', async () => {
  const ref = new CatalogRef(catalog('only'));
  assert.equal(await settles(ref.idle(ref.current)), true, 'never acquired: idle at once');
  const c = ref.acquire();
  const waiting = ref.idle(c);
  assert.equal(await settles(waiting), false, 'acquired: not idle');
  ref.release(c);
  assert.equal(await settles(waiting), true, 'released: the waiter wakes');
  assert.equal(await settles(ref.idle(c)), true, 'released: a new waiter resolves at once');
});
