import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ResourceNotFound } from '../../../src/catalog/types.js';
import { type TextResourceConfig, textResource } from '../../../src/kinds/files/text.js';
import { testContext } from '../context.js';

const signal = new AbortController().signal;

async function compile(config: TextResourceConfig) {
  const ctx = testContext({ baseDir: '/nonexistent', name: 'note' });
  return { ctx, compiled: await textResource.compile(config, ctx) };
}

test('static text: served as written, text/plain by default, size in bytes', async () => {
  const { ctx, compiled } = await compile({
    uri: 'notes://style',
    text: 'Café {{not a template}}',
    title: 'Style',
  });
  assert.deepEqual(ctx.errors, []);
  const [resource] = compiled!.resources;
  assert.deepEqual(resource!.descriptor, {
    uri: 'notes://style',
    name: 'note',
    title: 'Style',
    mimeType: 'text/plain',
    size: 24,
  });
  assert.deepEqual(await resource!.read(signal), [
    { uri: 'notes://style', mimeType: 'text/plain', text: 'Café {{not a template}}' },
  ]);
});

test('a template URI renders the text with its variables, unescaped', async () => {
  const { ctx, compiled } = await compile({
    uri: 'greet://{lang}/{+who}',
    text: 'Greet {{who}} in {{lang}}{{#if lang}}!{{/if}}',
    mimeType: 'text/markdown',
    variables: { lang: { enum: ['en', 'fr'], description: 'Language' } },
  });
  assert.deepEqual(ctx.errors, []);
  assert.equal(compiled!.resources.length, 0);
  const t = compiled!.templates[0]!;
  assert.deepEqual(t.descriptor, {
    uriTemplate: 'greet://{lang}/{+who}',
    name: 'note',
    mimeType: 'text/markdown',
  });
  const uri = 'greet://fr/Ann%20%26%20%3Cb%3E/x';
  const vars = t.match(uri);
  assert.deepEqual(vars, { lang: 'fr', who: 'Ann & <b>/x' });
  assert.deepEqual(await t.read(uri, vars!, signal), [
    { uri, mimeType: 'text/markdown', text: 'Greet Ann & <b>/x in fr!' },
  ]);
  await assert.rejects(t.read('greet://de/x', t.match('greet://de/x')!, signal), ResourceNotFound);
  assert.deepEqual(await t.complete('lang', 'F', {}), ['fr']);
  assert.deepEqual(await t.complete('who', '', {}), []);
});

test('TEMPLATE_UNKNOWN_VARIABLE for a variable the URI does not have, with did-you-mean', async () => {
  const { ctx, compiled } = await compile({ uri: 'greet://{lang}', text: 'Hello in {{lnag}} by {{author}}' });
  assert.equal(compiled, undefined);
  assert.deepEqual(ctx.codes(), ['TEMPLATE_UNKNOWN_VARIABLE', 'TEMPLATE_UNKNOWN_VARIABLE']);
  assert.deepEqual(ctx.errors[0]!.at, ['text']);
  assert.match(ctx.errors[0]!.problem.message, /\{\{lnag\}\}.*did you mean "lang"/);
  assert.equal(ctx.errors[0]!.problem.hint, 'declared: lang');
});

test('template mistakes: syntax, variables of a static URI, variables not in the URI, no scheme', async () => {
  const syntax = await compile({ uri: 'greet://{lang}', text: 'Hello {{#if lang}}' });
  assert.deepEqual(syntax.ctx.codes(), ['TEMPLATE_SYNTAX']);
  const staticVars = await compile({ uri: 'notes://x', text: 'x', variables: { a: {} } });
  assert.deepEqual(staticVars.ctx.codes(), ['MANIFEST_INVALID_VALUE']);
  const notInUri = await compile({ uri: 'greet://{lang}', text: '{{lang}}', variables: { langs: {} } });
  assert.deepEqual(notInUri.ctx.codes(), ['URI_TEMPLATE_INVALID']);
  assert.deepEqual(notInUri.ctx.errors[0]!.at, ['variables', 'langs']);
  const noScheme = await compile({ uri: 'style', text: 'x' });
  assert.deepEqual(noScheme.ctx.codes(), ['MANIFEST_INVALID_VALUE']);
});
