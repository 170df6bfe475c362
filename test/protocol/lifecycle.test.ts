/** Era handling: legacy initialize and batches, 2026 discover, envelope checks, removed methods. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CAPS, FIXTURE_META, type Json, MODERN, modern, PV, setup } from './harness.js';

const SUPPORTED = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

describe('legacy lifecycle', () => {
  for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
    it(`echoes the requested version ${version}`, async () => {
      const result = await setup().client().initialize(version);
      assert.equal(result.protocolVersion, version);
    });
  }

  it('offers its own latest legacy version for an unsupported one', async () => {
    const client = setup().client();
    assert.equal((await client.initialize('1999-01-01')).protocolVersion, '2025-11-25');
    assert.equal((await setup().client().initialize(MODERN)).protocolVersion, '2025-11-25');
    const next = await client.request('ping');
    assert.deepEqual(next.result, {}, 'serves the next request');
  });

  it('returns capabilities, serverInfo and instructions', async () => {
    const result = await setup({ listChanged: true }).client().initialize();
    assert.deepEqual(result.capabilities, {
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    });
    assert.deepEqual(result.serverInfo, { name: 'fixture', version: '1.2.3', title: 'Fixture Server' });
    assert.equal(result.instructions, 'Use the tools.');
    const older = await setup().client().initialize('2025-06-18');
    assert.equal(older.capabilities.tasks, undefined, 'tasks exist in the 2025-11-25 core only');
    const quiet = await setup({ listChanged: false }).client().initialize();
    assert.equal(quiet.capabilities.tools.listChanged, false);
    assert.deepEqual(
      quiet.capabilities.resources,
      { listChanged: false },
      'no subscribe: nothing is watched',
    );
  });

  it('refuses initialize without a protocolVersion with -32602', async () => {
    const client = setup().client();
    const response = await client.request('initialize', { capabilities: {} });
    assert.equal(response.error.code, -32602);
  });

  it('refuses requests before initialize with -32600 that explains both eras, then serves', async () => {
    const client = setup().client();
    const response = await client.request('tools/list', {});
    assert.equal(response.error.code, -32600);
    assert.match(response.error.message, /send "initialize" first/);
    assert.match(response.error.message, /_meta envelope/);
    const unknown = await client.request('made/up', {});
    assert.equal(unknown.error.code, -32600);
    await client.initialize();
    assert.ok((await client.request('tools/list', {})).result.tools.length > 0);
  });

  it('answers ping before initialize (the spec allows it)', async () => {
    const client = setup().client();
    assert.deepEqual((await client.request('ping')).result, {});
  });

  it('restarts the session on a second initialize', async () => {
    const client = setup().client();
    await client.initialize('2025-06-18');
    await client.request('logging/setLevel', { level: 'debug' });
    await client.request('resources/subscribe', { uri: 'test://static' });
    assert.equal((await client.initialize('2025-03-26')).protocolVersion, '2025-03-26');
    await client.request('tools/call', { name: 'work' });
    assert.deepEqual(
      client.notifications('notifications/message').map((n) => n.params.level),
      ['error'],
      'the log level was reset to the default, warning',
    );
  });
});

describe('batches', () => {
  it('are answered with an array on a 2025-03-26 connection', async () => {
    const client = setup().client();
    await client.initialize('2025-03-26');
    const outcome = await client.send([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
      { jsonrpc: '2.0', id: 3, method: 'nope' },
      { jsonrpc: '2.0', id: 4, method: 'initialize', params: { protocolVersion: '2025-03-26' } },
    ]);
    const reply = client.sent.at(-1);
    assert.ok(Array.isArray(reply));
    assert.equal(outcome.status, 200);
    const byId = new Map<number, Json>(reply.map((r: Json) => [r.id, r]));
    assert.equal(reply.length, 4, 'one response per request, none for the notification');
    assert.deepEqual(byId.get(1).result, {});
    assert.equal(byId.get(2).result.content[0].text, 'hi');
    assert.equal(byId.get(3).error.code, -32601);
    assert.equal(byId.get(4).error.code, -32600, 'initialize is refused inside a batch');
  });

  it('refuses 2026 requests inside a batch', async () => {
    const client = setup().client();
    await client.initialize('2025-03-26');
    await client.send([{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: modern() }]);
    assert.equal(client.sent.at(-1)[0].error.code, -32600);
  });

  for (const version of ['2024-11-05', '2025-06-18', '2025-11-25']) {
    it(`are refused with -32600 on a ${version} connection`, async () => {
      const client = setup().client();
      await client.initialize(version);
      await client.send([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
      const reply = client.sent.at(-1);
      assert.equal(reply.error.code, -32600);
      // The batch has no one id: null before 2025-11-25, left out from it on (docs/clients.md).
      if (version < '2025-11-25') assert.equal(reply.id, null);
      else assert.equal('id' in reply, false);
    });
  }

  it('answers an empty batch with -32600', async () => {
    const client = setup().client();
    await client.initialize('2025-03-26');
    await client.send([]);
    assert.equal(client.sent.at(-1).error.code, -32600);
  });
});

describe('2026-07-28 era', () => {
  it('serves server/discover without initialize', async () => {
    const client = setup({ listChanged: true }).client();
    const response = await client.request('server/discover', modern());
    assert.deepEqual(response.result, {
      resultType: 'complete',
      supportedVersions: SUPPORTED,
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
        extensions: { 'io.modelcontextprotocol/tasks': {} },
      },
      instructions: 'Use the tools.',
      ttlMs: 60000,
      cacheScope: 'public',
      _meta: FIXTURE_META,
    });
  });

  it('uses the static ttl when the manifest is not watched, or the configured one', async () => {
    const staticTtl = await setup({ listChanged: false }).client().request('server/discover', modern());
    assert.equal(staticTtl.result.ttlMs, 3600000);
    const custom = await setup({ ttlMs: 5 }).client().request('tools/list', modern());
    assert.equal(custom.result.ttlMs, 5);
  });

  it('does not require clientInfo', async () => {
    const response = await setup().client().request('tools/list', modern());
    assert.equal(response.result.resultType, 'complete');
  });

  it('refuses a missing envelope field with -32602 (HTTP 400)', async () => {
    const client = setup().client();
    for (const meta of [
      { [PV]: MODERN },
      { [CAPS]: {} },
      { [PV]: 7, [CAPS]: {} },
      { [PV]: MODERN, [CAPS]: 'x' },
    ]) {
      const outcome = await client.send({
        jsonrpc: '2.0',
        id: 'e',
        method: 'tools/list',
        params: { _meta: meta },
      });
      const response = client.sent.at(-1);
      assert.equal(response.id, 'e');
      assert.equal(response.error.code, -32602, JSON.stringify(meta));
      assert.match(response.error.message, /missing _meta envelope field/);
      assert.equal(outcome.status, 400);
    }
    assert.equal((await client.request('tools/list', modern())).result.resultType, 'complete');
  });

  it('refuses server/discover and subscriptions/listen without an envelope, even after initialize', async () => {
    const client = setup().client();
    await client.initialize();
    for (const method of ['server/discover', 'subscriptions/listen']) {
      const response = await client.request(method, {});
      assert.equal(response.error.code, -32602, method);
      assert.match(response.error.message, /missing _meta envelope field/);
    }
  });

  it('refuses an unsupported version with -32022 and the supported list', async () => {
    const client = setup().client();
    const outcome = await client.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'server/discover',
      params: { _meta: { [PV]: '1900-01-01', [CAPS]: {} } },
    });
    const response = client.responseTo(3);
    assert.equal(response.error.code, -32022);
    assert.deepEqual(response.error.data, { supported: SUPPORTED, requested: '1900-01-01' });
    assert.equal(outcome.status, 400);
    const legacyInEnvelope = await client.request('tools/list', {
      _meta: { [PV]: '2025-11-25', [CAPS]: {} },
    });
    assert.equal(legacyInEnvelope.error.code, -32022);
    assert.equal((await client.request('server/discover', modern())).result.resultType, 'complete');
  });

  it('refuses an invalid logLevel with -32602', async () => {
    const client = setup().client();
    const response = await client.request(
      'tools/list',
      modern({}, { 'io.modelcontextprotocol/logLevel': 'loud' }),
    );
    assert.equal(response.error.code, -32602);
  });

  for (const [method, params] of [
    ['initialize', { protocolVersion: MODERN }],
    ['ping', {}],
    ['logging/setLevel', { level: 'debug' }],
    ['resources/subscribe', { uri: 'test://static' }],
    ['resources/unsubscribe', { uri: 'test://static' }],
    ['no/such/method', {}],
  ] as const) {
    it(`answers ${method} with -32601 and a 404 hint`, async () => {
      const client = setup().client();
      const outcome = await client.send({ jsonrpc: '2.0', id: 'm', method, params: modern(params) });
      const response = client.responseTo('m');
      assert.equal(response.error.code, -32601);
      assert.equal(outcome.status, 404);
      assert.equal(outcome.era, 'modern');
      assert.equal((await client.request('tools/list', modern())).result.resultType, 'complete');
    });
  }

  it('mixes eras on one connection without sharing state', async () => {
    const client = setup().client();
    const modernFirst = await client.request('tools/list', modern());
    assert.equal(modernFirst.result.resultType, 'complete');
    await client.initialize('2025-06-18');
    await client.request('logging/setLevel', { level: 'debug' });
    const legacy = await client.request('tools/list', {});
    assert.equal(legacy.result.resultType, undefined, 'legacy results carry no 2026 fields');
    assert.equal(legacy.result.ttlMs, undefined);
    const before = client.notifications('notifications/message').length;
    await client.request('tools/call', modern({ name: 'work' }));
    assert.equal(client.notifications('notifications/message').length, before, 'modern ignores setLevel');
  });
});
