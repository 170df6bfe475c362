import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ResourceNotFound } from '../../../src/catalog/types.js';
import { type FileResourceConfig, fileResource } from '../../../src/kinds/files/file.js';
import { tempDir, testContext } from '../context.js';

// top/base is the manifest folder; top/outside is not inside it.
const top = realpathSync(tempDir());
const base = join(top, 'base');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);
mkdirSync(join(base, 'docs', 'notes'), { recursive: true });
mkdirSync(join(top, 'outside'));
writeFileSync(join(top, 'outside', 'secret.txt'), 'top secret');
writeFileSync(join(base, 'docs', 'handbook.md'), '# Handbook\nBe kind.\n');
writeFileSync(join(base, 'docs', 'logo.png'), PNG);
writeFileSync(join(base, 'docs', 'notes', 'a.md'), 'note a');
writeFileSync(join(base, 'docs', 'LICENSE'), 'MIT licence text');
writeFileSync(join(base, 'docs', 'data.bin'), Buffer.from([0, 1, 2, 3]));
writeFileSync(join(base, 'docs', 'big.txt'), 'x'.repeat(2000));
writeFileSync(join(base, 'docs', 'odd name #1.txt'), 'odd');
writeFileSync(join(base, 'other.md'), 'other');
symlinkSync(join(top, 'outside', 'secret.txt'), join(base, 'docs', 'link-out.txt'));
symlinkSync(join(base, 'docs', 'handbook.md'), join(base, 'docs', 'link-in.md'));

const signal = new AbortController().signal;

async function compile(config: FileResourceConfig) {
  const ctx = testContext({ baseDir: base, name: 'res' });
  const compiled = await fileResource.compile(config, ctx);
  return { ctx, compiled };
}

async function staticResource(config: FileResourceConfig) {
  const { ctx, compiled } = await compile(config);
  assert.deepEqual(ctx.errors, []);
  assert.equal(compiled?.resources.length, 1);
  assert.equal(compiled.templates.length, 0);
  return compiled.resources[0]!;
}

test('a text file: default file:// URI of the real path, the entry name, MIME and size', async () => {
  const resource = await staticResource({ path: 'docs/handbook.md', description: 'The handbook' });
  const uri = `file://${join(base, 'docs', 'handbook.md')}`;
  assert.deepEqual(resource.descriptor, {
    uri,
    name: 'res',
    description: 'The handbook',
    mimeType: 'text/markdown',
    size: 20,
  });
  assert.deepEqual(await resource.read(signal), [
    { uri, mimeType: 'text/markdown', text: '# Handbook\nBe kind.\n' },
  ]);
});

test('a binary file is a base64 blob; a custom uri, name and mimeType are used', async () => {
  const resource = await staticResource({
    path: './docs/logo.png',
    uri: 'shop://logo',
    name: 'logo',
    title: 'Logo',
  });
  assert.equal(resource.descriptor.uri, 'shop://logo');
  assert.equal(resource.descriptor.name, 'logo');
  assert.equal(resource.descriptor.title, 'Logo');
  const [contents] = await resource.read(signal);
  assert.deepEqual(contents, { uri: 'shop://logo', mimeType: 'image/png', blob: PNG.toString('base64') });

  const asText = await staticResource({ path: 'docs/handbook.md', mimeType: 'application/octet-stream' });
  assert.ok('blob' in (await asText.read(signal))[0]!);
});

test('unknown extensions: UTF-8 text is text, other bytes are a blob', async () => {
  const licence = await staticResource({ path: 'docs/LICENSE' });
  assert.equal(licence.descriptor.mimeType, undefined);
  assert.deepEqual(await licence.read(signal), [{ uri: licence.descriptor.uri, text: 'MIT licence text' }]);
  const bin = await staticResource({ path: 'docs/data.bin' });
  assert.deepEqual(await bin.read(signal), [{ uri: bin.descriptor.uri, blob: 'AAECAw==' }]);
});

test('the default URI percent-encodes each segment', async () => {
  const resource = await staticResource({ path: 'docs/odd name #1.txt' });
  assert.equal(resource.descriptor.uri, `file://${join(base, 'docs')}/odd%20name%20%231.txt`);
});

