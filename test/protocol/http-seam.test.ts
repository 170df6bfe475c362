/**
 * The seam an HTTP transport uses: per-request routes, HTTP status hints on outcomes, the
 * MCP-Protocol-Version header hint, and cancellation by aborting the route's signal.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CAPS, LOG_LEVEL, MODERN, modern, PV, recordingRoute, SUB_ID, setup, tick } from './harness.js';

const request = (id: number | string, method: string, params: object) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

describe('request routes', () => {
  it('deliver a request’s progress, logs and response to its own route, not to the connection', async () => {
    const client = setup().client();
    const route = recordingRoute();
    const params = modern({ name: 'work' }, { progressToken: 1, [LOG_LEVEL]: 'error' });
    const outcome = await client.send(request(1, 'tools/call', params), route);
    assert.deepEqual(outcome, { kind: 'answered', status: 200, era: 'modern' });
    assert.deepEqual(
      route.notes.map((n) => n.method),
      ['notifications/progress', 'notifications/progress', 'notifications/message'],
    );
    assert.equal(route.responses.length, 1);
    assert.equal(route.responses[0]!.status, 200);
    assert.equal(route.responses[0]!.message.result.content[0].text, 'worked');
    assert.equal(client.sent.length, 0, 'nothing on the standing channel');
  });

  it('keep a listen stream on its route, apart from other requests’ progress', async () => {
    const { protocol, client: make } = setup();
    const client = make();
    const listenRoute = recordingRoute();
    const outcome = await client.send(
      request('L', 'subscriptions/listen', modern({ notifications: { toolsListChanged: true } })),
      listenRoute,
    );
    assert.deepEqual(outcome, { kind: 'subscribed', status: 200, era: 'modern' });
    const callRoute = recordingRoute();
    await client.send(request(2, 'tools/call', modern({ name: 'work' }, { progressToken: 't' })), callRoute);
    protocol.notifyListChanged(new Set(['tools']));
    assert.deepEqual(
      listenRoute.notes.map((n) => n.method),
      ['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed'],
    );
    assert.equal(callRoute.notes.length, 2, 'progress stays on the call’s own route');
    protocol.close();
    assert.equal(listenRoute.responses[0]!.message.result._meta[SUB_ID], 'L');
    assert.equal(listenRoute.responses[0]!.status, 200);
  });

  it('cancel the request when the route’s signal aborts (a closed HTTP stream)', async () => {
    const { client: make, fixture } = setup();
    const client = make();
    const controller = new AbortController();
    const route = recordingRoute({ signal: controller.signal });
    const pending = client.send(request(5, 'tools/call', modern({ name: 'slow' })), route);
    await tick();
    controller.abort();
    const outcome = await pending;
    assert.equal(outcome.kind, 'silent');
    assert.equal(fixture.probe.slowAborted, 1);
    assert.equal(route.responses.length, 0);
  });

  it('drop a listen stream when its route’s signal aborts', async () => {
    const { protocol, client: make } = setup();
    const client = make();
    const controller = new AbortController();
    const route = recordingRoute({ signal: controller.signal });
    await client.send(
      request('L', 'subscriptions/listen', modern({ notifications: { toolsListChanged: true } })),
      route,
    );
    controller.abort();
    protocol.notifyListChanged(new Set(['tools']));
    protocol.close();
    assert.equal(route.notes.length, 1, 'only the acknowledgement');
    assert.equal(route.responses.length, 0);
  });

  it('never receive unsolicited legacy notifications, which use the standing channel', async () => {
    const { protocol, client: make } = setup();
    const client = make();
    const route = recordingRoute();
    await client.send(request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {} }), route);
    await client.notify('notifications/initialized');
    protocol.notifyListChanged(new Set(['prompts']));
    assert.equal(route.responses[0]!.message.result.protocolVersion, '2025-06-18');
    assert.equal(route.notes.length, 0);
    assert.deepEqual(
      client.notifications().map((n) => n.method),
      ['notifications/prompts/list_changed'],
    );
  });
});

describe('HTTP status hints', () => {
  const cases: [string, unknown, number, number][] = [
    ['a parse error', '{', -32700, 400],
    ['a missing envelope field', request(1, 'tools/list', { _meta: { [PV]: MODERN } }), -32602, 400],
    [
      'an unsupported modern version',
      request(1, 'tools/list', { _meta: { [PV]: '1900-01-01', [CAPS]: {} } }),
      -32022,
      400,
    ],
    ['a removed method', request(1, 'ping', modern()), -32601, 404],
    ['an unknown modern method', request(1, 'x/y', modern()), -32601, 404],
    ['an unknown tool (modern, in-band)', request(1, 'tools/call', modern({ name: 'zz' })), -32602, 200],
    [
      'a modern resource not found (in-band)',
      request(1, 'resources/read', modern({ uri: 'test://zz' })),
      -32602,
      200,
    ],
  ];
  for (const [name, message, code, status] of cases) {
    it(`${name}: ${code} → ${status}`, async () => {
      const client = setup().client();
      const route = recordingRoute();
      const outcome = await client.connection.receive(
        typeof message === 'string' ? message : JSON.stringify(message),
        route,
      );
      assert.equal(outcome.status, status);
      assert.equal(route.responses[0]!.status, status);
      assert.equal(route.responses[0]!.message.error.code, code);
    });
  }

  it('legacy in-band errors are 200', async () => {
    const client = setup().client();
    await client.initialize();
    for (const [method, params] of [
      ['x/y', {}],
      ['tools/call', { name: 'zz' }],
      ['resources/read', { uri: 'test://zz' }],
    ] as const) {
      const outcome = await client.send(request(1, method, params));
      assert.equal(outcome.status, 200, method);
      assert.equal(outcome.era, 'legacy');
    }
  });

  it('notifications and client responses are 202', async () => {
    const client = setup().client();
    assert.equal((await client.notify('notifications/initialized')).status, 202);
    assert.equal((await client.send({ jsonrpc: '2.0', id: 3, result: {} })).status, 202);
  });
});

describe('MCP-Protocol-Version header hint', () => {
  it('must match the envelope version (-32020, 400)', async () => {
    const client = setup().client();
    const route = recordingRoute({ protocolVersion: MODERN });
    const outcome = await client.send(
      request(1, 'tools/list', { _meta: { [PV]: 'v999', [CAPS]: {} } }),
      route,
    );
    assert.equal(outcome.status, 400);
    assert.equal(route.responses[0]!.message.error.code, -32020);
    const ok = recordingRoute({ protocolVersion: MODERN });
    await client.send(request(2, 'tools/list', modern()), ok);
    assert.equal(ok.responses[0]!.message.result.resultType, 'complete');
  });

  it('a modern header without an envelope is a missing envelope (-32602, 400)', async () => {
    const client = setup().client();
    const route = recordingRoute({ protocolVersion: MODERN });
    const outcome = await client.send(request(1, 'tools/list', {}), route);
    assert.equal(outcome.status, 400);
    assert.equal(route.responses[0]!.message.error.code, -32602);
  });

  it('an unknown header version without an envelope is -32022', async () => {
    const client = setup().client();
    const route = recordingRoute({ protocolVersion: '1900-01-01' });
    await client.send(request(1, 'tools/list', {}), route);
    assert.equal(route.responses[0]!.message.error.code, -32022);
    assert.equal(route.responses[0]!.message.error.data.requested, '1900-01-01');
  });

  it('a legacy header goes the legacy way; connect({legacyVersion}) serves without initialize', async () => {
    const { protocol, client: make } = setup();
    const uninitialized = make();
    const route = recordingRoute({ protocolVersion: '2025-06-18' });
    await uninitialized.send(request(1, 'tools/list', {}), route);
    assert.equal(route.responses[0]!.message.error.code, -32600);

    const sent: object[] = [];
    const sessionless = protocol.connect((m) => sent.push(m), { legacyVersion: '2025-06-18' });
    const served = recordingRoute({ protocolVersion: '2025-06-18' });
    await sessionless.receive(JSON.stringify(request(2, 'tools/list', {})), served);
    assert.equal(served.responses[0]!.message.result.tools.length, 2);
  });
});
