/**
 * The CLI starts its watcher after the first answer on stdio (loading chokidar would delay it), so
 * an edit can land between the load and the watcher's first report. That edit is caught up with
 * once the watcher reports: it is served and announced, never lost in the gap.
 *
 * Real parts: a manifest on disk, the builtin kinds, the real loader, compiler and Reloader with a
 * chokidar watcher. The gap is held open on purpose (the `after` promise) so the edit surely falls
 * in it.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadCatalog } from '../../src/catalog/load.js';
import { Reloader } from '../../src/catalog/reload.js';
import { CatalogRef, type ListCategory } from '../../src/catalog/types.js';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { StderrLogger } from '../../src/log.js';
import { tempFiles } from '../helpers/demo.js';

const manifest = (tools: string[]) =>
  `tools:\n${tools.map((t) => `  ${t}: { kind: content, description: Tool ${t}, content: [{ text: ${t} }] }`).join('\n')}\n`;

async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function watched(edit: (file: string) => void) {
  const files = tempFiles({ 'mcp.yaml': manifest(['one']) });
  const file = join(files.dir, 'mcp.yaml');
  const registry = builtinKinds();
  const log = new StderrLogger('warn', () => {});
  const loaded = await loadCatalog(file, registry, log);
  const ref = new CatalogRef(loaded.catalog);
  const changes: ListCategory[][] = [];
  const reloader = new Reloader({
    file,
    ref,
    registry,
    log,
    listener: { listChanged: (c) => void changes.push([...c]), resourceUpdated: () => {} },
    debounceMs: 20,
  });
  let open!: () => void;
  reloader.start(
    loaded.text,
    new Promise<void>((resolve) => {
      open = resolve;
    }),
  );
  edit(file);
  open();
  await reloader.ready();
  return {
    file,
    reloader,
    ref,
    changes,
    async close() {
      await reloader.close();
      await ref.current.dispose();
      files.cleanup();
    },
  };
}

test('an edit made before the watcher reports is served and announced once it does', async () => {
  const w = await watched((file) => writeFileSync(file, manifest(['one', 'two'])));
  try {
    await until(() => w.ref.current.tools.has('two'), 'the edit to be served');
    assert.deepEqual([...w.ref.current.tools.keys()], ['one', 'two']);
    assert.deepEqual(w.changes, [['tools']]);
  } finally {
    await w.close();
  }
});

test('without an edit in the gap, nothing is reloaded or announced', async () => {
  const w = await watched(() => {});
  try {
    const before = w.ref.current;
    // Longer than the debounce: a reload the catch-up started would have swapped by now.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(w.ref.current, before);
    assert.deepEqual(w.changes, []);
  } finally {
    await w.close();
  }
});

test('an edit heard twice in a row (the watcher, then the catch-up) is served by the second reload', async () => {
  const w = await watched(() => {});
  try {
    writeFileSync(w.file, manifest(['one', 'three']));
    // Both queued at once: the first builds the edit and drops it for the newer one, which must
    // still find the edit new, compared with the catalog served.
    const [first, second] = await Promise.all([
      w.reloader.changed([w.file], false),
      w.reloader.changed([w.file], false),
    ]);
    assert.deepEqual([first, second], ['superseded', 'reloaded']);
    assert.deepEqual([...w.ref.current.tools.keys()], ['one', 'three']);
    assert.deepEqual(w.changes, [['tools']]);
  } finally {
    await w.close();
  }
});
