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
import { dirname, join } from 'node:path';
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

/**
 * A served manifest and its Reloader. `own: false`: no watcher of its own (as a worker of
 * `--workers`), so the test alone decides when reloads are queued.
 */
async function watched(edit: (file: string) => void, own = true, start: Record<string, string> = {}) {
  const files = tempFiles({ 'mcp.yaml': manifest(['one']), ...start });
  const file = join(files.dir, 'mcp.yaml');
  const registry = builtinKinds();
  const logged: string[] = [];
  const log = new StderrLogger('info', (line) => void logged.push(line));
  const loaded = await loadCatalog(file, registry, log);
  const ref = new CatalogRef(loaded.catalog);
  const changes: ListCategory[][] = [];
  const updated: string[] = [];
  const failed: string[] = [];
  const reloader = new Reloader({
    file,
    ref,
    registry,
    log,
    listener: {
      listChanged: (c) => void changes.push([...c]),
      resourceUpdated: (uri) => void updated.push(uri),
      reloadFailed: (message) => void failed.push(message),
    },
    debounceMs: 20,
    ...(!own && { watcher: 'primary' as const }),
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
    updated,
    failed,
    logged,
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
  const w = await watched(() => {}, false);
  try {
    writeFileSync(w.file, manifest(['one', 'three']));
    // Both queued at once: the first builds the edit and drops it for the newer one, which must
    // still serve the edit, though its text is the one the first reload read.
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

test('a resource file heard twice in a row is announced by the second reload', async () => {
  const w = await watched(() => {}, false, {
    'mcp.yaml': `resources:\n  notes: { kind: file, path: notes.md, uri: "docs://notes" }\n${manifest(['one'])}`,
    'notes.md': 'v1',
  });
  try {
    const path = join(dirname(w.file), 'notes.md');
    writeFileSync(path, 'v2');
    const outcomes = await Promise.all([
      w.reloader.changed([path], false),
      w.reloader.changed([path], false),
    ]);
    assert.deepEqual(outcomes, ['superseded', 'reloaded']);
    assert.deepEqual(w.updated, ['docs://notes']);
  } finally {
    await w.close();
  }
});

test('a reload waiting for a source is tried again even when the same text is reloaded meanwhile', async () => {
  const w = await watched(() => {}, false);
  try {
    // Nothing listens on port 1: the source cannot be opened, the manifest is fine.
    writeFileSync(
      w.file,
      `sources:\n  pg: { kind: postgres, url: "postgres://nobody@127.0.0.1:1/none", timeoutMs: 2000 }\n${manifest(['one', 'four'])}`,
    );
    assert.equal(await w.reloader.changed([w.file], false), 'failed');
    assert.equal(await w.reloader.changed([w.file], false), 'unchanged');
    // The retry 1 s after the failure still runs, fails again, and waits twice as long.
    await until(() => w.logged.some((l) => l.includes('trying again in 2000 ms')), 'the retry');
    assert.equal(w.logged.filter((l) => l.includes('trying again in 1000 ms')).length, 1);
  } finally {
    await w.close();
  }
});

test('while a reload waits for a source, each new edit that fails is told to clients', async () => {
  const w = await watched(() => {}, false);
  const down = (db: string) =>
    `sources:\n  pg: { kind: postgres, url: "postgres://nobody@127.0.0.1:1/${db}", timeoutMs: 2000 }\n${manifest(['one'])}`;
  try {
    writeFileSync(w.file, down('a'));
    assert.equal(await w.reloader.changed([w.file], false), 'failed');
    assert.equal(w.failed.length, 1);
    // A manifest error in the next edit, while the first waits for its retry.
    writeFileSync(w.file, `${down('a')}  two: { kind: nope }\n`);
    assert.equal(await w.reloader.changed([w.file], false), 'failed');
    assert.equal(w.failed.length, 2);
    // Another text whose source is down: told, and its retries start from the first wait.
    writeFileSync(w.file, down('b'));
    assert.equal(await w.reloader.changed([w.file], false), 'failed');
    assert.equal(w.failed.length, 3);
    assert.equal(w.logged.filter((l) => l.includes('trying again in 1000 ms')).length, 2);
    // Its retry fails the same way and is not told again.
    await until(() => w.logged.some((l) => l.includes('trying again in 2000 ms')), 'the retry');
    assert.equal(w.failed.length, 3);
  } finally {
    await w.close();
  }
});
