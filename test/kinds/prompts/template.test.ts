import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { InvalidRequestParams } from '../../../src/catalog/types.js';
import { type PromptTemplateConfig, templatePrompt } from '../../../src/kinds/prompts/template.js';
import { tempDir, testContext } from '../context.js';

const signal = new AbortController().signal;

function compile(config: PromptTemplateConfig) {
  const ctx = testContext({ baseDir: '/nonexistent', name: 'summarize' });
  return { ctx, prompt: templatePrompt.compile(config, ctx) };
}

const summarize: PromptTemplateConfig = {
  title: 'Summarise',
  description: "Summarise a customer's history.",
  arguments: {
    email: { description: 'Customer email', required: true },
    tone: { enum: ['brief', 'detailed'], title: 'Tone' },
    topic: { complete: ['orders', 'returns', 'Other'] },
  },
  messages: [
    {
      text: 'Summarise {{email}}{{#if tone}} in a {{tone}} way{{/if}}.{{#unless topic}} All topics.{{/unless}}',
    },
    { role: 'assistant', text: 'Looking at <{{email}}> & {{topic}}.' },
  ],
};

test('descriptor lists the arguments with required flags', () => {
  const { ctx, prompt } = compile(summarize);
  assert.deepEqual(ctx.errors, []);
  assert.deepEqual(prompt!.descriptor, {
    name: 'summarize',
    title: 'Summarise',
    description: "Summarise a customer's history.",
    arguments: [
      { name: 'email', description: 'Customer email', required: true },
      { name: 'tone', title: 'Tone', required: false },
      { name: 'topic', required: false },
    ],
  });
});

test('get renders every message, unescaped, with optional arguments left out', async () => {
  const { prompt } = compile(summarize);
  assert.deepEqual(await prompt!.get({ email: 'a@b.c' }, signal), {
    description: "Summarise a customer's history.",
    messages: [
      { role: 'user', content: { type: 'text', text: 'Summarise a@b.c. All topics.' } },
      { role: 'assistant', content: { type: 'text', text: 'Looking at <a@b.c> & .' } },
    ],
  });
  const full = await prompt!.get({ email: 'a@b.c', tone: 'brief', topic: 'returns' }, signal);
  assert.equal((full.messages[0]!.content as { text: string }).text, 'Summarise a@b.c in a brief way.');
  assert.equal((full.messages[1]!.content as { text: string }).text, 'Looking at <a@b.c> & returns.');
});

test('get refuses a missing required argument, an unknown argument and a value outside the enum', async () => {
  const { prompt } = compile(summarize);
  await assert.rejects(prompt!.get({}, signal), (err: Error) => {
    assert.ok(err instanceof InvalidRequestParams);
    assert.equal(err.message, 'missing required argument: email');
    return true;
  });
  await assert.rejects(prompt!.get({ email: '' }, signal), /missing required argument: email/);
  await assert.rejects(
    prompt!.get({ email: 'a', tonne: 'brief' }, signal),
    (err: Error) =>
      err instanceof InvalidRequestParams &&
      err.message === 'unknown argument "tonne" (did you mean "tone"?); the prompt takes: email, tone, topic',
  );
  await assert.rejects(
    prompt!.get({ email: 'a', tone: 'rude' }, signal),
    (err: Error) =>
      err instanceof InvalidRequestParams && /must be one of brief, detailed; got "rude"/.test(err.message),
  );
  await assert.rejects(prompt!.get({ email: 'a', constructor: 'x' }, signal), InvalidRequestParams);
});

test('completion from enum and complete lists, case-insensitive prefix', async () => {
  const { prompt } = compile(summarize);
  assert.deepEqual(await prompt!.complete('tone', 'B', {}), ['brief']);
  assert.deepEqual(await prompt!.complete('topic', 'o', {}), ['orders', 'Other']);
  assert.deepEqual(await prompt!.complete('topic', '', {}), ['orders', 'returns', 'Other']);
  assert.deepEqual(await prompt!.complete('email', '', {}), []);
  assert.deepEqual(await prompt!.complete('missing', '', {}), []);
});

test('TEMPLATE_UNKNOWN_VARIABLE at the message, with did-you-mean; block bodies are not checked', () => {
  const { ctx, prompt } = compile({
    arguments: { email: {}, items: {} },
    messages: [
      { text: 'Hi {{emial}} {{email.domain}} {{@index}} {{this}}' },
      {
        text: '{{#each items}}{{name}} {{../email}}{{else}}{{nothing}}{{/each}}{{#with email}}{{whatever}}{{/with}}',
      },
      { text: '{{#if ghost}}{{phantom}}{{/if}}{{lookup items missing}}' },
    ],
  });
  assert.equal(prompt, undefined);
  assert.deepEqual(
    ctx.errors.map((e) => [e.problem.code, e.at, e.problem.message.match(/\{\{(\w+)\}\}/)![1]]),
    [
      ['TEMPLATE_UNKNOWN_VARIABLE', ['messages', 0, 'text'], 'emial'],
      ['TEMPLATE_UNKNOWN_VARIABLE', ['messages', 1, 'text'], 'nothing'],
      ['TEMPLATE_UNKNOWN_VARIABLE', ['messages', 2, 'text'], 'ghost'],
      ['TEMPLATE_UNKNOWN_VARIABLE', ['messages', 2, 'text'], 'phantom'],
      ['TEMPLATE_UNKNOWN_VARIABLE', ['messages', 2, 'text'], 'missing'],
    ],
  );
  assert.match(ctx.errors[0]!.problem.message, /did you mean "email"/);
});

