/**
 * Schema interning (user-schemas.ts `internSchemas`): one object for schemas with the same JSON
 * text, and never one for two schemas whose text differs, however alike their parts look, nor for
 * two whose numbers JSON writes alike (.inf and null, -0 and 0) but a validator does not take alike.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonSchema } from '../../src/kinds/contract/types.js';
import { internSchemas } from '../../src/manifest/user-schemas.js';

const schema = (value: unknown) => value as JsonSchema;

test('schemas with the same JSON text are one object, nested parts compared by content', () => {
  const intern = internSchemas();
  const shared = { type: 'string', description: 'The owner of the repository.' };
  const first = intern(schema({ type: 'object', properties: { owner: shared, n: { type: 'integer' } } }));
  const copy = { type: 'object', properties: { owner: { ...shared }, n: { type: 'integer' } } };
  assert.equal(intern(schema(copy)), first);
  assert.equal(intern(schema(structuredClone(copy))), first);
});

test('schemas whose JSON text differs, or whose values a validator tells apart (.inf, .nan, -0), stay apart', () => {
  const intern = internSchemas();
  const variants = [
    { enum: [1, 2] },
    { enum: ['1', '2'] },
    { enum: [1, '2'] },
    { enum: [[1, 2]] },
    { enum: [{ 0: 1, 1: 2 }] },
    { enum: [null] },
    { enum: ['null'] },
    { enum: [true] },
    { enum: ['true'] },
    { enum: [1.5] },
    { enum: [Number.POSITIVE_INFINITY] },
    { enum: [Number.NEGATIVE_INFINITY] },
    { enum: [Number.NaN] },
    { enum: [-0] },
    { enum: [0] },
    { enum: ['$1'] },
    { enum: ['#1'] },
    { default: 'a', description: 'b' },
    { description: 'b', default: 'a' },
    { default: 'b', description: 'a' },
    { 'a:b': 'c' },
    { a: 'b:c' },
    { 'a,b': 'c' },
  ];
  const interned = variants.map((v) => intern(schema(v)));
  assert.equal(new Set(interned).size, variants.length);
  for (const [i, s] of interned.entries()) assert.equal(s, variants[i], JSON.stringify(variants[i]));
});
