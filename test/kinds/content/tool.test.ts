import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compileCatalog } from '../../../src/catalog/compile.js';
import { ManifestError } from '../../../src/errors.js';
import { builtinKinds } from '../../../src/kinds/builtin.js';
import { type ContentToolConfig, contentTool } from '../../../src/kinds/content/tool.js';
import { MAX_EMBEDDED_BYTES } from '../../../src/kinds/shared/content-blocks.js';
import { StderrLogger } from '../../../src/log.js';
import { loadManifest } from '../../../src/manifest/load.js';
import { REPO } from '../../helpers/demo.js';
import { callContext, tempDir, testContext } from '../context.js';

const PNG = readFileSync(join(REPO, 'test/conformance/assets/pixel.png'));
const WAV = readFileSync(join(REPO, 'test/conformance/assets/tone.wav'));

const dir = tempDir('mcp-run-content-');
const outside = tempDir('mcp-run-content-outside-');
mkdirSync(join(dir, 'assets'));
writeFileSync(join(dir, 'assets/logo.png'), PNG);
writeFileSync(join(dir, 'assets/beep.wav'), WAV);
writeFileSync(join(dir, 'assets/notes.md'), '# Notes\n');
writeFileSync(join(dir, 'assets/data.bin'), Buffer.from([0, 1, 2, 255]));
writeFileSync(join(dir, 'assets/too-big.png'), Buffer.alloc(MAX_EMBEDDED_BYTES + 1));
writeFileSync(join(outside, 'secret.png'), PNG);
symlinkSync(join(outside, 'secret.png'), join(dir, 'assets/link.png'));

function compile(config: Omit<ContentToolConfig, 'kind'>) {
  const ctx = testContext({ baseDir: dir, name: 'canned' });
  return { ctx, tool: contentTool.compile({ kind: 'content', ...config }, ctx) };
}

test('text items are templates over the arguments; structured keeps argument types', async () => {
  const { ctx, tool } = compile({
    input: { name: { type: 'string' }, times: { type: 'integer' }, tag: { type: 'string', required: false } },
    content: [{ text: 'Hello, {{name}} x{{times}}{{#if tag}} [{{tag}}]{{/if}}!' }],
    structured: {
      greeted: '{{name}}',
      times: '{{times}}',
      tag: '{{tag}}',
      note: 'for {{name}}',
      list: [1, '{{times}}'],
    },
  });
  assert.deepEqual(ctx.errors, []);
  assert.deepEqual(tool!.annotations, { readOnlyHint: true, idempotentHint: true, openWorldHint: false });
  assert.deepEqual(await tool!.run({ name: 'Ada', times: 2 }, callContext()), {
    content: [{ type: 'text', text: 'Hello, Ada x2!' }],
    structuredContent: { greeted: 'Ada', times: 2, note: 'for Ada', list: [1, 2] },
  });
  const tagged = await tool!.run({ name: 'Bo', times: 1, tag: 'vip' }, callContext());
  assert.equal((tagged.content[0] as { text: string }).text, 'Hello, Bo x1 [vip]!');
  assert.equal((tagged.structuredContent as { tag: string }).tag, 'vip');
});

test('without content, the structured result is also sent as JSON text; isError marks the result', async () => {
  const { tool } = compile({ input: { n: { type: 'number' } }, structured: { n: '{{n}}' }, isError: true });
  assert.deepEqual(await tool!.run({ n: 1.5 }, callContext()), {
    content: [{ type: 'text', text: '{"n":1.5}' }],
    structuredContent: { n: 1.5 },
    isError: true,
  });
});

