/**
 * `include:` — a manifest made of several files: entries merged, errors located in the included
 * file, duplicates pointing at both files, paths kept inside the including file's folder, cycles
 * refused, and hot reload following an edit of an included file.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compileCatalog } from '../../src/catalog/compile.js';
import { Reloader } from '../../src/catalog/reload.js';
import { CatalogRef } from '../../src/catalog/types.js';
import { type Diagnostic, ManifestError } from '../../src/errors.js';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { StderrLogger } from '../../src/log.js';
import { loadManifest } from '../../src/manifest/load.js';
import { tempDir } from '../kinds/context.js';

const registry = builtinKinds();
const root = tempDir('mcp-run-include-');
let n = 0;

/** A fresh folder with these files in it; returns the path of `mcp.yaml`. */
function folder(files: Record<string, string>): string {
  const dir = join(root, `case-${n++}`);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return join(dir, 'mcp.yaml');
}

const tool = (name: string, extra = '') =>
  `  ${name}:\n    kind: content\n    description: Says ${name}.\n    content: [{ text: ${name} }]\n${extra}`;

async function load(file: string) {
  return compileCatalog(await loadManifest(file, registry, {}), registry, new StderrLogger('silent'));
}

async function errors(file: string): Promise<readonly Diagnostic[]> {
  const err = await load(file).then(
    () => assert.fail('the manifest loaded'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ManifestError, String(err));
  return err.diagnostics;
}

test('entries of included files (nested, shared schemas too) are merged in order', async () => {
  const file = folder({
    'mcp.yaml': `server: { name: t, version: 1.0.0 }\ninclude: [tools/a.yaml]\ntools:\n${tool('top')}`,
    'tools/a.yaml': `include: [more/b.yaml]\nschemas:\n  S: { type: object }\ntools:\n${tool('a', "    outputSchema: { $ref: '#/schemas/S' }\n")}`,
    'tools/more/b.yaml': `tools:\n${tool('b')}`,
  });
  const catalog = await load(file);
  assert.deepEqual([...catalog.tools.keys()], ['top', 'a', 'b']);
  assert.deepEqual(Object.keys((catalog.tools.get('a')!.descriptor.outputSchema as any).$defs), ['S']);
  assert.equal(catalog.includes?.length, 2);
  await catalog.dispose();
});

test('an error inside an included entry points at file:line:col of the included file', async () => {
  const file = folder({
    'mcp.yaml': `server: { name: t, version: 1.0.0 }\ninclude: [tools.yaml]\ntools:\n${tool('top')}`,
    'tools.yaml': `# tools\ntools:\n${tool('broken', '    maxRows: 3\n')}`,
  });
  const [d, ...rest] = await errors(file);
  assert.equal(rest.length, 0, JSON.stringify(rest));
  assert.equal(d!.file, join(file, '..', 'tools.yaml'));
  assert.equal(d!.line, 7);
  assert.equal(d!.col, 5);
  assert.match(d!.frame ?? '', /maxRows/);
});

test('a name declared in two files is an error naming both places', async () => {
  const file = folder({
    'mcp.yaml': `server: { name: t, version: 1.0.0 }\ninclude: [a.yaml]\ntools:\n${tool('same')}`,
    'a.yaml': `tools:\n${tool('same')}`,
  });
  const [d, ...rest] = await errors(file);
  assert.equal(rest.length, 0);
  assert.equal(d!.code, 'MANIFEST_DUPLICATE_ENTRY');
  assert.equal(d!.file, join(file, '..', 'a.yaml'));
  assert.equal(d!.line, 2);
  assert.match(d!.message, /tools\.same is declared twice: here and in mcp\.yaml:4:3/);
});

test('cycles, paths outside the folder, missing files and server: in an included file are refused', async () => {
  const outside = folder({ 'mcp.yaml': `tools:\n${tool('x')}` });
  const file = folder({
    'mcp.yaml': `server: { name: t, version: 1.0.0 }\ninclude: [a.yaml, ../case-${n - 1}/mcp.yaml, nope.yaml, /etc/passwd, link.yaml]\ntools:\n${tool('top')}`,
    'a.yaml': `server: { name: other }\ninclude: [b.yaml]\ntools:\n${tool('a')}`,
    'b.yaml': `include: [a.yaml]\ntools:\n${tool('b')}`,
  });
  symlinkSync(outside, join(file, '..', 'link.yaml'));
  const found = (await errors(file)).map(
    (d) => `${d.code} ${d.file.split('/').pop()}:${d.line} ${d.message}`,
  );
  assert.deepEqual(found.sort(), [
    'MANIFEST_INCLUDE a.yaml:1 cannot include "a.yaml": only the top manifest has a `server:` section',
    'MANIFEST_INCLUDE b.yaml:1 cannot include "a.yaml": it includes itself (a cycle of includes)',
    `MANIFEST_INCLUDE mcp.yaml:2 cannot include "../case-${n - 2}/mcp.yaml": it is outside this file's folder`,
    'MANIFEST_INCLUDE mcp.yaml:2 cannot include "/etc/passwd": the path is absolute; write it relative to this file',
    'MANIFEST_INCLUDE mcp.yaml:2 cannot include "link.yaml": it leads outside this file\'s folder (through a symbolic link)',
    'MANIFEST_INCLUDE mcp.yaml:2 cannot include "nope.yaml": no such file',
  ]);
});

test('hot reload: an edit of an included file reloads the catalog', async () => {
  const file = folder({
    'mcp.yaml': `server: { name: t, version: 1.0.0 }\ninclude: [tools.yaml]\ntools:\n${tool('top')}`,
    'tools.yaml': `tools:\n${tool('one')}`,
  });
  const log = new StderrLogger('silent');
  const manifest = await loadManifest(file, registry, {});
  const ref = new CatalogRef(await compileCatalog(manifest, registry, log));
  const changes: string[][] = [];
  let heard: () => void = () => {};
  const reloader = new Reloader({
    file,
    ref,
    registry,
    log,
    debounceMs: 20,
    disposeGraceMs: 10,
    listener: {
      listChanged: (c) => {
        changes.push([...c]);
        heard();
      },
      resourceUpdated: () => {},
    },
  });
  reloader.start(manifest.text);
  await reloader.ready();
  const changed = new Promise<void>((resolve) => (heard = resolve));
  writeFileSync(join(file, '..', 'tools.yaml'), `tools:\n${tool('one')}${tool('two')}`);
  await changed;
  assert.deepEqual([...ref.current.tools.keys()], ['top', 'one', 'two']);
  assert.deepEqual(changes, [['tools']]);
  assert.equal(await reloader.reload(), 'reloaded');
  await reloader.close();
  await ref.current.dispose();
});
