// Hostile argument values against a real upstream: what arrived is asserted, not what was built.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ToolResult } from '../../../src/catalog/types.js';
import type { OpenedSource } from '../../../src/kinds/contract/kinds.js';
import { httpSource } from '../../../src/kinds/http/source.js';
import { type HttpToolConfig, httpTool } from '../../../src/kinds/http/tool.js';
import { callContext, testContext } from '../context.js';
import { startUpstream, type Upstream } from './upstream.js';

let upstream: Upstream;
let source: OpenedSource;

before(async () => {
  upstream = await startUpstream();
  const ctx = testContext({ baseDir: '/', name: 'api' });
  const opened = await httpSource.open(
    { baseUrl: `${upstream.origin}/api`, auth: { bearer: 'secret-token-1234' } },
    ctx,
  );
  assert.ok(opened, JSON.stringify(ctx.errors));
  source = opened;
});
after(async () => {
  await source.dispose();
  await upstream.close();
});

async function call(config: Omit<HttpToolConfig, 'kind' | 'source'>, args: Record<string, unknown>) {
  const ctx = testContext({ baseDir: '/', name: 'tool', sources: { api: source.capabilities } });
  const tool = httpTool.compile({ kind: 'http', source: 'api', ...config }, ctx);
  assert.ok(tool, JSON.stringify(ctx.errors));
  const before = upstream.seen.length;
  const result = await tool.run(args, callContext());
  return { result, arrived: upstream.seen.slice(before) };
}

const text = (r: ToolResult) => (r.content[0] as { text: string }).text;
const host = () => new URL(upstream.origin).host;

const PATH_ATTACKS = [
  'a/b',
  '../../admin',
  '..%2F..%2Fadmin',
  '%2F',
  'x?admin=true',
  'x#fragment',
  '@evil.example',
  'user@evil.example:80',
  '//evil.example/x',
  'http://evil.example/',
  'a\r\nHost: evil.example',
  '\\..\\..\\windows',
  ' ',
];

test('path values never change the host, never add a segment, never start a query or fragment', async () => {
  const config = {
    path: '/repos/{owner}/issues/{number}',
    query: {},
    input: { owner: { type: 'string' }, number: { type: 'string' } },
  };
  for (const attack of PATH_ATTACKS) {
    const { result, arrived } = await call(config, { owner: attack, number: attack });
    assert.equal(result.isError, undefined, `${attack}: ${text(result)}`);
    assert.equal(arrived.length, 1, attack);
    const seen = arrived[0]!;
    assert.equal(seen.headers.host, host(), attack);
    const segments = seen.url.split('/');
    assert.deepEqual(segments.slice(0, 3), ['', 'api', 'repos'], attack);
    assert.equal(segments.length, 6, `${attack}: ${seen.url}`);
    assert.equal(segments[4], 'issues');
    assert.ok(!seen.url.includes('?') && !seen.url.includes('#'), seen.url);
    // Decoding the segment gives back exactly the value: it travelled as data.
    assert.equal(decodeURIComponent(segments[3]!), attack);
    assert.equal(decodeURIComponent(segments[5]!), attack);
  }
});

test('"." and ".." as a whole path value are refused before anything is sent', async () => {
  for (const attack of ['.', '..']) {
    const { result, arrived } = await call(
      { path: '/files/{name}/raw', input: { name: { type: 'string' } } },
      { name: attack },
    );
    assert.equal(result.isError, true);
    assert.match(text(result), new RegExp(`may not make the path segment "${attack.replace(/\./g, '\\.')}"`));
    assert.equal(arrived.length, 0);
  }
});

test('CR or LF in a header value is refused and nothing is sent', async () => {
  for (const attack of ['a\r\nX-Injected: 1', 'a\nX-Injected: 1', 'a\rb', 'a\0b']) {
    const { result, arrived } = await call(
      { path: '/h', headers: { 'X-Trace': 'id-{{trace}}' }, input: { trace: { type: 'string' } } },
      { trace: attack },
    );
    assert.equal(result.isError, true, JSON.stringify(attack));
    assert.equal(
      text(result),
      'GET /api/h refused: the value for the X-Trace header contains a line break or NUL.',
    );
    assert.equal(arrived.length, 0);
  }
});

const JSON_ATTACKS = [
  '"}, "admin": true, "x": {"',
  '\\", "admin": true, "',
  '</script><script>alert(1)</script>',
  '{{title}}',
  '\u2028\u2029\0',
  "' OR 1=1 --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a manifest env reference, sent as data.
  '${env:HOME}',
];

test('JSON-breaking strings in body values arrive as exactly that string', async () => {
  for (const attack of JSON_ATTACKS) {
    const { result, arrived } = await call(
      {
        method: 'POST',
        path: '/issues',
        body: { title: '{{title}}', nested: { note: 'by {{title}}' }, list: ['{{title}}'] },
        input: { title: { type: 'string' } },
      },
      { title: attack },
    );
    assert.equal(result.isError, undefined, text(result));
    const body = JSON.parse(arrived[0]!.body);
    assert.deepEqual(body, { title: attack, nested: { note: `by ${attack}` }, list: [attack] });
    assert.deepEqual(Object.keys(body), ['title', 'nested', 'list']);
  }
});

test('query and form values with & = # ? + arrive as exactly one parameter each', async () => {
  const attack = 'a&admin=true#x?y=1+2 %26';
  const { arrived } = await call({ path: '/q', input: { q: { type: 'string' } } }, { q: attack });
  const url = new URL(arrived[0]!.url, upstream.origin);
  assert.deepEqual([...url.searchParams], [['q', attack]]);
  const form = await call(
    { method: 'POST', path: '/f', bodyType: 'form', body: { q: '{{q}}' }, input: { q: { type: 'string' } } },
    { q: attack },
  );
  assert.deepEqual([...new URLSearchParams(form.arrived[0]!.body)], [['q', attack]]);
});

test('an argument cannot replace the source credentials through a header', async () => {
  const { arrived } = await call(
    { path: '/h', headers: { Authorization: '{{auth}}' }, input: { auth: { type: 'string' } } },
    { auth: 'Bearer stolen' },
  );
  assert.equal(arrived[0]!.headers.authorization, 'Bearer secret-token-1234');
});
