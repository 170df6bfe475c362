/** tools/call: results per era, progress and log gating, cancellation. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIXTURE_META, LOG_LEVEL, modern, setup, type TestClient, tick } from './harness.js';

async function ready(version = '2025-11-25'): Promise<TestClient> {
  const client = setup().client();
  await client.initialize(version);
  return client;
}

describe('tools/call results', () => {
  it('returns text and structured results as the tool gave them (legacy)', async () => {
    const client = await ready();
    const echo = await client.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    assert.deepEqual(echo.result, { content: [{ type: 'text', text: 'hi' }] });
    const add = await client.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } });
    assert.deepEqual(add.result, {
      content: [{ type: 'text', text: '{"sum":5}' }],
      structuredContent: { sum: 5 },
    });
  });

  it('passes isError results through and calls with {} when arguments are absent', async () => {
    const client = await ready();
    const response = await client.request('tools/call', { name: 'echo' });
    assert.equal(response.result.isError, true);
    assert.equal(response.error, undefined);
  });

  it('adds resultType and serverInfo but no ttl to modern call results', async () => {
    const client = setup().client();
    const response = await client.request('tools/call', modern({ name: 'add', arguments: { a: 1, b: 1 } }));
    assert.deepEqual(response.result, {
      resultType: 'complete',
      content: [{ type: 'text', text: '{"sum":2}' }],
      structuredContent: { sum: 2 },
      _meta: FIXTURE_META,
    });
  });
});

describe('progress', () => {
  it('is sent only with a progress token, strictly increasing, before the response', async () => {
    const client = await ready();
    await client.request('tools/call', { name: 'work', _meta: { progressToken: 'tok' } }, 'w');
    const progress = client.notifications('notifications/progress');
    assert.deepEqual(
      progress.map((n) => n.params),
      [
        { progressToken: 'tok', progress: 1, total: 3, message: 'started' },
        { progressToken: 'tok', progress: 2, total: 3 },
      ],
    );
    const responseIndex = client.sent.findIndex((m) => m.id === 'w');
    assert.ok(client.sent.indexOf(progress[1]) < responseIndex, 'progress precedes the response');
  });

  it('is not sent without a token', async () => {
    const client = await ready();
    await client.request('tools/call', { name: 'work' });
    assert.equal(client.notifications('notifications/progress').length, 0);
  });

  it('is dropped after the response', async () => {
    const client = await ready();
    await client.request('tools/call', { name: 'late', _meta: { progressToken: 7 } });
    await tick(20);
    assert.equal(client.notifications('notifications/progress').length, 0);
  });

  it('works for modern requests with a numeric token', async () => {
    const client = setup().client();
    await client.request('tools/call', modern({ name: 'work' }, { progressToken: 5 }));
    assert.deepEqual(
      client.notifications('notifications/progress').map((n) => n.params.progress),
      [1, 2],
    );
  });
});

describe('logs', () => {
  it('are sent at warning and above before logging/setLevel (legacy)', async () => {
    const client = await ready();
    await client.request('tools/call', { name: 'work' });
    assert.deepEqual(
      client.notifications('notifications/message').map((n) => n.params),
      [{ level: 'error', data: 'something failed' }],
    );
  });

  it('are sent at or above the level set with logging/setLevel', async () => {
    const client = await ready();
    assert.deepEqual((await client.request('logging/setLevel', { level: 'info' })).result, {});
    await client.request('tools/call', { name: 'work' });
    assert.deepEqual(
      client.notifications('notifications/message').map((n) => n.params),
      [
        { level: 'info', logger: 'worker', data: { step: 'middle' } },
        { level: 'error', data: 'something failed' },
      ],
    );
  });

  it('follow the per-request logLevel for modern requests only', async () => {
    const client = setup().client();
    await client.request('tools/call', modern({ name: 'work' }));
    assert.equal(client.notifications('notifications/message').length, 0, 'no logLevel, no logs');
    await client.request('tools/call', modern({ name: 'work' }, { [LOG_LEVEL]: 'error' }));
    assert.deepEqual(
      client.notifications('notifications/message').map((n) => n.params.level),
      ['error'],
    );
    await client.request('tools/call', modern({ name: 'work' }, { [LOG_LEVEL]: 'debug' }));
    assert.equal(client.notifications('notifications/message').length, 4);
  });
});

describe('cancellation', () => {
  it('aborts the signal and sends no response (legacy)', async () => {
    const { client: make, fixture } = setup();
    const client = make();
    await client.initialize();
    const pending = client.request('tools/call', { name: 'slow' }, 'c1');
    await tick();
    assert.equal(fixture.probe.slowStarted, 1);
    await client.notify('notifications/cancelled', { requestId: 'c1', reason: 'user' });
    const outcome = await pending;
    assert.equal(fixture.probe.slowAborted, 1, 'the tool saw the abort');
    assert.equal(outcome, undefined, 'no response for a cancelled request');
    assert.equal(client.sent.filter((m) => m.id === 'c1').length, 0);
    assert.deepEqual((await client.request('ping', undefined, 'c1')).result, {}, 'the id may be reused');
  });

  it('sends no response even though the tool returns a result after the cancel (modern)', async () => {
    const { client: make, fixture } = setup();
    const client = make();
    const pending = client.send({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: modern({ name: 'slow' }),
    });
    await tick();
    assert.equal(fixture.probe.slowStarted, 1);
    await client.notify('notifications/cancelled', { requestId: 9 });
    const outcome = await pending;
    assert.equal(outcome.kind, 'silent');
    assert.equal(client.responseTo(9), undefined);
  });

  it('ignores cancels for unknown or finished ids', async () => {
    const client = await ready();
    await client.request('tools/call', { name: 'echo', arguments: { text: 'x' } }, 'done');
    const before = client.sent.length;
    await client.notify('notifications/cancelled', { requestId: 'done' });
    await client.notify('notifications/cancelled', { requestId: 12345 });
    await client.notify('notifications/cancelled', {});
    assert.equal(client.sent.length, before);
  });

  it('connection.close() aborts in-flight calls without answering them', async () => {
    const { client: make, fixture } = setup();
    const client = make();
    await client.initialize();
    const pending = client.request('tools/call', { name: 'slow' }, 'x');
    await tick();
    client.connection.close();
    await pending;
    assert.equal(fixture.probe.slowAborted, 1);
    assert.equal(client.responseTo('x'), undefined);
    assert.equal((await client.send({ jsonrpc: '2.0', id: 'y', method: 'ping' })).kind, 'silent');
    assert.equal(client.responseTo('y'), undefined, 'a closed connection answers nothing');
  });
});
