/**
 * Graceful shutdown: close(graceMs) refuses new work (new connections, and 503 on open ones), ends
 * listen streams with their final result and 2025 GET streams, lets calls in flight finish within
 * the grace period, and cuts the rest when it runs out.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ACCEPT_BOTH,
  initSession,
  modernRequest,
  openStream,
  post,
  postModern,
  SUB_ID,
  sessionHeaders,
  startHttp,
} from './http-harness.js';

/** A raw HTTP/1.1 request, written as text on an already open socket. */
function rawRequest(url: URL, message: object, headers: Record<string, string>): string {
  const body = JSON.stringify(message);
  const lines = [
    `POST ${url.pathname} HTTP/1.1`,
    `Host: ${url.host}`,
    `Accept: ${ACCEPT_BOTH}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

describe('graceful shutdown', () => {
  it('finishes the call in flight, refuses new requests, ends listen and GET streams', async () => {
    const s = await startHttp({ keepAliveMs: 0 });
    const url = new URL(s.url);
    const { message: listenMessage, headers: listenHeaders } = modernRequest('L', 'subscriptions/listen', {
      notifications: { toolsListChanged: true },
    });
    const listen = await openStream(s.url, { body: JSON.stringify(listenMessage), headers: listenHeaders });
    assert.equal((await listen.next()).method, 'notifications/subscriptions/acknowledged');
    const session = await initSession(s.url);
    const getStream = await openStream(s.url, { method: 'GET', headers: sessionHeaders(session) });

    // A request that has begun to arrive (headers half sent) when the shutdown starts.
    const late = modernRequest(3, 'tools/list');
    const lateText = rawRequest(url, late.message, late.headers);
    const lateSocket = connect(Number(url.port), url.hostname);
    let lateReceived = '';
    lateSocket.setEncoding('utf8').on('data', (chunk: string) => {
      lateReceived += chunk;
    });
    const lateEnded = new Promise((resolve) => lateSocket.once('close', resolve));
    lateSocket.write(lateText.slice(0, 20));

    // A slow call on a raw socket, which stays open (busy) through the shutdown.
    const socket = connect(Number(url.port), url.hostname);
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      received += chunk;
    });
    const socketEnded = new Promise((resolve) => socket.once('close', resolve));
    const slow = modernRequest(1, 'tools/call', { name: 'slow' });
    socket.write(rawRequest(url, slow.message, slow.headers));
    while (s.fixture.probe.releaseSlow.length === 0) await sleep(5);

    const closed = s.close(10_000);
    // A new connection is refused outright; the request already arriving gets 503.
    await assert.rejects(postModern(s.url, 2, 'tools/list'), /ECONNREFUSED/);
    lateSocket.write(lateText.slice(20));
    await lateEnded;
    assert.match(lateReceived, /^HTTP\/1\.1 503 /);
    assert.match(lateReceived, /shutting down/);

    const final = await listen.next();
    assert.equal(final.id, 'L', 'the listen request gets its final result');
    assert.equal(final.result._meta[SUB_ID], 'L');
    await listen.ended;

    s.fixture.probe.releaseSlow.shift()!();
    await closed;
    await socketEnded;
    await getStream.ended;
    assert.match(received, /^HTTP\/1\.1 200 /);
    assert.match(received, /"text":"finished"/);
    assert.equal(s.fixture.probe.slowAborted, 0);
  });

  it('answers a call that outlives the grace period with an error, stops it, and still closes', async () => {
    const s = await startHttp();
    const id = await initSession(s.url);
    // One 2025 call and one 2026 call, both still running when the grace period runs out.
    const legacy = post(
      s.url,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow' } },
      sessionHeaders(id),
    );
    while (s.fixture.probe.releaseSlow.length < 1) await sleep(5);
    const modern = modernRequest(2, 'tools/call', { name: 'slow' });
    const stateless = post(s.url, modern.message, modern.headers);
    while (s.fixture.probe.releaseSlow.length < 2) await sleep(5);
    await s.close(50);
    assert.equal(s.fixture.probe.slowAborted, 2, 'the drain aborted both calls');
    for (const [reply, wanted] of [
      [await legacy, 1],
      [await stateless, 2],
    ] as const) {
      assert.equal(reply.status, 200, reply.body);
      const message = reply.body.startsWith('{') ? reply.json() : reply.events().at(-1);
      assert.equal(message.id, wanted, reply.body);
      assert.equal(message.error?.code, -32603, reply.body);
      assert.match(message.error.message, /shutting down.*within the 50 ms drain/);
    }
  });
});
