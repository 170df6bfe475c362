// Table tests of the small HTTP helpers: path templates, Retry-After, header checks, value trees.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkHeaders, checkRequestPath, isLoopbackHost } from '../../../src/kinds/http/headers.js';
import { backoffMs, parseRetryAfter } from '../../../src/kinds/http/retry.js';
import { ABSENT, compileTree, evaluateTree } from '../../../src/kinds/shared/value-tree.js';
import { PathValueError, parsePathTemplate } from '../../../src/util/http-path.js';
import { testContext } from '../context.js';

test('path templates encode every value as one segment', () => {
  const path = parsePathTemplate('/repos/{owner}/{repo}/issues/{number}');
  assert.deepEqual(path.params, ['owner', 'repo', 'number']);
  const cases: [value: unknown, encoded: string][] = [
    ['plain', 'plain'],
    [42, '42'],
    [true, 'true'],
    ['a/b', 'a%2Fb'],
    ['../..', '..%2F..'],
    ['%2F', '%252F'],
    ['x?admin=1', 'x%3Fadmin%3D1'],
    ['x#frag', 'x%23frag'],
    ['@evil.example', '%40evil.example'],
    ['a b', 'a%20b'],
    ['é', '%C3%A9'],
    ['...', '...'],
  ];
  for (const [value, encoded] of cases) {
    assert.equal(path.render({ owner: value, repo: 'r', number: 1 }), `/repos/${encoded}/r/issues/1`);
  }
});

test('path values that would climb, vanish or are not scalars are refused', () => {
  const path = parsePathTemplate('/files/{name}');
  for (const value of ['.', '..', '', null, undefined, ['a'], { a: 1 }]) {
    assert.throws(() => path.render({ name: value }), PathValueError, String(value));
  }
  const joined = parsePathTemplate('/files/{a}{b}');
  assert.throws(() => joined.render({ a: '.', b: '.' }), /segment "\.\."/);
  assert.equal(parsePathTemplate('/files/{name}.json').render({ name: '.' }), '/files/..json');
});

test('path templates: what the manifest may write', () => {
  const bad: [path: string, message: RegExp][] = [
    ['repos', /must start with "\/"/],
    ['//evil.example/x', /may not start with "\/\/"/],
    ['/a?x=1', /"\?" or "#"/],
    ['/a#x', /"\?" or "#"/],
    ['/a/{b', /unbalanced/],
    ['/a/{b-c}', /not a parameter name/],
    ['/a/{}', /not a parameter name/],
    ['/a b', /percent-encoded/],
    ['/a/../b', /"\." or "\.\." segments/],
    ['/a/./b', /"\." or "\.\." segments/],
  ];
  for (const [path, message] of bad) assert.throws(() => parsePathTemplate(path), message, path);
  assert.equal(parsePathTemplate('/v1/items:search').render({}), '/v1/items:search');
});

test('the source refuses request paths that are not plain encoded paths', () => {
  for (const path of ['/a/../b', '/a/%2e%2E/b', '/a/./b', '//host/x', '/a?b', 'a', '/a b', '/a#b']) {
    assert.throws(() => checkRequestPath(path), /refused the request path/, path);
  }
  checkRequestPath('/repos/a%2Fb/..%2F..');
});

test('Retry-After: delay-seconds and HTTP dates', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter(undefined, now), undefined);
  assert.equal(parseRetryAfter('0', now), 0);
  assert.equal(parseRetryAfter(' 3 ', now), 3000);
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now), 5000);
  assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now), 0);
  for (const junk of ['-1', '1.5', 'soon', '']) assert.equal(parseRetryAfter(junk, now), undefined, junk);
  for (let n = 1; n <= 4; n++) {
    const ms = backoffMs(n);
    assert.ok(ms >= 200 * 2 ** (n - 1) && ms <= 240 * 2 ** (n - 1), `${n}: ${ms}`);
  }
});

test('headers: names are tokens, framing headers are reserved, values are one line', () => {
  assert.deepEqual(checkHeaders({ Accept: 'application/json', 'X-Trace': 'a b' }), []);
  const reasons = checkHeaders({
    Host: 'evil.example',
    'Content-Length': '0',
    'Transfer-Encoding': 'chunked',
    'X-A': 'one\r\nX-Injected: yes',
    'X-B': 'line\nbreak',
    'X-C': 'nul\0',
    'Bad Name': 'x',
  }).map(([name]) => name);
  assert.deepEqual(reasons, ['Host', 'Content-Length', 'Transfer-Encoding', 'X-A', 'X-B', 'X-C', 'Bad Name']);
});

test('loopback hosts', () => {
  for (const host of ['localhost', 'api.localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1']) {
    assert.ok(isLoopbackHost(host), host);
  }
  for (const host of ['example.com', '10.0.0.1', '128.0.0.1', 'localhost.example.com', '0.0.0.0']) {
    assert.ok(!isLoopbackHost(host), host);
  }
});

test('value trees: "{{name}}" is the typed value, other strings are text, absent entries go', () => {
  const ctx = testContext({ baseDir: '/' });
  const tree = compileTree(
    {
      n: '{{count}}',
      tags: '{{tags}}',
      q: 'repo:{{repo}} is:open',
      fixed: 3,
      list: ['{{count}}', 'x-{{missing_ok}}', '{{ repo }}'],
      nested: { when: '{{since}}', flag: true, nothing: null },
    },
    ['count', 'tags', 'repo', 'since', 'missing_ok'],
    ['body'],
    ctx,
  );
  assert.deepEqual(ctx.errors, []);
  assert.ok(tree);
  assert.deepEqual(evaluateTree(tree, { count: 5, tags: ['a', 'b'], repo: 'x/y' }), {
    n: 5,
    tags: ['a', 'b'],
    q: 'repo:x/y is:open',
    fixed: 3,
    list: [5, 'x/y'],
    nested: { flag: true, nothing: null },
  });
  assert.deepEqual(evaluateTree(tree, {}), { fixed: 3, list: [], nested: { flag: true, nothing: null } });
  const single = compileTree('{{count}}', ['count'], ['body'], ctx);
  assert.equal(evaluateTree(single!, {}), ABSENT);
});

test('value trees: undeclared variables are reported with their path and a suggestion', () => {
  const ctx = testContext({ baseDir: '/' });
  const tree = compileTree({ a: '{{cuont}}', b: ['text {{repoo}}'] }, ['count', 'repo'], ['query'], ctx);
  assert.equal(tree, undefined);
  assert.deepEqual(
    ctx.errors.map((e) => [e.at, e.problem.code, e.problem.message]),
    [
      [
        ['query', 'a'],
        'TEMPLATE_UNKNOWN_VARIABLE',
        'the template uses {{cuont}} but no argument or variable "cuont" is declared (did you mean "count"?)',
      ],
      [
        ['query', 'b', 0],
        'TEMPLATE_UNKNOWN_VARIABLE',
        'the template uses {{repoo}} but no argument or variable "repoo" is declared (did you mean "repo"?)',
      ],
    ],
  );
});
