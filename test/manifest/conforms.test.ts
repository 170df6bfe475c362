/**
 * conforms.ts answers for the manifest's own schemas before any validator loads, and must never say
 * yes where ajv says no. Checked against ajv itself: the envelope and every entry of every recipe and
 * fixture manifest, each as written and changed in one place at a time (a field dropped, another
 * type, an unknown field, an empty string, a number out of bounds…), and the cases ajv reads in its
 * own way (code points, `u` patterns, Infinity, deep equality), where the answer must be "ask ajv".
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { conforms } from '../../src/manifest/conforms.js';
import { envelopeSchema } from '../../src/manifest/envelope.js';
import { parseYaml } from '../../src/manifest/parse.js';
import { MANIFEST_AJV_OPTIONS, META_CHECK_OPTIONS } from '../../src/manifest/precompiled.js';
import { checkSchema, isPlainTree } from '../../src/manifest/property-schemas.js';
import { ENTRY_SECTIONS } from '../../src/manifest/types.js';
import { applyDefaultKinds } from '../../src/manifest/validate.js';
import { isObject } from '../../src/util/is-object.js';
import { REPO } from '../helpers/demo.js';

const kinds = builtinKinds();
const ajv = new Ajv(MANIFEST_AJV_OPTIONS);
const compiled = new Map<object, ValidateFunction>();
const ajvSays = (schema: object, value: unknown): boolean => {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate(value);
};

/**
 * The demo manifest and every manifest of the recipes and of the test fixtures that parses, with
 * the default kinds filled in, as the loader validates them.
 */
function manifests(): { file: string; data: Record<string, unknown> }[] {
  const files = ['mcp.yaml.example'];
  for (const dir of ['recipes', 'test/fixtures']) {
    for (const path of readdirSync(join(REPO, dir), { recursive: true }).map(String)) {
      if (/\.ya?ml$/.test(path)) files.push(`${dir}/${path}`);
    }
  }
  return files.flatMap((file) => {
    const { data } = parseYaml(readFileSync(join(REPO, file), 'utf8'));
    applyDefaultKinds(data, kinds);
    return isObject(data) ? [{ file, data }] : [];
  });
}

/** The value with one change at `path`, or with its last key deleted when `to` is DELETE. */
const DELETE = Symbol('delete');
function changed(value: unknown, path: readonly (string | number)[], to: unknown): unknown {
  if (path.length === 0) return to;
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<
    string | number,
    unknown
  >;
  if (rest.length === 0 && to === DELETE) delete copy[head!];
  else copy[head!] = changed(copy[head!], rest, to);
  return copy;
}

/** Every path into a value's objects and arrays (the value's own first), a few levels deep. */
function paths(value: unknown, depth = 4): (string | number)[][] {
  const all: (string | number)[][] = [[]];
  if (depth === 0 || typeof value !== 'object' || value === null) return all;
  for (const [key, child] of Object.entries(value)) {
    const at = Array.isArray(value) ? Number(key) : key;
    for (const rest of paths(child, depth - 1)) all.push([at, ...rest]);
  }
  return all;
}

const REPLACEMENTS: unknown[] = [
  DELETE,
  null,
  true,
  0,
  -1,
  1.5,
  70000,
  Number.POSITIVE_INFINITY,
  Number.NaN,
  '',
  'x',
  'GET',
  'http://example.com',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a manifest's own reference
  '${env:X}',
  '😀',
  [],
  ['x'],
  ['x', 'x'],
  {},
  { kind: 'content' },
  { zz: 1 },
];

interface Tally {
  sure: number;
  unsure: number;
}

/** Compares conforms with ajv on `value` and every one-place change of it. */
function compare(schema: object, value: unknown, where: string, tally: Tally): void {
  for (const path of paths(value)) {
    for (const to of [...REPLACEMENTS, ...(path.length > 0 ? [] : [undefined])]) {
      if (to === DELETE && path.length === 0) continue;
      const variant = changed(value, path, to);
      const verdict = conforms(variant, schema);
      if (verdict === undefined) {
        tally.unsure++;
        continue;
      }
      tally.sure++;
      const expected = ajvSays(schema, variant);
      if (verdict !== expected) {
        assert.fail(
          `${where} at ${JSON.stringify(path)} = ${String(to)}: conforms says ${verdict}, ajv ${expected}\n${JSON.stringify(variant)}`,
        );
      }
    }
  }
}

