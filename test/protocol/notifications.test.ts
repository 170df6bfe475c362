/** Change notifications: legacy list_changed and resource subscriptions, 2026 listen streams. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIXTURE_META, modern, SUB_ID, setup, type TestClient } from './harness.js';

const ALL = new Set(['tools', 'prompts', 'resources'] as const);

async function listen(client: TestClient, id: string | number, notifications: object) {
  return client.send({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: modern({ notifications }),
  });
}

describe('legacy list_changed', () => {
  it('goes to initialized legacy connections only, when advertised', async () => {
    const { protocol, client: make } = setup({ listChanged: true });
    const ready = make();
    await ready.initialize();
    const notReady = make();
    await notReady.initialize('2025-11-25', false);
    const modernOnly = make();
    await modernOnly.request('tools/list', modern());
    const fresh = make();

    protocol.notifyListChanged(new Set(['tools', 'resources']));
    assert.deepEqual(
      ready.notifications().map((n) => n.method),
      ['notifications/tools/list_changed', 'notifications/resources/list_changed'],
    );
    assert.equal(ready.notifications()[0].params, undefined);
    assert.equal(notReady.notifications().length, 0, 'not before notifications/initialized');
    assert.equal(modernOnly.notifications().length, 0, 'never unsolicited to 2026 clients');
    assert.equal(fresh.notifications().length, 0);
  });

  it('is never sent when listChanged is not advertised', async () => {
    const { protocol, client: make } = setup({ listChanged: false });
    const client = make();
    await client.initialize();
    protocol.notifyListChanged(ALL);
    assert.equal(client.notifications().length, 0);
  });

  it('stops after the connection closes', async () => {
    const { protocol, client: make } = setup({ listChanged: true });
    const client = make();
    await client.initialize();
    client.connection.close();
    protocol.notifyListChanged(ALL);
    assert.equal(client.notifications().length, 0);
  });
});

describe('legacy resource subscriptions', () => {
  it('sends resources/updated to subscribers of that URI only, until unsubscribe', async () => {
    const { protocol, client: make } = setup();
    const subscriber = make();
    await subscriber.initialize();
    const other = make();
    await other.initialize();
    assert.deepEqual((await subscriber.request('resources/subscribe', { uri: 'test://static' })).result, {});
    await other.request('resources/subscribe', { uri: 'test://items/alpha' });

    protocol.notifyResourceUpdated('test://static');
    assert.deepEqual(
      subscriber.notifications('notifications/resources/updated').map((n) => n.params),
      [{ uri: 'test://static' }],
    );
    assert.equal(other.notifications().length, 0);

    assert.deepEqual(
      (await subscriber.request('resources/unsubscribe', { uri: 'test://static' })).result,
      {},
    );
    protocol.notifyResourceUpdated('test://static');
    assert.equal(subscriber.notifications('notifications/resources/updated').length, 1);
  });
});

describe('subscriptions/listen', () => {
  it('acknowledges first with the honoured filter, then sends tagged, requested types only', async () => {
    const { protocol, client: make } = setup({ listChanged: true });
    const client = make();
    const outcome = await listen(client, 'L1', {
      toolsListChanged: true,
      resourceSubscriptions: ['test://static'],
    });
    assert.equal(outcome.kind, 'subscribed');
    assert.deepEqual(client.sent[0], {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        _meta: { [SUB_ID]: 'L1' },
        notifications: { toolsListChanged: true, resourceSubscriptions: ['test://static'] },
      },
    });
    assert.equal(client.responseTo('L1'), undefined, 'no response while open');

    protocol.notifyListChanged(ALL);
    protocol.notifyResourceUpdated('test://other');
    protocol.notifyResourceUpdated('test://static');
    assert.deepEqual(client.sent.slice(1), [
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUB_ID]: 'L1' } } },
      {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: 'test://static', _meta: { [SUB_ID]: 'L1' } },
      },
    ]);
  });

  it('omits list-changed types when listChanged is not advertised, but keeps resource subscriptions', async () => {
    const { protocol, client: make } = setup({ listChanged: false, resourceUpdates: true });
    const client = make();
    await listen(client, 7, { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: [] });
    assert.deepEqual(client.sent[0].params.notifications, { resourceSubscriptions: [] });
    protocol.notifyListChanged(ALL);
    assert.equal(client.sent.length, 1);
  });

  it('keeps several subscriptions apart, each with its own id', async () => {
    const { protocol, client: make } = setup();
    const client = make();
    await listen(client, 'a', { promptsListChanged: true });
    await listen(client, 'b', { toolsListChanged: true, promptsListChanged: true });
    protocol.notifyListChanged(new Set(['prompts']));
    const tags = client
      .notifications('notifications/prompts/list_changed')
      .map((n) => n.params._meta[SUB_ID]);
    assert.deepEqual(tags.sort(), ['a', 'b']);
  });

  it('carries no progress or logs, and stays apart from other requests', async () => {
    const { protocol, client: make } = setup();
    const client = make();
    await listen(client, 'L', { toolsListChanged: true });
    await client.request('tools/call', modern({ name: 'work' }, { progressToken: 'p' }), 'call');
    for (const note of client.notifications('notifications/progress')) {
      assert.equal(note.params._meta, undefined, 'progress is never tagged with the subscription');
    }
    protocol.notifyListChanged(new Set(['tools']));
    assert.equal(client.notifications('notifications/tools/list_changed').length, 1);
  });

  it('ends silently on notifications/cancelled', async () => {
    const { protocol, client: make } = setup();
    const client = make();
    await listen(client, 'L', { toolsListChanged: true });
    await client.notify('notifications/cancelled', { requestId: 'L' });
    protocol.notifyListChanged(ALL);
    protocol.close();
    assert.equal(client.sent.length, 1, 'only the acknowledgement was ever sent');
  });

  it('ends with the final result on Protocol.close()', async () => {
    const { protocol, client: make } = setup();
    const client = make();
    await listen(client, 'L', { toolsListChanged: true });
    protocol.close();
    assert.deepEqual(client.responseTo('L'), {
      jsonrpc: '2.0',
      id: 'L',
      result: {
        resultType: 'complete',
        _meta: { ...FIXTURE_META, [SUB_ID]: 'L' },
      },
    });
    protocol.notifyListChanged(ALL);
    assert.equal(client.notifications('notifications/tools/list_changed').length, 0);
    await client.notify('notifications/cancelled', { requestId: 'L' });
    assert.equal(client.sent.length, 2, 'nothing after the final result');
  });

  it('is dropped without a result when its connection closes', async () => {
    const { protocol, client: make } = setup();
    const client = make();
    await listen(client, 'L', { toolsListChanged: true });
    client.connection.close();
    protocol.notifyListChanged(ALL);
    protocol.close();
    assert.equal(client.sent.length, 1);
  });

  it('refuses a malformed filter with -32602', async () => {
    const { client: make } = setup();
    const client = make();
    await client.send({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: modern({}) });
    assert.equal(client.responseTo(1).error.code, -32602);
    await listen(client, 2, { resourceSubscriptions: 'test://static' });
    assert.equal(client.responseTo(2).error.code, -32602);
  });
});
