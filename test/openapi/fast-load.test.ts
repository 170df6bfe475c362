/**
 * What the import writes loads on the fast YAML path (src/manifest/fast-parse.ts), with the data
 * the full parser gives: descriptions in GitHub's style (`> [!NOTE]`, `**bold**`, `[links` cut
 * at the end of a line, long lines), and examples of several lines, which were once written as a
 * flow list spread over lines and sent the whole manifest (1,223 tools) to the slow path.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { fastParse } from '../../src/manifest/fast-parse.js';
import { importText, render } from './helpers.js';

const NOTE = [
  '> [!NOTE]',
  '> This endpoint is in **public preview** and *subject* to change: see [the',
  'changelog](https://example.com/changelog) &amp; ![a badge](https://example.com/b.png).',
  '',
  `${'A long line of prose without a colon '.repeat(40)}`,
  '    { "indented": ["json", "sample"] }',
].join('\n');

const SPEC = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'Styled', version: '1.0.0' },
  servers: [{ url: 'https://api.example.com' }],
  paths: {
    '/repos/{owner}/scan': {
      post: {
        operationId: 'repos/scan',
        tags: ['repos'],
        summary: 'Scan a repository [beta]',
        description: NOTE,
        parameters: [{ name: 'owner', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  message: {
                    type: 'string',
                    description: 'A human-readable message, e.g. `Invalid owner on line 7: ? [x]`.',
                    examples: ['Invalid owner on line 7:\n\n\n  \\  * user', 'Short one'],
                  },
                  mode: { type: 'string', enum: ['fast', 'full'] },
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: { type: 'object', properties: { note: { type: 'string', description: NOTE } } },
              },
            },
          },
        },
      },
    },
  },
});

test('an imported manifest takes the fast path and reads as yaml reads it', () => {
  const text = render(importText(SPEC, {}, 'styled.json'));
  assert.match(text, /\[!NOTE\]/, 'the description is written as it is');
  assert.doesNotMatch(text, /examples:\s*\[\s*$/m, 'no flow list of multi-line text');
  const fast = fastParse(text);
  assert.ok(fast, 'the import is read on the fast path');
  assert.deepEqual(fast.data, parse(text, { uniqueKeys: false }));
});