describe('conforms: as ajv reads the manifest schemas', () => {
  const all = manifests();
  const envelope = envelopeSchema();

  it('finds recipe and fixture manifests to compare on', () => {
    assert.ok(all.length > 50, `${all.length} manifests`);
  });

  it('agrees with ajv on each manifest as a whole and on every entry, as written and changed', () => {
    const tally: Tally = { sure: 0, unsure: 0 };
    for (const { file, data } of all) {
      const verdict = conforms(data, envelope);
      if (verdict !== undefined) assert.equal(verdict, ajvSays(envelope, data), `${file}: the envelope`);
      for (const section of ENTRY_SECTIONS) {
        const entries = data[section];
        if (!isObject(entries)) continue;
        for (const [name, entry] of Object.entries(entries)) {
          const kind = isObject(entry) && typeof entry.kind === 'string' ? entry.kind : undefined;
          const schema = kind === undefined ? undefined : kinds.schema(section, kind);
          if (schema) compare(schema, entry, `${file} ${section}.${name} (${kind})`, tally);
        }
      }
    }
    // Nearly every case gets a sure answer; the rest are the cases that are ajv's to answer.
    assert.ok(tally.sure > 20 * tally.unsure, JSON.stringify(tally));
  });

  it('agrees with ajv on the envelope changed in one place', () => {
    const tally: Tally = { sure: 0, unsure: 0 };
    const demo = all.find((m) => m.file === 'mcp.yaml.example');
    assert.ok(demo);
    compare(envelope, demo.data, 'mcp.yaml.example', tally);
    assert.ok(tally.sure > 1000, JSON.stringify(tally));
  });

  it('answers the demo and every recipe manifest for sure, so serving them loads no validator', () => {
    const served = all.filter((m) => /^(recipes\/[^/]+\/mcp\.yaml|mcp\.yaml\.example)$/.test(m.file));
    assert.ok(served.length > 10);
    for (const { file, data } of served) {
      assert.equal(conforms(data, envelope), true, file);
      for (const section of ENTRY_SECTIONS) {
        for (const [name, entry] of Object.entries(isObject(data[section]) ? data[section] : {})) {
          const schema = kinds.schema(section, (entry as { kind: string }).kind);
          assert.equal(conforms(entry, schema), true, `${file} ${section}.${name}`);
        }
      }
    }
  });
});

describe('conforms: the combinations', () => {
  const cases: [unknown, object][] = [
    ['a', { oneOf: [{ type: 'string' }, { minLength: 1 }] }],
    ['a', { oneOf: [{ type: 'string' }, { type: 'number' }] }],
    [1, { oneOf: [{ type: 'string' }, { type: 'boolean' }] }],
    ['a', { anyOf: [{ type: 'number' }, { minLength: 1 }] }],
    [1, { anyOf: [{ type: 'string' }, { type: 'boolean' }] }],
    [{ a: 1 }, { type: ['object', 'null'], required: ['a', 'b'] }],
    [null, { type: ['object', 'null'], required: ['a'] }],
  ];
  it('oneOf takes exactly one, anyOf at least one, as ajv does', () => {
    for (const [value, schema] of cases) {
      assert.equal(conforms(value, schema), ajvSays(schema, value), JSON.stringify([value, schema]));
    }
  });
});

describe('conforms: what only ajv can answer', () => {
  it('a keyword it does not know', () => {
    assert.equal(conforms('a', { type: 'string', format: 'uri' }), undefined);
    assert.equal(
      conforms({ a: 1 }, { patternProperties: { '^a$': {} }, additionalProperties: false }),
      undefined,
    );
  });

  it('numbers that are not finite, where ajv takes them as numbers', () => {
    assert.equal(conforms(Number.POSITIVE_INFINITY, { type: 'integer' }), undefined);
    assert.equal(conforms(Number.NaN, { type: 'number', minimum: 0 }), undefined);
  });

  it('enum and const values that ajv compares deeply', () => {
    assert.equal(conforms({ a: 1 }, { enum: [{ a: 1 }] }), undefined);
    assert.equal(conforms([1], { const: [1] }), undefined);
    assert.equal(conforms(null, { enum: ['a', null] }), true);
  });

  it('counts string lengths in code points and matches patterns with the u flag, as ajv does', () => {
    assert.equal(conforms('😀', { minLength: 2 }), false);
    assert.equal(new Ajv(MANIFEST_AJV_OPTIONS).validate({ minLength: 2 }, '😀'), false);
    assert.equal(conforms('😀', { maxLength: 1 }), true);
    assert.equal(new Ajv(MANIFEST_AJV_OPTIONS).validate({ maxLength: 1 }, '😀'), true);
    assert.equal(conforms('ab', { maxLength: 1 }), false);
    assert.equal(new Ajv(MANIFEST_AJV_OPTIONS).validate({ maxLength: 1 }, 'ab'), false);
    assert.equal(conforms('😀', { pattern: '^.$' }), true);
    assert.equal(new Ajv(MANIFEST_AJV_OPTIONS).validate({ pattern: '^.$' }, '😀'), true);
  });

  it('a pattern that does not compile, for ajv to report', () => {
    assert.equal(conforms('a', { pattern: '(' }), undefined);
  });
});

