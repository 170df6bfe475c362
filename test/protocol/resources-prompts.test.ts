/** resources/read, prompts/get and completion/complete in both eras. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { modern, setup, type TestClient } from './harness.js';

async function legacy(): Promise<TestClient> {
  const client = setup().client();
  await client.initialize();
  return client;
}

describe('resources/read', () => {
  it('reads a static resource, then a template match', async () => {
    const client = await legacy();
    const read = await client.request('resources/read', { uri: 'test://static' });
    assert.deepEqual(read.result, {
      contents: [{ uri: 'test://static', mimeType: 'text/plain', text: 'static text' }],
    });
    const item = await client.request('resources/read', { uri: 'test://items/beta' });
    assert.deepEqual(item.result.contents, [{ uri: 'test://items/beta', text: 'item beta' }]);
  });

  it('answers not-found with -32002 and {uri} in the legacy era', async () => {
    const client = await legacy();
    for (const uri of ['test://nowhere', 'test://items/missing']) {
      const response = await client.request('resources/read', { uri });
      assert.equal(response.error.code, -32002, uri);
      assert.deepEqual(response.error.data, { uri });
    }
  });

  it('answers not-found with -32602 and {uri} in the 2026 era, never -32002', async () => {
    const client = setup().client();
    for (const uri of ['test://nowhere', 'test://items/missing']) {
      const response = await client.request('resources/read', modern({ uri }));
      assert.equal(response.error.code, -32602, uri);
      assert.deepEqual(response.error.data, { uri });
      assert.equal(response.result, undefined);
    }
  });

  it('maps InvalidRequestParams to -32602 and other failures to -32603 with the message', async () => {
    const client = await legacy();
    const bad = await client.request('resources/read', { uri: 'test://items/bad' });
    assert.equal(bad.error.code, -32602);
    assert.match(bad.error.message, /not allowed/);
    const broken = await client.request('resources/read', { uri: 'test://broken' });
    assert.equal(broken.error.code, -32603);
    assert.equal(broken.error.message, 'disk on fire');
  });

  it('decorates a modern read as cacheable', async () => {
    const client = setup().client();
    const read = await client.request('resources/read', modern({ uri: 'test://static' }));
    assert.equal(read.result.resultType, 'complete');
    assert.equal(read.result.ttlMs, 60000);
    assert.equal(read.result.cacheScope, 'public');
    assert.equal(read.result.contents[0].text, 'static text');
  });
});

describe('prompts/get', () => {
  it('renders a prompt with its arguments', async () => {
    const client = await legacy();
    const response = await client.request('prompts/get', { name: 'greet', arguments: { name: 'Ada' } });
    assert.deepEqual(response.result, {
      description: 'A greeting',
      messages: [{ role: 'user', content: { type: 'text', text: 'Hello Ada' } }],
    });
  });

  it('answers a missing required argument and an unknown prompt with -32602', async () => {
    const client = setup().client();
    const missing = await client.request('prompts/get', modern({ name: 'greet' }));
    assert.equal(missing.error.code, -32602);
    assert.match(missing.error.message, /Missing required argument: name/);
    const unknown = await client.request('prompts/get', modern({ name: 'nope' }));
    assert.equal(unknown.error.code, -32602);
    assert.equal(unknown.error.message, 'Unknown prompt: nope');
  });

  it('decorates a modern prompt result without ttl', async () => {
    const client = setup().client();
    const response = await client.request('prompts/get', modern({ name: 'many' }));
    assert.equal(response.result.resultType, 'complete');
    assert.equal(response.result.ttlMs, undefined);
    assert.deepEqual(response.result.messages, []);
  });
});

describe('completion/complete', () => {
  const complete = (ref: object, name: string, value: string, context?: object) => ({
    ref,
    argument: { name, value },
    ...(context === undefined ? {} : { context }),
  });

  it('completes prompt arguments, passing the context arguments', async () => {
    const client = await legacy();
    const plain = await client.request(
      'completion/complete',
      complete({ type: 'ref/prompt', name: 'greet' }, 'name', 'a'),
    );
    assert.deepEqual(plain.result, { completion: { values: ['ada', 'alan'], total: 2, hasMore: false } });
    const styled = await client.request(
      'completion/complete',
      complete({ type: 'ref/prompt', name: 'greet' }, 'name', 'g', { arguments: { style: 'loud' } }),
    );
    assert.deepEqual(styled.result.completion.values, ['grace!']);
  });

  it('completes template variables', async () => {
    const client = setup().client();
    const response = await client.request(
      'completion/complete',
      modern(complete({ type: 'ref/resource', uri: 'test://items/{id}' }, 'id', 'g')),
    );
    assert.deepEqual(response.result.completion, { values: ['gamma'], total: 1, hasMore: false });
    assert.equal(response.result.resultType, 'complete');
  });

  it('caps values at 100 and says there are more', async () => {
    const client = await legacy();
    const response = await client.request(
      'completion/complete',
      complete({ type: 'ref/prompt', name: 'many' }, 'x', ''),
    );
    assert.equal(response.result.completion.values.length, 100);
    assert.equal(response.result.completion.total, 150);
    assert.equal(response.result.completion.hasMore, true);
  });

  it('answers unknown prompts, templates and ref types with -32602', async () => {
    const client = await legacy();
    for (const ref of [
      { type: 'ref/prompt', name: 'nope' },
      { type: 'ref/resource', uri: 'test://static' },
      { type: 'ref/other' },
    ]) {
      const response = await client.request('completion/complete', complete(ref, 'x', ''));
      assert.equal(response.error.code, -32602, JSON.stringify(ref));
    }
    const badContext = await client.request(
      'completion/complete',
      complete({ type: 'ref/prompt', name: 'greet' }, 'name', '', { arguments: { style: 1 } }),
    );
    assert.equal(badContext.error.code, -32602);
  });
});
