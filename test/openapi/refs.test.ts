/**
 * `$ref` resolution (local, relative files, cycles, remote refs left alone, broken refs) and the
 * OpenAPI dialect read as JSON Schema 2020-12, on real files in a temp folder.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { type ImportError, loadSpec } from '../../src/openapi/load.js';
import { RefResolver } from '../../src/openapi/refs.js';
import { toJsonSchema } from '../../src/openapi/schema.js';
import { tempFiles } from '../helpers/demo.js';

const files = tempFiles({
  'api.yaml': `openapi: 3.0.3
info: { title: Refs, version: '1' }
paths: {}
components:
  schemas:
    Pet:
      type: object
      properties:
        id: { type: integer }
        owner: { $ref: './shared/people.yaml#/Person' }
        error: { $ref: 'shared/error.yaml' }
    Node:
      type: object
      properties:
        name: { type: string }
        children: { type: array, items: { $ref: '#/components/schemas/Node' } }
    A: { type: object, properties: { b: { $ref: '#/components/schemas/B' } } }
    B: { type: object, properties: { a: { $ref: '#/components/schemas/A' } } }
    Twice:
      type: object
      properties:
        first: { $ref: '#/components/schemas/Leaf' }
        second: { $ref: '#/components/schemas/Leaf' }
    Leaf: { type: string, maxLength: 3 }
    a/b~c: { type: boolean }
    Escaped: { $ref: '#/components/schemas/a~1b~0c' }
    Remote: { $ref: 'https://example.com/schemas.yaml#/Pet' }
    Broken: { $ref: '#/components/schemas/Nope' }
    BrokenFile: { $ref: './missing.yaml#/X' }
    WithSiblings: { $ref: '#/components/schemas/Leaf', description: Three letters at most }
`,
  'shared/people.yaml': `Person:
  type: object
  properties:
    name: { type: string }
    address: { $ref: './places.yaml#/Address' }
`,
  'shared/places.yaml': 'Address: { type: object, properties: { city: { type: string } } }\n',
  'shared/error.yaml': 'type: object\nproperties: { code: { type: integer } }\n',
});
after(() => files.cleanup());

const spec = loadSpec(join(files.dir, 'api.yaml'));
const refs = new RefResolver(spec.file, spec.doc);
const expand = (name: string) =>
  refs.inline({ $ref: `#/components/schemas/${name}` }, spec.file) as Record<string, any>;

describe('$ref resolution', () => {
  test('relative file refs resolve from the file that holds them, refs inside them too', () => {
    const pet = expand('Pet');
    assert.deepEqual(pet.properties.owner, {
      type: 'object',
      properties: {
        name: { type: 'string' },
        address: { type: 'object', properties: { city: { type: 'string' } } },
      },
    });
    assert.deepEqual(pet.properties.error, { type: 'object', properties: { code: { type: 'integer' } } });
  });

  test('a recursive schema is expanded once and cut at the second visit, with a description', () => {
    const node = expand('Node');
    assert.equal(node.properties.name.type, 'string');
    const inner = node.properties.children.items;
    assert.equal(inner.type, 'object');
    assert.match(inner.description, /A Node again \(a recursive schema; not expanded a second time\)/);
    assert.equal(inner.properties, undefined);
    const a = expand('A');
    assert.equal(a.properties.b.type, 'object');
    assert.match(a.properties.b.properties.a.description, /A A again/);
  });

  test('the same schema used twice side by side is expanded both times (not a cycle)', () => {
    assert.deepEqual(expand('Twice').properties, {
      first: { type: 'string', maxLength: 3 },
      second: { type: 'string', maxLength: 3 },
    });
  });

  test('JSON Pointer escapes, and siblings of $ref win over the target', () => {
    assert.deepEqual(expand('Escaped'), { type: 'boolean' });
    assert.deepEqual(expand('WithSiblings'), {
      type: 'string',
      maxLength: 3,
      description: 'Three letters at most',
    });
  });

  test('a URL is never fetched: left as a description, with a warning', () => {
    const remote = expand('Remote');
    assert.match(remote.description, /Not expanded: https:\/\/example\.com\/schemas\.yaml#\/Pet/);
    assert.ok(refs.warnings.some((w) => w.includes('https://example.com/schemas.yaml#/Pet')));
  });

  test('a missing target is OPENAPI_REF naming the ref and what is missing', () => {
    assert.throws(
      () => expand('Broken'),
      (err: ImportError) =>
        err.problem.code === 'OPENAPI_REF' && /#\/components\/schemas\/Nope/.test(err.problem.message),
    );
    assert.throws(
      () => expand('BrokenFile'),
      (err: ImportError) => err.problem.code === 'OPENAPI_REF' && /no such file/.test(err.problem.message),
    );
  });
});

describe('OpenAPI schemas as JSON Schema 2020-12', () => {
  test('nullable, example, boolean exclusiveMinimum, and words JSON Schema lacks', () => {
    assert.deepEqual(
      toJsonSchema({
        type: 'integer',
        nullable: true,
        minimum: 0,
        exclusiveMinimum: true,
        example: 4,
        xml: { name: 'n' },
        'x-internal': true,
      }),
      { type: ['integer', 'null'], exclusiveMinimum: 0, examples: [4] },
    );
    assert.deepEqual(toJsonSchema({ type: 'string', enum: ['a'], nullable: true }), {
      type: ['string', 'null'],
      enum: ['a', null],
    });
    assert.deepEqual(
      toJsonSchema({
        type: 'object',
        discriminator: { propertyName: 'k' },
        properties: { k: { type: 'int' } },
      }),
      {
        type: 'object',
        properties: { k: {} },
      },
    );
  });

  test('an allOf of plain objects is merged; anything else is kept', () => {
    assert.deepEqual(
      toJsonSchema({
        allOf: [
          { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
          { required: ['id'], properties: { id: { type: 'integer' } } },
        ],
        description: 'A pet',
      }),
      {
        type: 'object',
        description: 'A pet',
        properties: { name: { type: 'string' }, id: { type: 'integer' } },
        required: ['name', 'id'],
      },
    );
    const kept = toJsonSchema({
      allOf: [{ type: 'object', properties: { a: {} } }, { not: { required: ['b'] } }],
    });
    assert.equal(Array.isArray(kept.allOf), true);
    const clash = toJsonSchema({
      allOf: [{ properties: { a: { type: 'string' } } }, { properties: { a: { type: 'integer' } } }],
    });
    assert.equal(Array.isArray(clash.allOf), true, 'two different schemas for one property are not merged');
  });
});
