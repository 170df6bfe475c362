import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compilePick, PickSyntaxError } from '../../../src/kinds/shared/json-pick.js';

const issue = {
  title: 'Crash on start',
  state: 'open',
  number: 9,
  user: { login: 'ann', id: 7 },
  labels: [
    { name: 'bug', color: 'red' },
    { name: 'p1', color: 'orange' },
  ],
  'odd key': { x: 1 },
  'with-dash': true,
  empty: null,
};
const list = { total: 2, items: [issue, { ...issue, title: 'Slow', number: 10, labels: [] }] };

const cases: [pick: string, input: unknown, expected: unknown][] = [
  ['title', issue, 'Crash on start'],
  ['user.login', issue, 'ann'],
  ['labels[0].name', issue, 'bug'],
  ['labels[-1].name', issue, 'p1'],
  ['labels[5].name', issue, null],
  ['labels[*].name', issue, ['bug', 'p1']],
  ['missing', issue, null],
  ['missing.deeper[0]', issue, null],
  ['empty', issue, null],
  ['title.length', issue, null], // no stepping into strings
  ['["odd key"].x', issue, 1],
  ["['odd key'].x", issue, 1],
  ['with-dash', issue, true],
  ['{title, state, user: user.login}', issue, { title: 'Crash on start', state: 'open', user: 'ann' }],
  ['{ title , n: number }', issue, { title: 'Crash on start', n: 9 }],
  ['{title, labels: labels[*].name,}', issue, { title: 'Crash on start', labels: ['bug', 'p1'] }],
  ['{nope}', issue, { nope: null }],
  ['{author: user.{login}}', issue, { author: { login: 'ann' } }],
  ['{"the key": title}', issue, { 'the key': 'Crash on start' }],
  [
    'items[*].{id: number, title}',
    list,
    [
      { id: 9, title: 'Crash on start' },
      { id: 10, title: 'Slow' },
    ],
  ],
  ['items[*].labels[*].name', list, [['bug', 'p1'], []]],
  ['items[*]', list, list.items],
  ['[0].a', [{ a: 1 }], 1],
  ['[*].a', [{ a: 1 }, { b: 2 }], [1, null]],
  ['{total}.total', list, 2],
  ['items[*].name', { items: 'not an array' }, null],
  ['{a}', [1, 2], null],
  ['constructor', {}, null], // only own keys
  ['{__proto__: title}', issue, JSON.parse('{"__proto__":"Crash on start"}')],
];

for (const [pick, input, expected] of cases) {
  test(`pick ${pick}`, () => {
    const result = compilePick(pick)(input);
    assert.deepEqual(result, expected);
    if (pick.startsWith('{__proto__')) assert.ok(Object.hasOwn(result as object, '__proto__'));
  });
}

const invalid: [pick: string, message: RegExp][] = [
  ['', /expected a name but found the end at column 1/],
  ['a.', /expected a name but found the end at column 3/],
  ['a..b', /expected a name but found "\." at column 3/],
  ['a[', /expected an index, "\*" or a quoted key but found the end/],
  ['a[x]', /expected an index, "\*" or a quoted key but found "x" at column 3/],
  ['a[0', /expected "\]" but found the end at column 4/],
  ['a]', /expected "\." or "\[" or the end but found "\]" at column 2/],
  ['{}', /expected a name but found "}" at column 2/],
  ['{a', /expected "}" but found the end at column 3/],
  ['{a: }', /expected a name but found "}" at column 5/],
  ['{a, a}', /the field "a" appears twice/],
  ['["open', /unclosed " quote/],
  ['1abc', /expected a name but found "1" at column 1/],
  ['a b', /expected "\." or "\[" or the end but found "b" at column 3/],
];

for (const [pick, message] of invalid) {
  test(`pick syntax error: ${JSON.stringify(pick)}`, () => {
    assert.throws(
      () => compilePick(pick),
      (err: unknown) => err instanceof PickSyntaxError && message.test(err.message),
    );
  });
}
