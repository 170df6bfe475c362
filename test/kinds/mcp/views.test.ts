/**
 * An upstream's MCP Apps views as data (kinds/mcp/views.ts, relay.ts): the served URI's rule, a
 * tool's view read from either key, a page's `_meta.ui` checked field by field and bounded, and a
 * result's `_meta` relayed without reserved keys, redacted and bounded. The end-to-end side, with
 * the real server-basic-vanillajs, is test/e2e/mcp-upstream-views.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_RESULT_META_BYTES, toolResult } from '../../../src/kinds/mcp/relay.js';
import { toolViewOf, viewMetaOf, viewUriRule } from '../../../src/kinds/mcp/views.js';

test('a view URI is rewritten under a prefix only, and only a ui:// one is a view', () => {
  const prefixed = viewUriRule('clock', 'clock_');
  assert.equal(prefixed('ui://get-time/mcp-app.html'), 'ui://clock_~clock/get-time/mcp-app.html');
  assert.equal(prefixed('ui://dashboard'), 'ui://clock_~clock/dashboard');
  const same = viewUriRule('clock', undefined);
  assert.equal(same('ui://get-time/mcp-app.html'), 'ui://get-time/mcp-app.html');
  assert.equal(viewUriRule('clock', '')('ui://a/b'), 'ui://a/b');
  for (const uri of ['https://x/y', 'ui://', 'ui://a b', 'ui://a\u001b[31m', `ui://${'a'.repeat(2050)}`])
    assert.equal(prefixed(uri), undefined, JSON.stringify(uri.slice(0, 20)));
});

test("a tool's view: _meta.ui.resourceUri, else the flat key; visibility of the spec's words only", () => {
  assert.deepEqual(toolViewOf({ ui: { resourceUri: 'ui://a/b' } }), { uri: 'ui://a/b' });
  assert.deepEqual(toolViewOf({ 'ui/resourceUri': 'ui://a/b' }), { uri: 'ui://a/b' });
  assert.deepEqual(toolViewOf({ ui: { resourceUri: 'ui://new' }, 'ui/resourceUri': 'ui://old' }), {
    uri: 'ui://new',
  });
  assert.deepEqual(toolViewOf({ ui: { resourceUri: 'ui://a', visibility: ['app', 'root', 7] } }), {
    uri: 'ui://a',
    visibility: ['app'],
  });
  // A tool only views call may have no page of its own.
  assert.deepEqual(toolViewOf({ ui: { visibility: ['app'] } }), { visibility: ['app'] });
  assert.equal(toolViewOf({ ui: { resourceUri: 42 } }), undefined);
  assert.equal(toolViewOf('ui://a'), undefined);
  assert.equal(toolViewOf(undefined), undefined);
});

test("a page's _meta.ui keeps the spec's fields of the right type, bounded; nothing else", () => {
  const many = Array.from({ length: 100 }, (_, i) => `https://h${i}.example.com`);
  const checked = viewMetaOf({
    ui: {
      csp: {
        connectDomains: ['https://a.example.com', "https://b.example.com 'unsafe-eval'", 'x;y', 'a,b', null],
        resourceDomains: many,
        frameDomains: 'https://not-a-list.example.com',
        scriptDomains: ['https://invented.example.com'],
      },
      permissions: { geolocation: {}, microphone: 'yes', admin: {} },
      domain: 'bad domain',
      prefersBorder: 'true',
      theme: 'dark',
    },
    other: 1,
  });
  assert.deepEqual(checked, {
    ui: {
      csp: { connectDomains: ['https://a.example.com'], resourceDomains: many.slice(0, 64) },
      permissions: { geolocation: {} },
    },
  });
  assert.equal(viewMetaOf({ ui: { theme: 'dark' } }), undefined);
  assert.equal(viewMetaOf({ other: 1 }), undefined);
  assert.equal(viewMetaOf('ui'), undefined);
});

test("a result's _meta: reserved keys out, credentials redacted, too large dropped whole", () => {
  const redact = (text: string) => text.split('s3cret').join('***');
  const result = toolResult(
    {
      content: [{ type: 'text', text: 'ok' }],
      _meta: {
        state: { token: 's3cret' },
        'io.modelcontextprotocol/related-task': { taskId: 't' },
        'modelcontextprotocol.io/x': 1,
        'tools.mcp.example/y': 1,
        'mcp-run/contract': 'spoofed',
        'com.example/kept': true,
      },
    },
    redact,
  );
  assert.deepEqual(result._meta, { state: { token: '***' }, 'com.example/kept': true });
  const big = toolResult(
    { content: [{ type: 'text', text: 'ok' }], _meta: { blob: 'x'.repeat(MAX_RESULT_META_BYTES) } },
    redact,
  );
  assert.equal(big._meta, undefined);
  assert.deepEqual(big.content, [{ type: 'text', text: 'ok' }]);
  assert.equal(
    toolResult({ content: [], _meta: { 'io.modelcontextprotocol/only': 1 } }, redact)._meta,
    undefined,
  );
});