test('PATH_OUTSIDE_ROOT for ../ and for a symlink leading outside; a symlink inside is fine', async () => {
  for (const path of ['../outside/secret.txt', 'docs/link-out.txt']) {
    const { ctx, compiled } = await compile({ path });
    assert.equal(compiled, undefined);
    assert.deepEqual(ctx.codes(), ['PATH_OUTSIDE_ROOT'], path);
    assert.deepEqual(ctx.errors[0]!.at, ['path']);
    assert.match(ctx.errors[0]!.problem.message, new RegExp(`resolves outside its root "${base}"`));
  }
  const inside = await staticResource({ path: 'docs/link-in.md' });
  assert.equal(inside.descriptor.uri, `file://${join(base, 'docs', 'handbook.md')}`);
});

test('root narrows what may be served', async () => {
  await staticResource({ path: 'docs/handbook.md', root: 'docs' });
  const { ctx } = await compile({ path: 'other.md', root: 'docs' });
  assert.deepEqual(ctx.codes(), ['PATH_OUTSIDE_ROOT']);
  const missingRoot = await compile({ path: 'other.md', root: 'nowhere' });
  assert.deepEqual(missingRoot.ctx.codes(), ['PATH_NOT_FOUND']);
  assert.deepEqual(missingRoot.ctx.errors[0]!.at, ['root']);
});

test('PATH_NOT_FOUND for a missing file; a folder is refused', async () => {
  const { ctx, compiled } = await compile({ path: 'docs/nope.md' });
  assert.equal(compiled, undefined);
  assert.deepEqual(ctx.codes(), ['PATH_NOT_FOUND']);
  assert.match(ctx.errors[0]!.problem.message, /docs\/nope\.md/);
  const folder = await compile({ path: 'docs' });
  assert.deepEqual(folder.ctx.codes(), ['MANIFEST_INVALID_VALUE']);
  assert.match(folder.ctx.errors[0]!.problem.hint ?? '', /kind: directory/);
});

test('a path with {variables} but a plain uri is explained', async () => {
  const { ctx } = await compile({ path: 'docs/{name}.md' });
  assert.deepEqual(ctx.codes(), ['URI_TEMPLATE_INVALID']);
});

