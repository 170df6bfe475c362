/**
 * The 2025-era HTTP transport: sessions minted by initialize, the session and version headers, JSON
 * or SSE answers, the GET stream for unsolicited notifications, DELETE, batches (2025-03-26 only),
 * the session bound and idle expiry.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  initSession,
  openStream,
  post,
  type Served,
  send,
  sessionHeaders,
  startHttp,
} from './http-harness.js';

const req = (id: number, method: string, params: object = {}) => ({ jsonrpc: '2.0', id, method, params });

describe('legacy sessions', () => {
  let s: Served;
  before(async () => {
    s = await startHttp();
  });
  after(() => s.close());

  it('initialize mints a visible-ASCII session id; the session then serves requests as JSON', async () => {
    const res = await post(s.url, req(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {} }));
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const id = String(res.headers['mcp-session-id']);
    assert.match(id, /^[\x21-\x7e]{32}$/);
    assert.equal(res.json().result.protocolVersion, '2025-06-18');

    const other = await post(
      s.url,
      req(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {} }),
    );
    assert.notEqual(other.headers['mcp-session-id'], id, 'each initialize gets its own session');

    const list = await post(s.url, req(2, 'tools/list'), sessionHeaders(id, '2025-06-18'));
    assert.equal(list.status, 200);
    assert.equal(list.json().result.tools.length, 2);
    assert.equal(list.headers['mcp-session-id'], undefined, 'the id is sent once, with the InitializeResult');
  });

  it('a failed initialize leaves no session behind', async () => {
    const res = await post(s.url, req(1, 'initialize', { capabilities: {} }));
    assert.equal(res.json().error.code, -32602);
    assert.equal(res.headers['mcp-session-id'], undefined);
  });

  it('400 for a request without Mcp-Session-Id, 404 for an unknown one (with the request id)', async () => {
    const missing = await post(s.url, req(7, 'tools/list'));
    assert.equal(missing.status, 400);
    assert.equal(missing.json().id, 7);
    assert.match(missing.json().error.message, /missing Mcp-Session-Id; send initialize first/);
    const missingNote = await post(s.url, { jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(missingNote.status, 400);

    const unknown = await post(s.url, req(8, 'tools/list'), { 'mcp-session-id': 'no-such-session' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json().id, 8);
  });

  it('MCP-Protocol-Version: any supported 2025-era one passes, a missing one means the negotiated one, others are 400', async () => {
    const id = await initSession(s.url, '2025-06-18');
    for (const version of ['2025-06-18', '2025-03-26', '2025-11-25']) {
      const ok = await post(s.url, req(1, 'ping'), sessionHeaders(id, version));
      assert.equal(ok.status, 200, version);
    }
    const implied = await post(s.url, req(2, 'ping'), { 'mcp-session-id': id });
    assert.equal(implied.status, 200);
    // A 2026 header makes it a 2026 request, which lacks its _meta envelope.
    const modern = await post(s.url, req(3, 'ping'), sessionHeaders(id, '2026-07-28'));
    assert.equal(modern.status, 400);
    assert.equal(modern.json().error.code, -32602);
    for (const version of ['1999-01-01', 'garbage']) {
      const bad = await post(s.url, req(3, 'ping'), sessionHeaders(id, version));
      assert.equal(bad.status, 400, version);
      assert.equal(bad.json().id, 3);
      assert.match(bad.json().error.message, /MCP-Protocol-Version/);
    }
  });

  it('answers notifications and client responses with 202 and no body', async () => {
    const id = await initSession(s.url);
    const note = await post(
      s.url,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } },
      sessionHeaders(id),
    );
    assert.equal(note.status, 202);
    assert.equal(note.body, '');
    const response = await post(s.url, { jsonrpc: '2.0', id: 5, result: {} }, sessionHeaders(id));
    assert.equal(response.status, 202);
  });

  it('streams a call that logs or reports progress as text/event-stream, response last', async () => {
    const id = await initSession(s.url);
    await post(s.url, req(1, 'logging/setLevel', { level: 'info' }), sessionHeaders(id));
    const res = await post(
      s.url,
      req(2, 'tools/call', { name: 'work', _meta: { progressToken: 'p' } }),
      sessionHeaders(id),
    );
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/event-stream/);
    const events = res.events();
    assert.deepEqual(
      events.map((e) => e.method ?? `response ${e.id}`),
      [
        'notifications/progress',
        'notifications/message',
        'notifications/progress',
        'notifications/message',
        'response 2',
      ],
    );
    assert.equal(events.at(-1).result.content[0].text, 'worked');
  });

  it('notifications/cancelled ends the call: its POST closes with no response (a drop is not a cancel)', async () => {
    const id = await initSession(s.url);
    const aborted = s.fixture.probe.slowAborted;
    const pending = post(s.url, req(11, 'tools/call', { name: 'slow' }), sessionHeaders(id));
    while (s.fixture.probe.releaseSlow.length === 0) await sleep(5);
    s.fixture.probe.releaseSlow.length = 0;
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 11 } };
    assert.equal((await post(s.url, cancel, sessionHeaders(id))).status, 202);
    const res = await pending;
    assert.equal(s.fixture.probe.slowAborted, aborted + 1);
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/event-stream/);
    assert.deepEqual(res.events(), [], 'no response after a cancel');
  });

  it('GET opens a session stream that carries list_changed; each message goes on one stream', async () => {
    const id = await initSession(s.url);
    const stream = await openStream(s.url, { method: 'GET', headers: sessionHeaders(id) });
    assert.equal(stream.status, 200);
    assert.match(String(stream.headers['content-type']), /^text\/event-stream/);

    // A client may hold several GET streams; a message goes to one of them, the newest, never to both.
    const second = await openStream(s.url, { method: 'GET', headers: sessionHeaders(id) });
    assert.equal(second.status, 200, 'a second GET stream is allowed');
    s.protocol.notifyListChanged(new Set(['resources']));
    assert.equal((await second.next()).method, 'notifications/resources/list_changed');
    const closedBefore = s.log.lines.filter((l) => l.includes('its GET closed')).length;
    second.close();
    // Wait until the server saw the close, else the next message could still go to the second stream.
    while (s.log.lines.filter((l) => l.includes('its GET closed')).length === closedBefore) await sleep(5);

    s.protocol.notifyListChanged(new Set(['tools']));
    assert.equal(
      (await stream.next()).method,
      'notifications/tools/list_changed',
      'the first stream never got the message the second carried',
    );

    // A request's answer goes on its own POST, never on the GET stream.
    const list = await post(s.url, req(4, 'tools/list'), sessionHeaders(id));
    assert.equal(list.json().id, 4);
    s.protocol.notifyListChanged(new Set(['prompts']));
    assert.equal((await stream.next()).method, 'notifications/prompts/list_changed');
    stream.close();
    await stream.ended;
  });

  it('GET rules: 405 without a session, 406 without text/event-stream, 404 for an unknown session', async () => {
    const id = await initSession(s.url);
    const noSession = await send(s.url, { method: 'GET', headers: { accept: 'text/event-stream' } });
    assert.equal(noSession.status, 405);
    assert.equal(noSession.headers.allow, 'POST');
    const wrongAccept = await send(s.url, {
      method: 'GET',
      headers: { ...sessionHeaders(id), accept: 'application/json' },
    });
    assert.equal(wrongAccept.status, 406);
    const unknown = await send(s.url, {
      method: 'GET',
      headers: { 'mcp-session-id': 'nope', accept: 'text/event-stream' },
    });
    assert.equal(unknown.status, 404);
    const badVersion = await send(s.url, {
      method: 'GET',
      headers: { ...sessionHeaders(id, '1999-01-01'), accept: 'text/event-stream' },
    });
    assert.equal(badVersion.status, 400);
  });

  it('DELETE ends the session (its GET stream closes; it is unknown afterwards); 405 without a session', async () => {
    const id = await initSession(s.url);
    const stream = await openStream(s.url, { method: 'GET', headers: sessionHeaders(id) });
    const deleted = await send(s.url, { method: 'DELETE', headers: sessionHeaders(id) });
    assert.equal(deleted.status, 200);
    await stream.ended;
    const after = await post(s.url, req(1, 'tools/list'), sessionHeaders(id));
    assert.equal(after.status, 404);
    const again = await send(s.url, { method: 'DELETE', headers: sessionHeaders(id) });
    assert.equal(again.status, 404);
    const noSession = await send(s.url, { method: 'DELETE' });
    assert.equal(noSession.status, 405);
  });

  it('a batch is served only on a 2025-03-26 session', async () => {
    const old = await initSession(s.url, '2025-03-26');
    const batch = [
      req(1, 'ping'),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      req(2, 'tools/list'),
    ];
    const res = await post(s.url, batch, sessionHeaders(old, '2025-03-26'));
    assert.equal(res.status, 200);
    assert.deepEqual(
      res
        .json()
        .map((r: { id: number }) => r.id)
        .sort(),
      [1, 2],
    );

    const recent = await initSession(s.url, '2025-06-18');
    const refused = await post(s.url, batch, sessionHeaders(recent, '2025-06-18'));
    assert.equal(refused.status, 400);
    assert.equal(refused.json().error.code, -32600);
    const noSession = await post(s.url, batch);
    assert.equal(noSession.status, 400);
  });
});

describe('session limits', () => {
  it('refuses initialize with 503 once the bound is reached with no idle session, and frees a slot on DELETE', async () => {
    const s = await startHttp({ maxSessions: 2, maxSessionsPerClient: 2 });
    const streams: Awaited<ReturnType<typeof openStream>>[] = [];
    try {
      const a = await initSession(s.url);
      const b = await initSession(s.url);
      // An open GET stream holds a session: it is never evicted for a new one.
      for (const id of [a, b])
        streams.push(await openStream(s.url, { method: 'GET', headers: sessionHeaders(id) }));
      const refused = await post(
        s.url,
        req(9, 'initialize', { protocolVersion: '2025-11-25', capabilities: {} }),
      );
      assert.equal(refused.status, 503);
      assert.equal(refused.json().id, 9);
      await send(s.url, { method: 'DELETE', headers: sessionHeaders(a) });
      await initSession(s.url);
    } finally {
      for (const stream of streams) stream.close();
      await s.close();
    }
  });

  it('expires a session left idle past sessionIdleMs (404 afterwards)', async () => {
    const s = await startHttp({ sessionIdleMs: 50 });
    try {
      const id = await initSession(s.url);
      // The sweep runs every second at most; any request would count as use, so watch the log.
      for (let i = 0; i < 50 && !s.log.lines.some((l) => l.includes('expired')); i++) await sleep(100);
      const res = await post(s.url, req(1, 'ping'), sessionHeaders(id));
      assert.equal(res.status, 404);
    } finally {
      await s.close();
    }
  });
});
