/**
 * parseTemplate builds substitution-only trees itself, without Handlebars' parser. It must build
 * exactly the tree Handlebars builds, and hand everything else to Handlebars (so its syntax errors
 * are still reported): checked against the real parser on hand-picked edge cases and on every
 * string of a small alphabet of template characters.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import Handlebars from 'handlebars';
import { parseTemplate } from '../../src/util/handlebars.js';

/** The tree without source locations, which parseTemplate's own trees do not carry. */
const shape = (program: unknown) =>
  JSON.stringify(program, (key, value) => (key === 'loc' ? undefined : value));

function real(text: string): string | Error {
  try {
    return shape(Handlebars.parse(text));
  } catch (err) {
    return err as Error;
  }
}

function ours(text: string): string | Error {
  try {
    return shape(parseTemplate(text));
  } catch (err) {
    return err as Error;
  }
}

function same(text: string): void {
  const expected = real(text);
  const got = ours(text);
  if (expected instanceof Error) {
    assert.ok(got instanceof Error, `${JSON.stringify(text)}: Handlebars refuses it, parseTemplate took it`);
    assert.equal(got.message, expected.message, JSON.stringify(text));
  } else assert.equal(got, expected, JSON.stringify(text));
}

const EDGES = [
  'hello {{name}}',
  '{{ a.b }}',
  '{{a}}{{b}}',
  'x}}y{{a}}',
  '}}}{{a}}',
  '{{a}}}',
  '{{{a}}',
  'x{{{a}}}',
  '{ {{a}}',
  '\\{{a}}',
  '{{a.this}}',
  '{{this}}',
  '{{true}}',
  '{{null}}',
  '{{else}}',
  '{{if}}',
  '{{log}}',
  '{{a}',
  '{{ a',
  '{{~a}}',
  '{{!c}}',
  '{{#if a}}x{{/if}}',
  '{{a.1}}',
  '{{_x.y_z9}}',
  '{{\n  a\n}}',
  'line\n{{a}}\n',
];

test('substitution-only edge cases parse as Handlebars parses them', () => {
  for (const text of EDGES) same(text);
});

test('every string of up to 5 template tokens parses as Handlebars parses it', () => {
  const tokens = ['{{', '}}', '{', '}', 'a', '.', ' ', 'this', 'x.y', '\\', '~', '#'];
  let texts = [''];
  let checked = 0;
  for (let length = 1; length <= 5; length++) {
    texts = texts.flatMap((t) => tokens.map((token) => t + token));
    for (const text of texts) {
      same(text);
      checked++;
    }
  }
  assert.ok(checked > 200_000);
});

test('a substitution-only template is checked without loading Handlebars', () => {
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const { parseTemplate } = await import(${JSON.stringify(new URL('../../src/util/handlebars.ts', import.meta.url).href)});
       parseTemplate('Hello {{name}}, {{ order.id }}!');
       const loaded = Object.keys((await import('node:module')).createRequire(import.meta.url).cache);
       console.log(JSON.stringify(loaded.filter((f) => f.includes('handlebars'))));`,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual(JSON.parse(child.stdout), []);
});
