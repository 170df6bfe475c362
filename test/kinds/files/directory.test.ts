import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ResourceNotFound } from '../../../src/catalog/types.js';
import { type DirectoryResourceConfig, directoryResource } from '../../../src/kinds/files/directory.js';
import { tempDir, testContext } from '../context.js';

const top = realpathSync(tempDir());
const base = join(top, 'base');
const docs = join(base, 'docs');
const files: Record<string, string> = {
  'a.md': '# A',
  'b.txt': 'bee',
  'sp ace.md': 'space',
  'sub/c.md': 'see',
  'sub/deep/d.md': 'dee',
  '.hidden.md': 'hidden',
  '.git/config': '[core]',
  '.config/x.md': 'dot folder',
};
for (const [path, text] of Object.entries(files)) {
  mkdirSync(join(docs, path, '..'), { recursive: true });
  writeFileSync(join(docs, path), text);
}
writeFileSync(join(docs, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
mkdirSync(join(top, 'outside'));
writeFileSync(join(top, 'outside', 'secret.md'), 'secret');
symlinkSync(join(top, 'outside', 'secret.md'), join(docs, 'link-out.md'));
symlinkSync(join(top, 'outside'), join(docs, 'link-dir-out'));
symlinkSync(join(docs, 'a.md'), join(docs, 'link-in.md'));
symlinkSync(docs, join(docs, 'sub', 'loop'));
symlinkSync(join(docs, 'nowhere'), join(docs, 'dangling.md'));

const signal = new AbortController().signal;

async function compile(config: DirectoryResourceConfig) {
  const ctx = testContext({ baseDir: base, name: 'docs' });
  const compiled = await directoryResource.compile(config, ctx);
  return { ctx, compiled };
}

async function listed(config: DirectoryResourceConfig) {
  const { ctx, compiled } = await compile(config);
  assert.deepEqual(ctx.errors, []);
  assert.equal(compiled?.templates.length, 0);
  return compiled.resources;
}

const names = async (config: DirectoryResourceConfig) => (await listed(config)).map((r) => r.descriptor.name);

test('the default glob lists every file, skipping dotfiles and symlinks that leave the folder', async () => {
  assert.deepEqual(await names({ path: 'docs' }), [
    'a.md',
    'b.txt',
    'link-in.md',
    'logo.png',
    'sp ace.md',
    'sub/c.md',
    'sub/deep/d.md',
  ]);
});

test('globs select files', async () => {
  assert.deepEqual(await names({ path: 'docs', glob: '**/*.md' }), [
    'a.md',
    'link-in.md',
    'sp ace.md',
    'sub/c.md',
    'sub/deep/d.md',
  ]);
  assert.deepEqual(await names({ path: 'docs', glob: '*.md' }), ['a.md', 'link-in.md', 'sp ace.md']);
  assert.deepEqual(await names({ path: 'docs', glob: 'sub/**' }), ['sub/c.md', 'sub/deep/d.md']);
  assert.deepEqual(await names({ path: 'docs', glob: '*.{txt,png}' }), ['b.txt', 'logo.png']);
});

test('dotfiles are listed when the glob spells the dot', async () => {
  assert.deepEqual(await names({ path: 'docs', glob: '.*' }), ['.hidden.md']);
  assert.deepEqual(await names({ path: 'docs', glob: '.config/*.md' }), ['.config/x.md']);
  assert.deepEqual(await names({ path: 'docs', glob: '**/.*' }), ['.hidden.md']);
});

test('descriptors: default file:// prefix of the real folder, MIME per extension, size', async () => {
  const resources = await listed({ path: './docs', glob: '*.{md,png}', description: 'Docs' });
  const a = resources.find((r) => r.descriptor.name === 'a.md')!;
  assert.deepEqual(a.descriptor, {
    uri: `file://${docs}/a.md`,
    name: 'a.md',
    description: 'Docs',
    mimeType: 'text/markdown',
    size: 3,
  });
  assert.equal(
    resources.find((r) => r.descriptor.name === 'sp ace.md')!.descriptor.uri,
    `file://${docs}/sp%20ace.md`,
  );
});

test('a URI prefix gets a slash; segments are percent-encoded', async () => {
  const resources = await listed({ path: 'docs', glob: '**/*.md', uri: 'docs://' });
  assert.deepEqual(
    resources.map((r) => r.descriptor.uri),
    ['docs://a.md', 'docs://link-in.md', 'docs://sp%20ace.md', 'docs://sub/c.md', 'docs://sub/deep/d.md'],
  );
  const noSlash = await listed({ path: 'docs', glob: 'a.md', uri: 'shop://docs/policies' });
  assert.equal(noSlash[0]!.descriptor.uri, 'shop://docs/policies/a.md');
});

test('reads: text, blobs, and the containment re-check on every read', async () => {
  const resources = await listed({ path: 'docs', uri: 'docs://' });
  const byName = (name: string) => resources.find((r) => r.descriptor.name === name)!;
  assert.deepEqual(await byName('sub/c.md').read(signal), [
    { uri: 'docs://sub/c.md', mimeType: 'text/markdown', text: 'see' },
  ]);
  assert.deepEqual(await byName('logo.png').read(signal), [
    {
      uri: 'docs://logo.png',
      mimeType: 'image/png',
      blob: Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64'),
    },
  ]);
  assert.deepEqual(await byName('link-in.md').read(signal), [
    { uri: 'docs://link-in.md', mimeType: 'text/markdown', text: '# A' },
  ]);

  rmSync(join(docs, 'b.txt'));
  symlinkSync(join(top, 'outside', 'secret.md'), join(docs, 'b.txt'));
  await assert.rejects(byName('b.txt').read(signal), ResourceNotFound);
  rmSync(join(docs, 'b.txt'));
  await assert.rejects(byName('b.txt').read(signal), ResourceNotFound);
  writeFileSync(join(docs, 'b.txt'), 'bee');
});

test('maxBytes and maxFiles bound the output', async () => {
  const [big] = await listed({ path: 'docs', glob: 'a.md', maxBytes: 2 });
  await assert.rejects(big!.read(signal), /maxBytes cap of 2/);
  const { ctx, compiled } = await compile({ path: 'docs', maxFiles: 2 });
  assert.deepEqual(
    compiled?.resources.map((r) => r.descriptor.name),
    ['a.md', 'b.txt'],
  );
  assert.ok(
    ctx.logs.some((line) => /^warn: .*more than 2 files match/.test(line)),
    ctx.logs.join('\n'),
  );
});

test('mistakes: missing folder, a file, a malformed glob, a URI without scheme', async () => {
  const missing = await compile({ path: 'nope' });
  assert.equal(missing.compiled, undefined);
  assert.deepEqual(missing.ctx.codes(), ['PATH_NOT_FOUND']);
  const file = await compile({ path: 'docs/a.md' });
  assert.deepEqual(file.ctx.codes(), ['MANIFEST_INVALID_VALUE']);
  const all = await compile({ path: 'nope', glob: '{a,b', uri: 'docs' });
  assert.deepEqual(all.ctx.codes(), ['PATH_NOT_FOUND', 'MANIFEST_INVALID_VALUE', 'MANIFEST_INVALID_VALUE']);
  assert.deepEqual(
    all.ctx.errors.map((e) => e.at),
    [['path'], ['glob'], ['uri']],
  );
});
