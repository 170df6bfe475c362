import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { manifestJsonSchema } from '../../src/manifest/json-schema.js';
import type { KindSchemas } from '../../src/manifest/types.js';
import { kinds, yaml } from './helpers.js';

describe('manifestJsonSchema', () => {
  const schema = manifestJsonSchema(kinds);
  const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
  const valid = (text: string) => validate(parse(text) ?? {});

  it('compiles with ajv and accepts a good manifest', () => {
    const ok = yaml(
      'server: { name: demo, pageSize: 50 }',
      'sources:',
      '  shop: { kind: sqlite, path: ./shop.db }',
      'tools:',
      '  find: { kind: sql, source: shop, sql: SELECT 1, input: { q: { type: string } } }',
      '  get: { kind: http, source: shop, method: GET, path: /x }',
      'resources:',
      '  handbook: { kind: file, path: ./h.md }',
      'prompts:',
      '  hello: { messages: [{ role: user, text: hi }] }',
    );
    assert.equal(valid(ok), true, JSON.stringify(validate.errors));
  });

  it('rejects unknown kinds, fields of another kind, bad names and top-level keys', () => {
    assert.equal(valid(yaml('tools:', '  a: { kind: htp }')), false);
    assert.equal(valid(yaml('tools:', '  a: { kind: sql, source: s, sql: x, method: GET }')), false);
    assert.equal(valid(yaml('tools:', '  "a b": { kind: sql, source: s, sql: x }')), false);
    assert.equal(valid(yaml('tool: {}')), false);
    assert.equal(valid(yaml('prompts:', '  p: { text: hi }')), false);
  });

  it('offers the kinds for completion', () => {
    const tools = (
      schema as { properties: { tools: { additionalProperties: { properties: { kind: object } } } } }
    ).properties.tools;
    assert.deepEqual(tools.additionalProperties.properties.kind, {
      type: 'string',
      enum: ['http', 'shell', 'sql'],
      description: 'The tools implementation.',
    });
  });

  it('is deterministic, whatever order the registry lists kinds in', () => {
    const reversed: KindSchemas = { ...kinds, kinds: (s) => [...kinds.kinds(s)].reverse() };
    assert.equal(JSON.stringify(manifestJsonSchema(reversed)), JSON.stringify(schema));
    assert.equal(JSON.stringify(manifestJsonSchema(kinds)), JSON.stringify(schema));
  });
});