test('maxBytes: a larger file fails to read with a clear error', async () => {
  const small = await staticResource({ path: 'docs/big.txt', maxBytes: 1000 });
  await assert.rejects(small.read(signal), /is 2000 bytes, more than the resource's maxBytes cap of 1000/);
  const fits = await staticResource({ path: 'docs/big.txt', maxBytes: 2000 });
  assert.equal(((await fits.read(signal))[0] as { text: string }).text.length, 2000);
});

test('every read re-checks: a file swapped for a symlink outside is not served', async () => {
  const dir = join(base, 'swap');
  mkdirSync(dir);
  writeFileSync(join(dir, 'f.txt'), 'fine');
  const resource = await staticResource({ path: 'swap/f.txt' });
  assert.equal(((await resource.read(signal))[0] as { text: string }).text, 'fine');
  rmSync(join(dir, 'f.txt'));
  symlinkSync(join(top, 'outside', 'secret.txt'), join(dir, 'f.txt'));
  await assert.rejects(resource.read(signal), ResourceNotFound);
  rmSync(join(dir, 'f.txt'));
  await assert.rejects(resource.read(signal), ResourceNotFound);
});

// Templates ---------------------------------------------------------------------------------

async function template(config: FileResourceConfig) {
  const { ctx, compiled } = await compile(config);
  assert.deepEqual(ctx.errors, []);
  assert.equal(compiled?.resources.length, 0);
  assert.equal(compiled.templates.length, 1);
  return compiled.templates[0]!;
}

async function readVia(t: Awaited<ReturnType<typeof template>>, uri: string) {
  const vars = t.match(uri);
  if (!vars) throw new ResourceNotFound(uri);
  return t.read(uri, vars, signal);
}

test('a {name} template maps one segment onto a file', async () => {
  const t = await template({ uri: 'docs://{name}', path: 'docs/{name}.md', description: 'Docs' });
  assert.deepEqual(t.descriptor, { uriTemplate: 'docs://{name}', name: 'res', description: 'Docs' });
  assert.deepEqual(t.match('docs://handbook'), { name: 'handbook' });
  assert.equal(t.match('docs://notes/a'), undefined);
  assert.deepEqual(await readVia(t, 'docs://handbook'), [
    { uri: 'docs://handbook', mimeType: 'text/markdown', text: '# Handbook\nBe kind.\n' },
  ]);
  await assert.rejects(readVia(t, 'docs://missing'), ResourceNotFound);
});

test('traversal through a {name} variable is not found, whatever the encoding', async () => {
  const t = await template({ uri: 'docs://{name}', path: 'docs/{name}' });
  assert.equal(
    ((await readVia(t, 'docs://handbook.md'))[0] as { text: string }).text,
    '# Handbook\nBe kind.\n',
  );
  for (const uri of [
    'docs://..%2F..%2Foutside%2Fsecret.txt',
    'docs://..%2F..%2F..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd',
    'docs://..',
    'docs://notes%2Fa.md', // a {name} value is one segment
    'docs://handbook.md%00.png',
    'docs://link-out.txt',
    'docs://%E0%A4%A', // malformed escape: no match at all
  ]) {
    await assert.rejects(readVia(t, uri), (err: Error) => {
      assert.ok(err instanceof ResourceNotFound, uri);
      assert.equal(err.message, `Resource not found: ${uri}`);
      return true;
    });
  }
});

test('a {+path} template allows folders but no ../ and nothing outside the root', async () => {
  const t = await template({ uri: 'tree://{+path}', path: 'docs/{path}' });
  assert.deepEqual(t.match('tree://notes/a.md'), { path: 'notes/a.md' });
  assert.equal(((await readVia(t, 'tree://notes/a.md'))[0] as { text: string }).text, 'note a');
  for (const uri of [
    'tree://../../outside/secret.txt',
    'tree://notes/../handbook.md',
    'tree://..%2F..%2Foutside%2Fsecret.txt',
    'tree://link-out.txt',
    'tree:///etc/passwd',
    'tree://notes',
  ]) {
    await assert.rejects(readVia(t, uri), ResourceNotFound, uri);
  }
  // With the path as the whole template, an absolute value lands outside the root.
  const whole = await template({ uri: 'any://{+p}', path: '{p}', root: 'docs' });
  assert.equal(((await readVia(whole, 'any://docs/notes/a.md'))[0] as { text: string }).text, 'note a');
  await assert.rejects(readVia(whole, `any://${join(top, 'outside', 'secret.txt')}`), ResourceNotFound);
  await assert.rejects(readVia(whole, 'any://other.md'), ResourceNotFound);
});

test('variables: enum restricts values and drives completion; complete only suggests', async () => {
  const t = await template({
    uri: 'docs://{name}',
    path: 'docs/{name}.md',
    variables: { name: { enum: ['handbook', 'Handy', 'other'], complete: ['hello'] } },
  });
  assert.deepEqual(await t.complete('name', 'HA', {}), ['handbook', 'Handy']);
  assert.deepEqual(await t.complete('name', '', {}), ['handbook', 'Handy', 'other', 'hello']);
  assert.deepEqual(await t.complete('nope', '', {}), []);
  assert.deepEqual(await t.complete('constructor', '', {}), []);
  await assert.rejects(readVia(t, 'docs://notes'), ResourceNotFound);
  assert.equal((await readVia(t, 'docs://handbook')).length, 1);

  const many = await template({
    uri: 'docs://{name}',
    path: 'docs/{name}.md',
    variables: { name: { complete: Array.from({ length: 150 }, (_, i) => `n${i}`) } },
  });
  assert.equal((await many.complete('name', 'n', {})).length, 100);
  assert.deepEqual(await many.complete('name', 'n14', {}), [
    'n14',
    ...Array.from({ length: 10 }, (_, i) => `n14${i}`),
  ]);
});

test('template mistakes: path variable missing from uri, bad expressions, unknown variables', async () => {
  const missing = await compile({ uri: 'docs://{name}', path: 'docs/{name}/{file}' });
  assert.deepEqual(missing.ctx.codes(), ['URI_TEMPLATE_INVALID']);
  assert.deepEqual(missing.ctx.errors[0]!.at, ['path']);
  assert.match(missing.ctx.errors[0]!.problem.message, /path uses \{file\}/);

  for (const uri of ['docs://{a,b}', 'docs://{?q}', 'docs://{a}/{a}', 'docs://{a']) {
    const bad = await compile({ uri, path: 'docs/x' });
    assert.deepEqual(bad.ctx.codes(), ['URI_TEMPLATE_INVALID'], uri);
    assert.deepEqual(bad.ctx.errors[0]!.at, ['uri']);
  }

  const unknownVar = await compile({ uri: 'docs://{name}', path: 'docs/{name}', variables: { nmae: {} } });
  assert.deepEqual(unknownVar.ctx.codes(), ['URI_TEMPLATE_INVALID']);
  assert.deepEqual(unknownVar.ctx.errors[0]!.at, ['variables', 'nmae']);

  const noScheme = await compile({ uri: 'handbook', path: 'docs/handbook.md' });
  assert.deepEqual(noScheme.ctx.codes(), ['MANIFEST_INVALID_VALUE']);
});