test('TEMPLATE_SYNTAX for parse errors, unknown helpers and partials; every message is checked', () => {
  const { ctx, prompt } = compile({
    arguments: { a: {} },
    messages: [
      { text: '{{#if a}}open' },
      { text: 'fine {{a}}' },
      { text: '{{shout a}}' },
      { text: '{{> header}}' },
    ],
  });
  assert.equal(prompt, undefined);
  assert.deepEqual(ctx.codes(), ['TEMPLATE_SYNTAX', 'TEMPLATE_SYNTAX', 'TEMPLATE_SYNTAX']);
  assert.deepEqual(
    ctx.errors.map((e) => e.at),
    [
      ['messages', 0, 'text'],
      ['messages', 2, 'text'],
      ['messages', 3, 'text'],
    ],
  );
  assert.match(ctx.errors[1]!.problem.message, /shout/);
  assert.match(ctx.errors[2]!.problem.message, /header/);
});

test('a prompt without arguments renders its text', async () => {
  const { ctx, prompt } = compile({ messages: [{ text: 'Plain {{! a comment }}text.' }] });
  assert.deepEqual(ctx.errors, []);
  assert.deepEqual(prompt!.descriptor, { name: 'summarize' });
  const result = await prompt!.get({}, signal);
  assert.deepEqual(result, { messages: [{ role: 'user', content: { type: 'text', text: 'Plain text.' } }] });
  await assert.rejects(prompt!.get({ x: '1' }, signal), /the prompt takes no arguments/);
});

test('messages may carry an image, audio, an embedded resource or a resource link', async () => {
  const dir = tempDir('mcp-run-prompt-');
  const png = Buffer.from('89504e470d0a1a0a0000', 'hex');
  writeFileSync(join(dir, 'chart.png'), png);
  writeFileSync(join(dir, 'voice.wav'), 'RIFF....WAVE');
  const ctx = testContext({ baseDir: dir, name: 'review' });
  const prompt = templatePrompt.compile(
    {
      description: 'Review with attachments.',
      arguments: { resourceUri: { required: true }, who: {} },
      messages: [
        { image: { path: 'chart.png' } },
        { role: 'assistant', audio: { path: './voice.wav', mimeType: 'audio/x-wav' } },
        { resource: { uri: '{{resourceUri}}', text: 'Read by {{who}}.', mimeType: 'text/markdown' } },
        { resourceLink: { uri: 'docs://{{who}}', name: 'profile' } },
        { text: 'Review {{resourceUri}}.' },
      ],
    },
    ctx,
  );
  assert.deepEqual(ctx.errors, []);
  const result = await prompt!.get({ resourceUri: 'test://example-resource', who: 'ada' }, signal);
  assert.deepEqual(result.messages, [
    { role: 'user', content: { type: 'image', data: png.toString('base64'), mimeType: 'image/png' } },
    {
      role: 'assistant',
      content: {
        type: 'audio',
        data: Buffer.from('RIFF....WAVE').toString('base64'),
        mimeType: 'audio/x-wav',
      },
    },
    {
      role: 'user',
      content: {
        type: 'resource',
        resource: { uri: 'test://example-resource', mimeType: 'text/markdown', text: 'Read by ada.' },
      },
    },
    { role: 'user', content: { type: 'resource_link', uri: 'docs://ada', name: 'profile' } },
    { role: 'user', content: { type: 'text', text: 'Review test://example-resource.' } },
  ]);
  // A required argument is still required when only a resource URI uses it.
  await assert.rejects(prompt!.get({ who: 'ada' }, signal), /missing required argument: resourceUri/);
});

test('message content mistakes are reported at the message, all at once', () => {
  const dir = tempDir('mcp-run-prompt-');
  const ctx = testContext({ baseDir: dir, name: 'broken' });
  const prompt = templatePrompt.compile(
    {
      arguments: { uri: {} },
      messages: [
        { role: 'user' },
        { text: 'a', image: { path: 'x.png' } },
        { image: { path: 'missing.png' } },
        { resource: { uri: '{{url}}', text: 'x' } },
        { resource: { uri: 'plain', text: 'x' } },
      ],
    },
    ctx,
  );
  assert.equal(prompt, undefined);
  assert.deepEqual(
    ctx.errors.map((e) => [e.problem.code, e.at.join('.')]),
    [
      ['MANIFEST_INVALID_VALUE', 'messages.0'],
      ['MANIFEST_INVALID_VALUE', 'messages.1'],
      ['PATH_NOT_FOUND', 'messages.2.image.path'],
      ['TEMPLATE_UNKNOWN_VARIABLE', 'messages.3.resource.uri'],
      ['MANIFEST_INVALID_VALUE', 'messages.4.resource.uri'],
    ],
  );
  assert.match(ctx.errors[0]!.problem.message, /expected one of text, image, audio, resource, resourceLink/);
});
