/**
 * Substitution-only templates render without Handlebars: the interpreter must give exactly what
 * Handlebars (noEscape, knownHelpersOnly) gives, for every template shape it takes and every kind
 * of value; everything else still goes to Handlebars, and its errors are still reported at load.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Handlebars from 'handlebars';
import { compileTemplate, substitute, substitutionParts } from '../../../src/kinds/shared/template.js';
import { testContext } from '../context.js';

const env = Handlebars.create();
const OPTIONS = { noEscape: true, knownHelpersOnly: true, strict: false };

const TEMPLATES = [
  'hello {{name}}',
  '{{name}}',
  '{{a}}{{b}}',
  '{{a}} and {{b}}',
  '  {{~a~}}  {{b}}',
  '{{! a comment }}{{a}}{{b}}',
  'x {{!-- long comment --}} y',
  '<b>{{html}}</b> & {{{html}}} {{&html}}',
  '{{obj.inner}} {{obj.missing}} {{obj.inner.deep}}',
  '{{list.[0]}} {{list.length}} {{name.length}}',
  '{{[weird key]}} {{obj.[inner]}}',
  '{{toString}} {{obj.constructor}} {{__proto__}} {{hasOwnProperty}}',
  '{{fn}} {{obj.fn}}',
  '\\{{name}} {{name}}',
  'line one\n  {{! standalone }}\nline {{n}}\r\n',
  '{{missing}}{{missing}}',
  '{{zero}}{{f}}{{t}}',
  '{{date}} {{date}}',
];

const DATA: Record<string, unknown>[] = [
  {},
  { name: 'Ada', a: 1, b: 2, html: '<&>"\'`=', n: 3 },
  { name: '', a: 'x', b: null, obj: { inner: 'in', fn: () => 'called' }, list: [7, 8] },
  { a: 1.5, b: [1, [2, 3]], obj: { inner: { deep: true } }, name: 'ünï', zero: 0, f: false, t: true },
  { a: { x: 1 }, b: undefined, obj: null, list: [], 'weird key': 'w', toString: 'own' },
  {
    fn() {
      return (this as { name?: string }).name;
    },
    name: 'ctx',
    constructor: 'c',
    date: new Date(0),
  },
  { a: 10n, b: 5, obj: { constructor: Object } },
];

test('the interpreter renders exactly what Handlebars renders', () => {
  for (const text of TEMPLATES) {
    const parts = substitutionParts(env.parse(text));
    assert.ok(parts, `${JSON.stringify(text)} is a substitution-only template`);
    const handlebars = env.compile(text, OPTIONS);
    for (const data of DATA) {
      let expected: unknown;
      try {
        expected = handlebars(data);
      } catch (err) {
        expected = err;
      }
      let actual: unknown;
      try {
        actual = substitute(parts, data);
      } catch (err) {
        actual = err;
      }
      if (expected instanceof Error) assert.ok(actual instanceof Error, `${text}: Handlebars threw`);
      else assert.equal(actual, expected, `${JSON.stringify(text)} with ${Object.keys(data).join(',')}`);
    }
  }
});

test('anything beyond substitution is left to Handlebars', () => {
  for (const text of [
    '{{#if a}}x{{/if}}',
    '{{lookup obj key}}',
    '{{this.a}}',
    '{{.}}',
    '{{@root.a}}',
    '{{../a}}',
    '{{"literal"}}',
    '{{1}}',
    '{{> partial}}',
    '{{if}}',
    '{{log}}',
    '{{helperMissing}}',
    '{{a b}}',
    '{{a k=1}}',
  ]) {
    assert.equal(substitutionParts(env.parse(text)), undefined, text);
  }
});

test('compileTemplate renders both paths as Handlebars does and checks everything at load', () => {
  const ctx = testContext({ baseDir: '.' });
  const declared = ['name', 'items', 'a', 'b'];
  const simple = compileTemplate('{{a}}{{b}} for {{name}}', declared, ['t'], ctx);
  const block = compileTemplate('{{#each items}}[{{this}}]{{/each}} {{name}}', declared, ['u'], ctx);
  assert.deepEqual(ctx.codes(), []);
  const data = { a: 1, b: 2, name: '<Ada>', items: ['x', 'y'] };
  assert.equal(simple?.(data), '3 for <Ada>');
  assert.equal(block?.(data), '[x][y] <Ada>');
  assert.equal(block?.({ ...data, items: [] }), ' <Ada>', 'the lazily compiled template is reused');

  const bad = testContext({ baseDir: '.' });
  assert.equal(compileTemplate('{{shout name}}', declared, ['v'], bad), undefined);
  assert.equal(compileTemplate('{{> header}}', declared, ['w'], bad), undefined);
  assert.equal(compileTemplate('{{name', declared, ['x'], bad), undefined);
  assert.equal(compileTemplate('{{nope}}', declared, ['y'], bad), undefined);
  assert.deepEqual(bad.codes(), [
    'TEMPLATE_SYNTAX',
    'TEMPLATE_SYNTAX',
    'TEMPLATE_SYNTAX',
    'TEMPLATE_UNKNOWN_VARIABLE',
  ]);
});