describe('checkSchema: plain property schemas need no meta-schema check', () => {
  const meta = new Ajv2020(META_CHECK_OPTIONS);
  const plain = [
    { type: 'string' },
    { type: 'string', description: 'Who' },
    { type: 'integer', minimum: 1, maximum: 100, default: 20, title: 'Limit' },
    { type: 'string', enum: ['a', 'b'], examples: ['a'], minLength: 1, maxLength: 9 },
    {},
  ];
  it('each is one the meta-schema takes, and checkSchema finds nothing in it', () => {
    for (const schema of plain) {
      assert.equal(meta.validateSchema(schema), true, JSON.stringify(schema));
      assert.deepEqual(checkSchema(schema, ['tools', 't', 'input', 'p']), []);
    }
  });

  // Shapes of an imported API's schemas (the GitHub import's): trees of properties, items and refs.
  const trees: object[] = [
    { type: 'object', $ref: '#/schemas/repository' },
    {
      type: 'object',
      required: ['id', 'name'],
      additionalProperties: false,
      properties: {
        id: { type: 'integer', format: 'int64', readOnly: true },
        name: { type: ['string', 'null'], pattern: '^[a-z]+$', deprecated: true },
        labels: { type: 'array', items: { $ref: '#/schemas/label' }, minItems: 1, maxItems: 100 },
        state: { oneOf: [{ type: 'string', enum: ['open'] }, { const: 'closed' }] },
        extra: { anyOf: [true, { type: 'object', additionalProperties: { type: 'string' } }] },
        both: { allOf: [{ $ref: '#/schemas/a' }, { maxProperties: 3, uniqueItems: true }] },
      },
    },
  ];
  it('a tree of such keywords is one the meta-schema takes, found plain without it', () => {
    for (const schema of trees) {
      assert.equal(meta.validateSchema(schema), true, JSON.stringify(schema));
      assert.equal(isPlainTree(schema, 0), true, JSON.stringify(schema));
    }
  });

  it('a tree changed in one place is plain only where the meta-schema still takes it', () => {
    const wrong: unknown[] = [
      'strin',
      ['string', 'string'],
      [],
      -1,
      1.5,
      true,
      'https://example.com/x',
      '(',
      [1],
      { type: 'dict' },
      { required: true },
      [{ type: 'string' }],
      null,
    ];
    let plain = 0;
    const visit = (node: unknown, path: (string | number)[]) => {
      if (!isObject(node)) return;
      for (const [key, value] of Object.entries(node)) {
        for (const to of wrong) {
          const schema = changed(trees[1], [...path, key], to) as object;
          if (!isPlainTree(schema, 0)) continue;
          plain++;
          assert.equal(meta.validateSchema(schema), true, JSON.stringify(schema));
        }
        visit(value, [...path, key]);
      }
    };
    visit(trees[1], []);
    // Some changes keep a schema the meta-schema takes (a description that is a string): those are plain.
    assert.ok(plain > 0);
  });

  it('a schema past that shape is checked against the meta-schema as before', () => {
    const [finding] = checkSchema({ type: 'strin', description: 'x' }, ['tools', 't', 'input', 'p']);
    assert.equal(finding?.problem.code, 'SCHEMA_INVALID');
    const [minimum] = checkSchema({ type: 'integer', minimum: 'one' }, ['tools', 't', 'input', 'p']);
    assert.equal(minimum?.problem.code, 'SCHEMA_INVALID');
  });
});