test('images and audio are read once at load time and sent base64-encoded', async () => {
  const { ctx, tool } = compile({
    content: [
      { image: { path: './assets/logo.png' } },
      { audio: { path: 'assets/beep.wav' } },
      { image: { path: 'assets/data.bin', mimeType: 'image/x-raw' } },
    ],
  });
  assert.deepEqual(ctx.errors, []);
  // The files change after compiling: the tool keeps answering what it read.
  writeFileSync(join(dir, 'assets/beep.wav'), 'changed');
  const result = await tool!.run({}, callContext());
  writeFileSync(join(dir, 'assets/beep.wav'), WAV);
  assert.deepEqual(result.content, [
    { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
    { type: 'audio', data: WAV.toString('base64'), mimeType: 'audio/wav' },
    { type: 'image', data: 'AAEC/w==', mimeType: 'image/x-raw' },
  ]);
});

test('embedded resources from text or a file, and resource links, with templated URIs', async () => {
  const { ctx, tool } = compile({
    input: { id: { type: 'string' } },
    content: [
      { resource: { uri: 'notes://{{id}}', text: 'Note {{id}}' } },
      { resource: { uri: 'docs://notes', path: 'assets/notes.md' } },
      { resource: { uri: 'bin://data', path: 'assets/data.bin', mimeType: 'application/octet-stream' } },
      { resource: { uri: 'json://x', text: '{"a":1}', mimeType: 'application/json' } },
      { resourceLink: { uri: 'notes://{{id}}/full', name: 'full note', mimeType: 'text/markdown' } },
    ],
  });
  assert.deepEqual(ctx.errors, []);
  assert.deepEqual((await tool!.run({ id: 'n1' }, callContext())).content, [
    { type: 'resource', resource: { uri: 'notes://n1', mimeType: 'text/plain', text: 'Note n1' } },
    { type: 'resource', resource: { uri: 'docs://notes', mimeType: 'text/markdown', text: '# Notes\n' } },
    {
      type: 'resource',
      resource: { uri: 'bin://data', mimeType: 'application/octet-stream', blob: 'AAEC/w==' },
    },
    { type: 'resource', resource: { uri: 'json://x', mimeType: 'application/json', text: '{"a":1}' } },
    { type: 'resource_link', uri: 'notes://n1/full', name: 'full note', mimeType: 'text/markdown' },
  ]);
});

test('files must stay inside the manifest folder, exist, be small and have a fitting MIME type', () => {
  const { ctx, tool } = compile({
    content: [
      { image: { path: 'assets/missing.png' } },
      { image: { path: 'assets/link.png' } },
      { image: { path: join('..', outside.split('/').pop()!, 'secret.png') } },
      { image: { path: 'assets/too-big.png' } },
      { image: { path: 'assets/data.bin' } },
      { audio: { path: 'assets/logo.png' } },
      { image: { path: 'assets/logo.png', mimeType: 'text/plain' } },
      { resource: { uri: 'x://y', path: 'assets' } },
    ],
  });
  assert.equal(tool, undefined);
  assert.deepEqual(
    ctx.errors.map((e) => [e.problem.code, e.at.join('.')]),
    [
      ['PATH_NOT_FOUND', 'content.0.image.path'],
      ['PATH_OUTSIDE_ROOT', 'content.1.image.path'],
      ['PATH_OUTSIDE_ROOT', 'content.2.image.path'],
      ['MANIFEST_INVALID_VALUE', 'content.3.image.path'],
      ['MANIFEST_INVALID_VALUE', 'content.4.image.path'],
      ['MANIFEST_INVALID_VALUE', 'content.5.audio.path'],
      ['MANIFEST_INVALID_VALUE', 'content.6.image.mimeType'],
      ['MANIFEST_INVALID_VALUE', 'content.7.resource.path'],
    ],
  );
  const messages = ctx.errors.map((e) => e.problem.message);
  assert.match(
    messages[3]!,
    new RegExp(`is ${MAX_EMBEDDED_BYTES + 1} bytes, more than the ${MAX_EMBEDDED_BYTES}-byte cap`),
  );
  assert.match(messages[4]!, /cannot tell the MIME type of "assets\/data.bin"/);
  assert.match(messages[5]!, /expected an audio\/… MIME type, got "image\/png"/);
  assert.match(messages[7]!, /is not a file/);
  assert.match(ctx.errors[3]!.problem.hint ?? '', /as a file resource .* resourceLink/);
  assert.equal(ctx.errors[7]!.problem.hint, undefined);
});

test('every shape mistake is reported at once, at its item', () => {
  const { ctx, tool } = compile({
    input: { name: { type: 'string' } },
    content: [
      {},
      { text: 'a', image: { path: 'assets/logo.png' } },
      { text: 'Hi {{nmae}}' },
      { resource: { uri: 'x://y' } },
      { resource: { uri: 'x://y', text: 'a', path: 'assets/notes.md' } },
      { resourceLink: { uri: 'no-scheme', name: 'n' } },
    ],
    structured: { who: '{{nobody}}' },
  });
  assert.equal(tool, undefined);
  assert.deepEqual(
    ctx.errors.map((e) => [e.problem.code, e.at.join('.')]),
    [
      ['MANIFEST_INVALID_VALUE', 'content.0'],
      ['MANIFEST_INVALID_VALUE', 'content.1'],
      ['TEMPLATE_UNKNOWN_VARIABLE', 'content.2.text'],
      ['MANIFEST_INVALID_VALUE', 'content.3.resource'],
      ['MANIFEST_INVALID_VALUE', 'content.4.resource'],
      ['MANIFEST_INVALID_VALUE', 'content.5.resourceLink.uri'],
      ['TEMPLATE_UNKNOWN_VARIABLE', 'structured.who'],
    ],
  );
  assert.match(ctx.errors[1]!.problem.message, /expected only one of .*; got text and image/);
  assert.match(ctx.errors[2]!.problem.message, /did you mean "name"/);
});

test('a content tool needs content or structured', () => {
  const { ctx, tool } = compile({ description: 'nothing' });
  assert.equal(tool, undefined);
  assert.deepEqual(ctx.codes(), ['MANIFEST_MISSING_FIELD']);
});

test('through the whole pipeline: a misspelt item field is an unknown field with a suggestion', async () => {
  writeFileSync(
    join(dir, 'mcp.yaml'),
    [
      'tools:',
      '  t:',
      '    kind: content',
      '    content:',
      '      - imgae: { path: assets/logo.png }',
      '',
    ].join('\n'),
  );
  const registry = builtinKinds();
  const err = await loadManifest(join(dir, 'mcp.yaml'), registry, {})
    .then((m) => compileCatalog(m, registry, new StderrLogger('silent')))
    .then(
      () => assert.fail('the manifest compiled'),
      (e: unknown) => e,
    );
  assert.ok(err instanceof ManifestError);
  assert.deepEqual(
    err.diagnostics.map((d) => [d.code, d.path, d.line]),
    [['MANIFEST_UNKNOWN_FIELD', 'tools.t.content[0].imgae', 5]],
  );
  assert.match(err.diagnostics[0]!.message, /did you mean "image"/);
});
