/**
 * A kind that throws while compiling (a `stat` racing a file an editor just deleted) is a failed
 * entry like any other: the sources already opened are disposed, the error names the manifest, the
 * entry and the file, and on reload the previous catalog keeps serving.
 *
 * Real parts throughout: the builtin registry plus two test-only kinds that do real file-system
 * calls, a manifest on disk, the real loader, compiler and Reloader with a chokidar watcher.
 */
import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadCatalog } from '../../src/catalog/load.js';
import { Reloader } from '../../src/catalog/reload.js';
import { type Catalog, CatalogRef, type ListCategory, type ToolResult } from '../../src/catalog/types.js';
import { ManifestError } from '../../src/errors.js';
import { builtinKinds } from '../../src/kinds/builtin.js';
import type { SourceKind, ToolCommon, ToolKind } from '../../src/kinds/contract/kinds.js';
import type { KindRegistry } from '../../src/kinds/registry.js';
import { StderrLogger } from '../../src/log.js';
import { tempFiles } from '../helpers/demo.js';
import { callContext } from '../kinds/context.js';

/** Every `counted` source opened, by id in opening order, and the ids disposed so far. */
interface Counts {
  opened: number;
  disposed: number[];
}

/** The builtin kinds, a source that counts open/dispose, and two kinds that stat a file. */
function testRegistry(counts: Counts): KindRegistry {
  const counted: SourceKind = {
    kind: 'counted',
    description: 'Test source: counts how often it is opened and disposed.',
    configSchema: { type: 'object', properties: {} },
    async open() {
      const id = ++counts.opened;
      return {
        capabilities: {},
        dispose: async () => {
          counts.disposed.push(id);
        },
      };
    },
  };
  // Opens by stat-ing its file, asynchronously, without checking first: a missing file rejects.
  const statSource: SourceKind<{ file: string }> = {
    kind: 'stat-source',
    description: 'Test source: stats a file when it opens.',
    configSchema: { type: 'object', properties: { file: { type: 'string' } }, required: ['file'] },
    async open(config, ctx) {
      await stat(resolve(ctx.baseDir, config.file));
      return { capabilities: {}, dispose: async () => {} };
    },
  };
  // Compiles by stat-ing its file, synchronously, without checking first: a missing file throws.
  const sized: ToolKind<ToolCommon & { file: string }> = {
    kind: 'size',
    description: 'Test tool: the size of a file, taken when the manifest compiles.',
    configSchema: { type: 'object', properties: { file: { type: 'string' } }, required: ['file'] },
    compile(config, ctx) {
      const path = resolve(ctx.baseDir, config.file);
      const { size } = statSync(path);
      ctx.watch(path);
      return { run: async () => ({ content: [{ type: 'text', text: String(size) }] }) };
    },
  };
  return builtinKinds()
    .register('sources', counted)
    .register('sources', statSource as SourceKind)
    .register('tools', sized as unknown as ToolKind);
}

/** A logger that keeps every line it writes. */
function recordingLogger(): { log: StderrLogger; lines: string[] } {
  const lines: string[] = [];
  return { log: new StderrLogger('debug', (line) => lines.push(line)), lines };
}

