/**
 * An upstream's questions as relayed to our client (src/kinds/mcp/relay.ts, questionParams): only
 * the spec's fields of each method, every text through the source's redaction, url mode and
 * malformed params refused with a sentence, roots/list without params.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { questionParams } from '../../../src/kinds/mcp/relay.js';

const redact = (text: string) => text.replaceAll('s3cret-token', '[redacted]');
const form = { type: 'object', properties: { name: { type: 'string' } } };

test("a question's texts pass the source's redaction, and only the spec's fields are kept", () => {
  assert.deepEqual(
    questionParams(
      'elicitation/create',
      { message: 'use s3cret-token', requestedSchema: form, extra: 1 },
      redact,
    ),
    { params: { message: 'use [redacted]', requestedSchema: form } },
  );
  const sampled = questionParams(
    'sampling/createMessage',
    {
      messages: [{ role: 'user', content: { type: 'text', text: 's3cret-token' } }],
      maxTokens: 9,
      tools: 'x',
    },
    redact,
  );
  assert.deepEqual(sampled, {
    params: { messages: [{ role: 'user', content: { type: 'text', text: '[redacted]' } }], maxTokens: 9 },
  });
  assert.deepEqual(questionParams('roots/list', { anything: 's3cret-token' }, redact), { params: {} });
});

test('url mode and params not of the shape are refused', () => {
  for (const [method, params] of [
    ['elicitation/create', { mode: 'url', message: 'm', url: 'https://x', elicitationId: '1' }],
    ['elicitation/create', { message: 'm' }],
    [
      'elicitation/create',
      {
        message: 'm',
        requestedSchema: { type: 'object', properties: { a: { type: 'string', format: 'x' } } },
      },
    ],
    ['sampling/createMessage', { messages: [{ role: 'system', content: {} }], maxTokens: 1 }],
    ['sampling/createMessage', { messages: [], maxTokens: 1.5 }],
  ] as const)
    assert.ok('refused' in questionParams(method, params, redact), `${method} ${JSON.stringify(params)}`);
});
