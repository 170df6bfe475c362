import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildInputSchema } from '../../src/manifest/input-schema.js';

describe('buildInputSchema', () => {
  it('gives an empty object schema without input', () => {
    assert.deepEqual(buildInputSchema(undefined), {
      type: 'object',
      properties: {},
      additionalProperties: false,
    });
    assert.deepEqual(buildInputSchema({}), { type: 'object', properties: {}, additionalProperties: false });
  });

  it('requires every property unless it has a default or required: false', () => {
    const schema = buildInputSchema({
      customer: { type: 'string', description: 'Customer email' },
      limit: { type: 'integer', default: 20, maximum: 100 },
      status: { type: 'string', required: false },
      region: { type: 'string', required: true },
    });
    assert.equal(
      JSON.stringify(schema),
      JSON.stringify({
        type: 'object',
        properties: {
          customer: { type: 'string', description: 'Customer email' },
          limit: { type: 'integer', default: 20, maximum: 100 },
          status: { type: 'string' },
          region: { type: 'string' },
        },
        required: ['customer', 'region'],
        additionalProperties: false,
      }),
    );
  });

  it('omits required when nothing is required, keeps a standard required array', () => {
    const schema = buildInputSchema({
      filter: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], default: {} },
    });
    assert.deepEqual(schema, {
      type: 'object',
      properties: {
        filter: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], default: {} },
      },
      additionalProperties: false,
    });
  });

  it('does not modify its input', () => {
    const input = { a: { type: 'string', required: false } };
    buildInputSchema(input);
    assert.deepEqual(input, { a: { type: 'string', required: false } });
  });
});
