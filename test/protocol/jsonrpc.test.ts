/** JSON-RPC framing faults: each gets the right error, and the next request is still served. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setup, type TestClient } from './harness.js';

/** After a fault, a normal request on the same connection must still work. */
async function assertStillServing(client: TestClient): Promise<void> {
  const response = await client.request('tools/list', {});
  assert.ok(Array.isArray(response.result.tools), 'the connection keeps serving after a bad message');
}

async function ready(): Promise<TestClient> {
  const client = setup().client();
  await client.initialize();
  return client;
}

describe('JSON-RPC framing', () => {
  // On a 2025-11-25 connection a reply that cannot name its request leaves the id out (docs/clients.md).
  it('answers malformed JSON with -32700 and no id', async () => {
    const client = await ready();
    const outcome = await client.connection.receive('{"jsonrpc":"2.0","id":1,');
    const error = client.sent.at(-1);
    assert.equal('id' in error, false);
    assert.equal(error.error.code, -32700);
    assert.equal(outcome.status, 400);
    await assertStillServing(client);
  });

  const invalid: [string, unknown, unknown][] = [
    ['a non-object message', 42, undefined],
    ['a string message', '"hello"', undefined],
    ['a wrong jsonrpc version', { jsonrpc: '1.0', id: 7, method: 'ping' }, 7],
    ['a missing jsonrpc', { id: 8, method: 'ping' }, 8],
    ['a null id', { jsonrpc: '2.0', id: null, method: 'ping' }, undefined],
    ['an object id', { jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }, undefined],
    ['a fractional id', { jsonrpc: '2.0', id: 5.5, method: 'ping' }, undefined],
    ['a non-string method', { jsonrpc: '2.0', id: 9, method: 5 }, 9],
    ['a missing method', { jsonrpc: '2.0', id: 10 }, 10],
    ['a batch on a 2025-11-25 connection', [{ jsonrpc: '2.0', id: 11, method: 'ping' }], undefined],
  ];
  for (const [name, message, id] of invalid) {
    it(`answers ${name} with -32600 ${id === undefined ? 'and no id' : `echoing id ${id}`}`, async () => {
      const client = await ready();
      const before = client.sent.length;
      const raw = typeof message === 'string' ? message : JSON.stringify(message);
      await client.connection.receive(raw);
      assert.equal(client.sent.length, before + 1, 'exactly one reply');
      const reply = client.sent.at(-1);
      assert.equal(reply.error.code, -32600);
      assert.equal(reply.id, id);
      assert.equal('id' in reply, id !== undefined);
      await assertStillServing(client);
    });
  }

  it('accepts already-parsed messages', async () => {
    const client = await ready();
    await client.connection.receive({ jsonrpc: '2.0', id: 'p', method: 'ping' });
    assert.deepEqual(client.responseTo('p').result, {});
  });

  it('answers an unknown method with -32601 and echoes a string id', async () => {
    const client = await ready();
    const response = await client.request('nope/nothing', {}, 'abc');
    assert.equal(response.id, 'abc');
    assert.equal(response.error.code, -32601);
    await assertStillServing(client);
  });

  it('answers params that are not an object with -32602', async () => {
    const client = await ready();
    const response = await client.request('tools/list', [1, 2]);
    assert.equal(response.error.code, -32602);
    await assertStillServing(client);
  });

  it('answers invalid params with -32602', async () => {
    const client = await ready();
    for (const [method, params] of [
      ['tools/call', {}],
      ['tools/call', { name: 'echo', arguments: 'x' }],
      ['tools/call', { name: 'echo', arguments: null }],
      ['tools/call', { name: 'nope' }],
      ['resources/read', {}],
      ['prompts/get', { name: 'nope' }],
      ['prompts/get', { name: 'greet', arguments: { name: 5 } }],
      ['logging/setLevel', { level: 'loud' }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'greet' } }],
    ] as const) {
      const response = await client.request(method, params);
      assert.equal(response.error?.code, -32602, `${method} ${JSON.stringify(params)}`);
    }
    const unknown = await client.request('tools/call', { name: 'nope' });
    assert.equal(unknown.error.message, 'Unknown tool: nope');
    await assertStillServing(client);
  });

  it('turns a throwing handler into -32603 without leaking the message, and logs it', async () => {
    const { client: make, log } = setup();
    const client = make();
    await client.initialize();
    const response = await client.request('tools/call', { name: 'boom' });
    assert.equal(response.error.code, -32603);
    assert.doesNotMatch(response.error.message, /secret/);
    assert.ok(log.lines.some((line) => line.startsWith('error:') && line.includes('secret internal detail')));
    await assertStillServing(client);
  });

  it('never answers notifications, known or unknown', async () => {
    const client = await ready();
    const before = client.sent.length;
    const outcome = await client.notify('notifications/whatever', { x: 1 });
    await client.notify('notifications/initialized');
    await client.notify('notifications/cancelled', { requestId: 'unknown' });
    assert.equal(client.sent.length, before);
    assert.equal(outcome.kind, 'accepted');
    assert.equal(outcome.status, 202);
  });

  it('ignores inbound JSON-RPC responses quietly', async () => {
    const { client: make, log } = setup();
    const client = make();
    await client.initialize();
    const before = client.sent.length;
    const outcome = await client.send({ jsonrpc: '2.0', id: 99, result: {} });
    await client.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'x' } });
    assert.equal(client.sent.length, before);
    assert.equal(outcome.kind, 'accepted');
    assert.ok(
      log.lines.some((line) => line.startsWith('debug:') && line.includes('ignored a client response')),
    );
  });

  it('refuses a second request with an id that is still in flight', async () => {
    const { client: make, fixture } = setup();
    const client = make();
    await client.initialize();
    const first = client.request('tools/call', { name: 'slow' }, 'dup');
    await client.send({ jsonrpc: '2.0', id: 'dup', method: 'tools/list' });
    assert.equal(client.sent.at(-1).error.code, -32600);
    fixture.probe.releaseSlow[0]?.();
    await first;
    const replies = client.sent.filter((m) => m.id === 'dup');
    assert.equal(replies.length, 2);
    assert.equal(replies[1].result.content[0].text, 'finished', 'the original request still completes');
  });
});
