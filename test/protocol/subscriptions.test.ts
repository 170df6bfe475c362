/**
 * What the protocol core promises about resource subscriptions, both eras: `resources.subscribe`
 * follows `resourceUpdates`, subscriptions are accepted only for resources that send updates, and
 * the 2026 acknowledgement lists only those.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { modern, setup } from './harness.js';

describe('resources.subscribe capability', () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`follows resourceUpdates, apart from listChanged (${era})`, async () => {
      const caps = async (options: { listChanged: boolean; resourceUpdates?: boolean }) => {
        const client = setup(options).client();
        if (era === 'legacy') return (await client.initialize()).capabilities.resources;
        return (await client.request('server/discover', modern())).result.capabilities.resources;
      };
      assert.deepEqual(await caps({ listChanged: true }), { subscribe: true, listChanged: true });
      assert.deepEqual(await caps({ listChanged: false }), { listChanged: false });
      assert.deepEqual(await caps({ listChanged: true, resourceUpdates: false }), { listChanged: true });
      assert.deepEqual(await caps({ listChanged: false, resourceUpdates: true }), {
        subscribe: true,
        listChanged: false,
      });
    });
  }
});

describe('resources/subscribe (2025)', () => {
  it('accepts a resource that sends updates', async () => {
    const client = setup().client();
    await client.initialize();
    assert.deepEqual((await client.request('resources/subscribe', { uri: 'test://static' })).result, {});
  });

  it('answers an unknown URI with -32002 and subscribes nothing', async () => {
    const { protocol, client: make } = setup();
    const client = make();
    await client.initialize();
    const { error } = await client.request('resources/subscribe', { uri: 'test://nowhere' });
    assert.equal(error.code, -32002);
    assert.deepEqual(error.data, { uri: 'test://nowhere' });
    protocol.notifyResourceUpdated('test://nowhere');
    assert.equal(client.notifications('notifications/resources/updated').length, 0);
  });

  it('refuses a URI that exists but sends no updates (a template match, a resource without updates)', async () => {
    const client = setup().client();
    await client.initialize();
    for (const uri of ['test://items/alpha', 'test://broken']) {
      const { error } = await client.request('resources/subscribe', { uri });
      assert.equal(error.code, -32602, uri);
      assert.match(error.message, /sends no updates/);
    }
  });

  it('is not available when resource updates are off, and nothing is ever sent', async () => {
    const { protocol, client: make } = setup({ resourceUpdates: false });
    const client = make();
    await client.initialize();
    for (const method of ['resources/subscribe', 'resources/unsubscribe']) {
      const { error } = await client.request(method, { uri: 'test://static' });
      assert.equal(error.code, -32601, method);
    }
    protocol.notifyResourceUpdated('test://static');
    assert.equal(client.notifications('notifications/resources/updated').length, 0);
  });
});

describe('subscriptions/listen acknowledgement (2026)', () => {
  const listen = (resourceSubscriptions: string[], resourceUpdates?: boolean) => {
    const { protocol, client: make } = setup(resourceUpdates === undefined ? {} : { resourceUpdates });
    const client = make();
    const sent = client.send({
      jsonrpc: '2.0',
      id: 'L',
      method: 'subscriptions/listen',
      params: modern({ notifications: { resourceSubscriptions } }),
    });
    return { protocol, client, sent };
  };

  it('lists only URIs whose updates will be sent; the others never reach the stream', async () => {
    const { protocol, client, sent } = listen([
      'test://nowhere',
      'test://items/alpha',
      'test://broken',
      'test://static',
      'test://static',
    ]);
    await sent;
    assert.deepEqual(client.sent[0].params.notifications, { resourceSubscriptions: ['test://static'] });
    for (const uri of ['test://nowhere', 'test://items/alpha', 'test://broken', 'test://static'])
      protocol.notifyResourceUpdated(uri);
    assert.deepEqual(
      client.notifications('notifications/resources/updated').map((n) => n.params.uri),
      ['test://static'],
    );
  });

  it('holds no resourceSubscriptions when resource updates are off', async () => {
    const { protocol, client, sent } = listen(['test://static'], false);
    await sent;
    assert.deepEqual(client.sent[0].params.notifications, {});
    protocol.notifyResourceUpdated('test://static');
    assert.equal(client.notifications('notifications/resources/updated').length, 0);
  });
});