async function until(predicate: () => boolean, what: string, lines: string[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; log:\n${lines.join('')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function call(catalog: Catalog, tool: string): Promise<ToolResult> {
  const found = catalog.tools.get(tool);
  assert.ok(found, `the catalog serves ${tool}`);
  const result = await found.call({}, callContext());
  assert.equal(result.isError, undefined, JSON.stringify(result));
  return result;
}

async function callText(catalog: Catalog, tool: string): Promise<string> {
  const block = (await call(catalog, tool)).content[0];
  return block?.type === 'text' ? block.text : JSON.stringify(block);
}

const MANIFEST = (tools: string, sources = '') => `sources:
  counter: { kind: counted }
  mem: { kind: sqlite, path: ":memory:" }
${sources}tools:
  one: { kind: sql, source: mem, description: The first, sql: SELECT 1 AS n }
${tools}`;
const SIZED = '  sized: { kind: size, description: The size of data.txt, file: data.txt }\n';
const GONE_SOURCE = '  gone: { kind: stat-source, file: gone.txt }\n';

describe('a kind that throws while compiling, at startup', () => {
  const files = tempFiles({});
  const file = join(files.dir, 'mcp.yaml');
  after(() => files.cleanup());

  test('a synchronous throw in a tool compile is an error on the entry, and the opened sources are disposed', async () => {
    writeFileSync(file, MANIFEST(SIZED)); // data.txt does not exist
    const counts: Counts = { opened: 0, disposed: [] };
    const { log } = recordingLogger();
    const err = await loadCatalog(file, testRegistry(counts), log).then(
      () => assert.fail('the manifest compiled although its tool threw'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ManifestError, `a ManifestError, not ${String(err)}`);
    assert.equal(err.diagnostics.length, 1);
    const [d] = err.diagnostics;
    assert.equal(d?.file, file);
    assert.equal(d?.path, 'tools.sized');
    assert.equal(d?.line, 6);
    assert.equal(d?.code, 'PATH_NOT_FOUND');
    assert.match(d?.message ?? '', /data\.txt/);
    assert.deepEqual(counts, { opened: 1, disposed: [1] });
  });

  test('an asynchronous throw in a source open fails that source, and the sources opened before it are disposed', async () => {
    writeFileSync(file, MANIFEST('', GONE_SOURCE));
    const counts: Counts = { opened: 0, disposed: [] };
    const { log } = recordingLogger();
    const err = await loadCatalog(file, testRegistry(counts), log).then(
      () => assert.fail('the manifest compiled although its source threw'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ManifestError, `a ManifestError, not ${String(err)}`);
    assert.deepEqual(
      err.diagnostics.map((d) => [d.code, d.path, d.file, d.line]),
      [['SOURCE_OPEN_FAILED', 'sources.gone', file, 4]],
    );
    assert.match(err.message, /cannot open source "gone": .*gone\.txt/);
    assert.deepEqual(counts, { opened: 1, disposed: [1] });
  });
});

describe('a kind that throws while compiling, on reload', () => {
  const files = tempFiles({ 'data.txt': 'twelve bytes' });
  const file = join(files.dir, 'mcp.yaml');
  const counts: Counts = { opened: 0, disposed: [] };
  const { log, lines } = recordingLogger();
  const registry = testRegistry(counts);
  const changed: ListCategory[][] = [];
  let ref: CatalogRef;
  let first: Catalog;
  let reloader: Reloader;

  before(async () => {
    writeFileSync(file, MANIFEST(SIZED));
    const loaded = await loadCatalog(file, registry, log);
    first = loaded.catalog;
    ref = new CatalogRef(first);
    reloader = new Reloader({
      file,
      ref,
      registry,
      log,
      listener: { listChanged: (c) => void changed.push([...c]), resourceUpdated: () => {} },
      debounceMs: 20,
      disposeGraceMs: 1000,
    });
    reloader.start(loaded.text);
    await reloader.ready();
  });
  after(async () => {
    await reloader.close();
    await ref.current.dispose();
    files.cleanup();
  });

  test('deleting the file a tool stats keeps the old catalog serving, disposes the new sources and logs the file', async () => {
    assert.deepEqual(counts, { opened: 1, disposed: [] });
    await rm(join(files.dir, 'data.txt')); // the watcher sees the unlink and reloads
    await until(() => lines.some((l) => l.includes('reload of mcp.yaml')), 'the failed reload', lines);

    assert.equal(ref.current, first, 'the old catalog is still the current one');
    assert.deepEqual([...ref.current.tools.keys()], ['one', 'sized']);
    assert.equal(await callText(ref.current, 'sized'), '12', 'the old tool still answers');
    assert.deepEqual((await call(ref.current, 'one')).structuredContent, {
      rows: [{ n: 1 }],
      rowCount: 1,
      truncated: false,
    });
    assert.deepEqual(
      counts,
      { opened: 2, disposed: [2] },
      'the new catalog’s source was disposed, the old one’s not',
    );
    assert.deepEqual(changed, [], 'no list changed');

    const failed = lines.filter((l) => l.includes('reload of mcp.yaml'));
    assert.equal(failed.length, 1, lines.join(''));
    assert.match(failed[0] ?? '', /^mcp-run: error: reload of mcp\.yaml failed with 1 error; still serving/);
    assert.ok(failed[0]?.includes(`${file}:6:`), `names the manifest file and line: ${failed[0]}`);
    assert.match(failed[0] ?? '', /tools\.sized/);
    assert.ok(failed[0]?.includes(join(files.dir, 'data.txt')), `names the missing file: ${failed[0]}`);
  });

  test('a second broken edit reports every error, and still only the first catalog holds a source', async () => {
    const failures = () => lines.filter((l) => l.includes('reload of mcp.yaml failed')).length;
    const before = lines.length;
    writeFileSync(file, MANIFEST(SIZED, GONE_SOURCE)); // data.txt is still missing; gone.txt never existed
    await until(() => failures() >= 2, 'the second failed reload', lines);

    assert.equal(ref.current, first);
    const logged = lines.slice(before).join('');
    assert.match(logged, /reload of mcp\.yaml failed with 2 errors; still serving the previous version/);
    assert.ok(logged.includes(`${file}:4:`), logged);
    assert.match(
      logged,
      /error\[SOURCE_OPEN_FAILED\] .* sources\.gone\n {2}cannot open source "gone": .*gone\.txt/,
    );
    assert.match(logged, /error\[PATH_NOT_FOUND\] .* tools\.sized\n .*data\.txt/);
    const open = Array.from({ length: counts.opened }, (_, i) => i + 1).filter(
      (id) => !counts.disposed.includes(id),
    );
    assert.deepEqual(open, [1], 'every source a failed build opened is disposed');
  });

  test('the fix reloads, and the previous catalog is disposed once idle', async () => {
    writeFileSync(join(files.dir, 'data.txt'), 'back');
    writeFileSync(file, MANIFEST(SIZED));
    await until(() => lines.some((l) => l.includes('reloaded mcp.yaml')), 'the reload', lines);
    assert.notEqual(ref.current, first);
    assert.equal(await callText(ref.current, 'sized'), '4');
    await until(() => counts.disposed.includes(1), 'the first catalog to be disposed', lines);
  });
});

describe('a reload that throws after the swap', () => {
  const files = tempFiles({ 'data.txt': 'twelve bytes' });
  const file = join(files.dir, 'mcp.yaml');
  const { log, lines } = recordingLogger();
  const registry = testRegistry({ opened: 0, disposed: [] });
  let ref: CatalogRef;
  let reloader: Reloader;

  before(async () => {
    writeFileSync(file, MANIFEST(''));
    const loaded = await loadCatalog(file, registry, log);
    ref = new CatalogRef(loaded.catalog);
    reloader = new Reloader({
      file,
      ref,
      registry,
      log,
      // A transport whose notification fails: the reload has no caller to tell when the watcher started it.
      listener: {
        listChanged: () => {
          throw new Error('the notification could not be sent');
        },
        resourceUpdated: () => {},
      },
      debounceMs: 20,
      disposeGraceMs: 1000,
    });
    reloader.start(loaded.text);
    await reloader.ready();
  });
  after(async () => {
    await reloader.close();
    await ref.current.dispose();
    files.cleanup();
  });

  test('is logged with the manifest it was reloading, not swallowed', async () => {
    writeFileSync(file, MANIFEST(SIZED));
    await until(() => lines.some((l) => l.includes('reload of mcp.yaml')), 'the reload to be logged', lines);
    const logged = lines.find((l) => l.includes('reload of mcp.yaml')) ?? '';
    assert.match(
      logged,
      /^mcp-run: error: reload of mcp\.yaml did not finish: Error: the notification could not be sent/,
    );
    assert.deepEqual([...ref.current.tools.keys()], ['one', 'sized'], 'the swap itself happened');
  });
});
