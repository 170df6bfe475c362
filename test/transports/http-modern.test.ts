/**
 * The 2026-07-28 HTTP transport: stateless POSTs, the routing-header checks (-32020), unsupported
 * versions (-32022), removed methods (404), listen streams with keep-alives, cancellation by closing
 * the response stream, and no sessions.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ACCEPT_BOTH,
  CAPS,
  MODERN,
  modernRequest,
  openStream,
  PV,
  post,
  postModern,
  ROUTED_TOOL,
  type Served,
  SUB_ID,
  send,
  startHttp,
} from './http-harness.js';

describe('modern requests', () => {
  let s: Served;
  before(async () => {
    s = await startHttp();
  });
  after(() => s.close());

  it('serves a request statelessly as JSON, with resultType, and never mints or echoes a session', async () => {
    const res = await postModern(
      s.url,
      1,
      'tools/call',
      { name: 'echo', arguments: { text: 'hi' } },
      { 'mcp-session-id': 'whatever' },
    );
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.json().result.resultType, 'complete');
    assert.equal(res.json().result.content[0].text, 'hi');
    assert.equal(res.headers['mcp-session-id'], undefined);
  });

  it('two clients may use the same request id at the same time', async () => {
    const slowDone = postModern(s.url, 1, 'tools/call', { name: 'slow' });
    while (s.fixture.probe.releaseSlow.length === 0) await sleep(5);
    const other = await postModern(s.url, 1, 'tools/call', { name: 'echo', arguments: { text: 'same id' } });
    assert.equal(other.json().result.content[0].text, 'same id');
    s.fixture.probe.releaseSlow.shift()!();
    assert.equal((await slowDone).json().result.content[0].text, 'finished');
  });

  it('streams progress and requested logs as SSE, response last', async () => {
    const { message, headers } = modernRequest(
      2,
      'tools/call',
      { name: 'work' },
      {
        progressToken: 7,
        'io.modelcontextprotocol/logLevel': 'error',
      },
    );
    const res = await post(s.url, message, headers);
    assert.match(String(res.headers['content-type']), /^text\/event-stream/);
    assert.equal(res.headers['x-accel-buffering'], 'no');
    assert.deepEqual(
      res.events().map((e) => e.method ?? e.id),
      ['notifications/progress', 'notifications/progress', 'notifications/message', 2],
    );
  });

  const mismatches: [string, Record<string, string | undefined>][] = [
    ['a missing MCP-Protocol-Version', { 'mcp-protocol-version': undefined }],
    ['a missing Mcp-Method', { 'mcp-method': undefined }],
    ['a Mcp-Method that differs from the body', { 'mcp-method': 'tools/list' }],
    ['a missing Mcp-Name', { 'mcp-name': undefined }],
    ['a Mcp-Name that differs from params.name', { 'mcp-name': 'add' }],
    ['a Mcp-Name differing only in case', { 'mcp-name': 'ECHO' }],
    [
      'a base64 Mcp-Name that decodes to another name',
      { 'mcp-name': `=?base64?${Buffer.from('add').toString('base64')}?=` },
    ],
    ['a broken base64 sentinel', { 'mcp-name': '=?base64?***?=' }],
    ['an MCP-Protocol-Version that differs from _meta', { 'mcp-protocol-version': '2025-11-25' }],
  ];
  for (const [name, overrides] of mismatches) {
    it(`-32020 and 400, keeping the id, for ${name}`, async () => {
      const res = await postModern(
        s.url,
        'req-9',
        'tools/call',
        { name: 'echo', arguments: { text: 'x' } },
        overrides,
      );
      assert.equal(res.status, 400, res.body);
      assert.equal(res.json().id, 'req-9');
      assert.equal(res.json().error.code, -32020);
    });
  }

  it('checks Mcp-Name against params.uri for resources/read and params.name for prompts/get', async () => {
    const read = await postModern(
      s.url,
      1,
      'resources/read',
      { uri: 'test://static' },
      { 'mcp-name': 'test://other' },
    );
    assert.equal(read.json().error.code, -32020);
    const readOk = await postModern(s.url, 2, 'resources/read', { uri: 'test://static' });
    assert.equal(readOk.json().result.contents[0].text, 'static text');
    const prompt = await postModern(
      s.url,
      3,
      'prompts/get',
      { name: 'greet', arguments: { name: 'a' } },
      { 'mcp-name': 'many' },
    );
    assert.equal(prompt.json().error.code, -32020);
  });

  it('decodes a base64 sentinel before comparing (a name with non-ASCII characters)', async () => {
    const uri = 'test://items/café';
    const res = await postModern(
      s.url,
      1,
      'resources/read',
      { uri },
      {
        'mcp-name': `=?base64?${Buffer.from(uri, 'utf8').toString('base64')}?=`,
      },
    );
    assert.equal(res.status, 200, res.body);
    assert.equal(res.json().result.contents[0].text, 'item café');
  });

  it('-32022 and 400 for an unsupported version, with the supported list', async () => {
    const message = {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/list',
      params: { _meta: { [PV]: '2099-01-01', [CAPS]: {} } },
    };
    const res = await post(s.url, message, {
      'mcp-protocol-version': '2099-01-01',
      'mcp-method': 'tools/list',
    });
    assert.equal(res.status, 400);
    assert.equal(res.json().error.code, -32022);
    assert.ok(res.json().error.data.supported.includes(MODERN));
    assert.equal(res.json().id, 4);
    const headerOnly = await post(
      s.url,
      { jsonrpc: '2.0', id: 5, method: 'tools/list' },
      { 'mcp-protocol-version': '2099-01-01' },
    );
    assert.equal(headerOnly.status, 400);
    assert.equal(headerOnly.json().error.code, -32022);
  });

  it('404 and -32601 for removed and unknown methods, keeping the id', async () => {
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'no/such']) {
      const res = await postModern(s.url, `id-${method}`, method);
      assert.equal(res.status, 404, method);
      assert.equal(res.json().error.code, -32601);
      assert.equal(res.json().id, `id-${method}`);
    }
  });

  it('400 and -32602 for a 2026 header on a body without the envelope', async () => {
    const res = await post(
      s.url,
      { jsonrpc: '2.0', id: 6, method: 'tools/list', params: {} },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
    );
    assert.equal(res.status, 400);
    assert.equal(res.json().error.code, -32602);
  });

  it('202 for a notification', async () => {
    const res = await post(
      s.url,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      { 'mcp-protocol-version': MODERN },
    );
    assert.equal(res.status, 202);
    assert.equal(res.body, '');
  });

  it('GET and DELETE without a 2025 session are 405', async () => {
    assert.equal(
      (
        await send(s.url, {
          method: 'GET',
          headers: { accept: 'text/event-stream', 'mcp-protocol-version': MODERN },
        })
      ).status,
      405,
    );
    assert.equal(
      (await send(s.url, { method: 'DELETE', headers: { 'mcp-protocol-version': MODERN } })).status,
      405,
    );
  });

  it('a plain request makes no protocol connection and no AbortController of its own', async () => {
    // Warm: the first request's connection goes back to the pool.
    assert.equal(
      (await postModern(s.url, 1, 'tools/call', { name: 'echo', arguments: { text: 'a' } })).status,
      200,
    );
    const Original = globalThis.AbortController;
    let controllers = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        controllers++;
      }
    };
    const connect = s.protocol.connect;
    let connections = 0;
    s.protocol.connect = (...args) => {
      connections++;
      return connect.apply(s.protocol, args);
    };
    try {
      for (let i = 0; i < 5; i++) {
        const res = await postModern(s.url, i + 2, 'tools/call', { name: 'echo', arguments: { text: 'b' } });
        assert.equal(res.json().result.content[0].text, 'b');
        assert.equal((await postModern(s.url, i + 2, 'tools/list')).status, 200);
      }
    } finally {
      globalThis.AbortController = Original;
      s.protocol.connect = connect;
    }
    assert.equal(connections, 0);
    assert.equal(controllers, 0);
  });
});

describe('subscriptions/listen over HTTP', () => {
  let s: Served;
  before(async () => {
    s = await startHttp({ keepAliveMs: 20 });
  });
  after(() => s.close());

  const listen = (id: string, notifications: object) => {
    const { message, headers } = modernRequest(id, 'subscriptions/listen', { notifications });
    return openStream(s.url, { body: JSON.stringify(message), headers });
  };

  it('acknowledges first, then sends tagged notifications of the requested types only, with keep-alives', async () => {
    const stream = await listen('L1', { toolsListChanged: true });
    assert.equal(stream.status, 200);
    assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
    const ack = await stream.next();
    assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
    assert.equal(ack.params._meta[SUB_ID], 'L1');
    s.protocol.notifyListChanged(new Set(['prompts']));
    s.protocol.notifyListChanged(new Set(['tools']));
    const changed = await stream.next();
    assert.equal(changed.method, 'notifications/tools/list_changed', 'prompts were not requested');
    assert.equal(changed.params._meta[SUB_ID], 'L1');
    while (stream.comments.length === 0) await sleep(10);
    assert.equal(stream.comments[0], 'keep-alive');
    stream.close();
    await stream.ended;
  });

  it('a closed listen stream is dropped (no notification reaches a dead stream)', async () => {
    const stream = await listen('L2', { toolsListChanged: true });
    await stream.next();
    stream.close();
    await stream.ended;
    await sleep(20);
    s.protocol.notifyListChanged(new Set(['tools']));
    assert.ok(!s.log.lines.some((l) => l.startsWith('error')), s.log.lines.join('\n'));
  });

  it('closing a call’s response stream cancels the call', async () => {
    const aborted = s.fixture.probe.slowAborted;
    const { message, headers } = modernRequest(9, 'tools/call', { name: 'slow' });
    const outgoing = request(s.url, {
      method: 'POST',
      agent: false,
      headers: { ...headers, accept: ACCEPT_BOTH, 'content-type': 'application/json' },
    });
    outgoing.on('error', () => {});
    outgoing.end(JSON.stringify(message));
    while (s.fixture.probe.releaseSlow.length === 0) await sleep(5);
    s.fixture.probe.releaseSlow.length = 0;
    outgoing.destroy();
    for (let i = 0; i < 200 && s.fixture.probe.slowAborted === aborted; i++) await sleep(10);
    assert.equal(s.fixture.probe.slowAborted, aborted + 1);
  });
});

describe('Mcp-Param-* headers for x-mcp-header arguments', () => {
  let s: Served;
  before(async () => {
    s = await startHttp({ catalog: { tools: new Map([['routed', ROUTED_TOOL]]) } });
  });
  after(() => s.close());

  const call = (args: object, headers: Record<string, string | undefined>) =>
    postModern(s.url, 'p1', 'tools/call', { name: 'routed', arguments: args }, headers);

  it('passes when each present argument has its header, integers compared as numbers', async () => {
    const res = await call(
      { region: 'eu-west', count: 7, options: { fast: true } },
      { 'mcp-param-region': 'eu-west', 'mcp-param-count': '7', 'mcp-param-fast': 'true' },
    );
    assert.equal(res.status, 200, res.body);
    const absent = await call({}, {});
    assert.equal(absent.status, 200, 'absent arguments need no header');
  });

  it('decodes a base64 sentinel value', async () => {
    const region = 'zürich ';
    const res = await call(
      { region },
      { 'mcp-param-region': `=?base64?${Buffer.from(region).toString('base64')}?=` },
    );
    assert.equal(res.status, 200, res.body);
  });

  const faults: [string, object, Record<string, string>][] = [
    ['a missing header', { region: 'eu' }, {}],
    ['a different value', { region: 'eu' }, { 'mcp-param-region': 'us' }],
    ['a different number', { count: 7 }, { 'mcp-param-count': '8' }],
    ['a nested boolean that differs', { options: { fast: false } }, { 'mcp-param-fast': 'true' }],
  ];
  for (const [name, args, headers] of faults) {
    it(`-32020 and 400 for ${name}`, async () => {
      const res = await call(args, headers);
      assert.equal(res.status, 400);
      assert.equal(res.json().error.code, -32020);
      assert.equal(res.json().id, 'p1');
      assert.match(res.json().error.message, /Mcp-Param-/);
    });
  }
});
