/**
 * Every answer of the HTTP transport carries its exchange's `X-Request-Id`, once, whatever wrote its
 * head: a JSON answer, one with headers of its own (the session id, `Allow`, CORS), an empty 202, an
 * SSE stream, a refusal, a preflight, a probe. The headers are added where the head is written
 * (response.ts), so each way of writing one is tried here. Real server, real sockets.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  initSession,
  openStream,
  post,
  postModern,
  type RawResponse,
  type Served,
  send,
  sessionHeaders,
  startHttp,
} from './http-harness.js';

const ID = 'req-7f3a';
const given = { 'x-request-id': ID };

/** The header as the client saw it: node joins a repeated one with ", ", so a copy would show. */
function requestIdOf(res: Pick<RawResponse, 'headers'>): unknown {
  return res.headers['x-request-id'];
}

describe('X-Request-Id on every answer', () => {
  let s: Served;
  before(async () => {
    // Routes of its own, as ops/routes.ts and the playground are: heads written with writeHead (an
    // object, or names and values in turn), and one left to node (`end` with a status only).
    s = await startHttp({
      opsRoute: (req, res) => {
        if (req.url === '/healthz') res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok\n');
        else if (req.url === '/pairs') res.writeHead(200, ['Content-Type', 'text/plain']).end('ok\n');
        else if (req.url === '/nested') res.writeHead(200, [['Content-Type', 'text/plain']]).end('ok\n');
        else if (req.url === '/no-message')
          res.writeHead(200, undefined, { 'Content-Type': 'text/plain' }).end('ok\n');
        else if (req.url === '/own-id') res.writeHead(200, { 'x-request-id': 'own' }).end('ok\n');
        else if (req.url === '/own-id-pairs') res.writeHead(200, ['X-REQUEST-ID', 'own']).end('ok\n');
        else if (req.url === '/set-before') {
          res.setHeader('X-Request-Id', 'set');
          res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok\n');
        } else if (req.url === '/implicit') {
          res.statusCode = 204;
          res.end();
        } else return false;
        return true;
      },
    });
  });
  after(() => s.close());

  it('a JSON answer', async () => {
    const res = await postModern(s.url, 1, 'tools/list', {}, given);
    assert.equal(res.status, 200, res.body);
    assert.equal(requestIdOf(res), ID);
    assert.equal(res.headers['content-type'], 'application/json');
  });

  it('initialize, whose answer also names the new session', async () => {
    const res = await post(
      s.url,
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '0' },
        },
      },
      given,
    );
    assert.equal(res.status, 200, res.body);
    assert.equal(requestIdOf(res), ID);
    assert.equal(typeof res.headers['mcp-session-id'], 'string');
  });

  it('an accepted notification (202, no body)', async () => {
    const session = await initSession(s.url);
    const res = await post(
      s.url,
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { ...sessionHeaders(session), ...given },
    );
    assert.equal(res.status, 202);
    assert.equal(requestIdOf(res), ID);
  });

  it('an SSE stream (a 2025 GET stream)', async () => {
    const session = await initSession(s.url);
    const stream = await openStream(s.url, {
      method: 'GET',
      headers: { ...sessionHeaders(session), ...given },
    });
    try {
      assert.equal(stream.status, 200);
      assert.equal(stream.headers['content-type'], 'text/event-stream');
      assert.equal(requestIdOf(stream), ID);
    } finally {
      stream.close();
    }
  });

  it('a refusal with headers of its own (405 with Allow)', async () => {
    const res = await send(s.url, { method: 'PUT', headers: given });
    assert.equal(res.status, 405);
    assert.match(String(res.headers.allow), /POST/);
    assert.equal(requestIdOf(res), ID);
  });

  it('a refusal before the endpoint (403, DNS rebinding)', async () => {
    const res = await postModern(s.url, 1, 'tools/list', {}, { ...given, host: 'evil.example' });
    assert.equal(res.status, 403);
    assert.equal(requestIdOf(res), ID);
  });

  it('an answer whose CORS headers were set before its head (an allowed Origin)', async () => {
    const origin = 'http://localhost:5173';
    const res = await postModern(s.url, 1, 'tools/list', {}, { ...given, origin });
    assert.equal(res.status, 200);
    assert.equal(res.headers['access-control-allow-origin'], origin);
    assert.equal(requestIdOf(res), ID);
  });

  it('a CORS preflight', async () => {
    const res = await send(s.url, {
      method: 'OPTIONS',
      headers: { ...given, origin: 'http://localhost:5173', 'access-control-request-method': 'POST' },
    });
    assert.equal(res.status, 204);
    assert.equal(requestIdOf(res), ID);
  });

  it('a route of its own, with a fresh id when the client sent none', async () => {
    const res = await send(s.url.replace(/\/mcp$/, '/healthz'), { method: 'GET' });
    assert.equal(res.status, 200);
    assert.match(
      String(requestIdOf(res)),
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('a head given as names and values in turn', async () => {
    const res = await send(s.url.replace(/\/mcp$/, '/pairs'), { method: 'GET', headers: given });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/plain');
    assert.equal(requestIdOf(res), ID);
  });

  it('a head node writes itself (a status and `end`)', async () => {
    const res = await send(s.url.replace(/\/mcp$/, '/implicit'), { method: 'GET', headers: given });
    assert.equal(res.status, 204);
    assert.equal(requestIdOf(res), ID);
  });

  it('a head given as [name, value] pairs, or as headers after an undefined status message', async () => {
    for (const route of ['/nested', '/no-message']) {
      const res = await send(s.url.replace(/\/mcp$/, route), { method: 'GET', headers: given });
      assert.equal(res.status, 200, route);
      assert.equal(res.headers['content-type'], 'text/plain', route);
      assert.equal(requestIdOf(res), ID, route);
    }
  });

  it("a route's own X-Request-Id, given in any case or set before the head, is sent once, in its place", async () => {
    for (const [route, id] of [
      ['/own-id', 'own'],
      ['/own-id-pairs', 'own'],
      ['/set-before', 'set'],
    ] as const) {
      const res = await send(s.url.replace(/\/mcp$/, route), { method: 'GET', headers: given });
      assert.equal(res.status, 200, route);
      assert.equal(requestIdOf(res), id, route);
    }
  });
});
