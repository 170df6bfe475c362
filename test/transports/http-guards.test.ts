/**
 * What every request must pass before the protocol sees it: Host/Origin (DNS rebinding), the path,
 * CORS, authentication, Accept, Content-Type, body size and JSON. Real server, real sockets.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Json, modernRequest, post, postModern, type Served, send, startHttp } from './http-harness.js';

const listTools = modernRequest(1, 'tools/list');

describe('DNS rebinding protection (loopback bind)', () => {
  let s: Served;
  before(async () => {
    s = await startHttp({ allowedHosts: ['mcp.internal'], allowedOrigins: ['https://app.example.com'] });
  });
  after(() => s.close());

  for (const host of ['localhost:1234', '127.0.0.1', '[::1]:80', 'LOCALHOST', 'mcp.internal:9000']) {
    it(`accepts Host ${host}`, async () => {
      const res = await post(s.url, listTools.message, { ...listTools.headers, host });
      assert.equal(res.status, 200, res.body);
    });
  }
  for (const host of [
    'evil.example.com',
    'evil.example.com:80',
    '127.0.0.1.evil.example',
    'localhost.evil',
  ]) {
    it(`refuses Host ${host} with 403 and an id-less JSON-RPC error`, async () => {
      const res = await post(s.url, listTools.message, { ...listTools.headers, host });
      assert.equal(res.status, 403);
      // A 2026-07-28 request: an error that cannot name its request leaves the id out (docs/clients.md).
      assert.equal('id' in res.json(), false, res.body);
      assert.match(res.json().error.message, /Host .* is not allowed/);
    });
  }
  for (const origin of [
    'http://localhost:5173',
    'https://127.0.0.1',
    'http://[::1]:8080',
    'https://app.example.com',
  ]) {
    it(`accepts Origin ${origin} and answers with CORS headers`, async () => {
      const res = await post(s.url, listTools.message, { ...listTools.headers, origin });
      assert.equal(res.status, 200);
      assert.equal(res.headers['access-control-allow-origin'], origin);
      assert.match(String(res.headers['access-control-expose-headers']), /Mcp-Session-Id/);
    });
  }
  for (const origin of [
    'http://evil.example.com',
    'null',
    'file://',
    'ftp://localhost',
    'https://app.example.com.evil',
  ]) {
    it(`refuses Origin ${origin} with 403`, async () => {
      const res = await post(s.url, listTools.message, { ...listTools.headers, origin });
      assert.equal(res.status, 403);
      assert.match(res.json().error.message, /Origin/);
      assert.equal(res.headers['access-control-allow-origin'], undefined);
    });
  }
  it('refuses a foreign Host even for a GET or an OPTIONS preflight', async () => {
    for (const method of ['GET', 'OPTIONS', 'DELETE']) {
      const res = await send(s.url, { method, headers: { host: 'evil.example.com' } });
      assert.equal(res.status, 403, method);
    }
  });
});

describe('the endpoint and CORS', () => {
  let s: Served;
  before(async () => {
    s = await startHttp();
  });
  after(() => s.close());

  it('answers every other path with 404', async () => {
    for (const path of ['/', '/mcp/', '/mcpx', '/other']) {
      const res = await post(new URL(path, s.url).href, listTools.message, listTools.headers);
      assert.equal(res.status, 404, path);
    }
    const withQuery = await post(`${s.url}?x=1`, listTools.message, listTools.headers);
    assert.equal(withQuery.status, 200, 'a query string does not change the path');
  });

  it('answers a CORS preflight from an allowed origin, allowing the MCP headers', async () => {
    const res = await send(s.url, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:3000',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, mcp-protocol-version, mcp-param-region',
      },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers['access-control-allow-origin'], 'http://localhost:3000');
    const allowed = String(res.headers['access-control-allow-headers']);
    for (const name of [
      'mcp-session-id',
      'mcp-protocol-version',
      'mcp-method',
      'mcp-name',
      'authorization',
      'mcp-param-region',
    ])
      assert.ok(allowed.includes(name), name);
    assert.match(String(res.headers['access-control-allow-methods']), /POST/);
  });

  it('answers other methods with 405 and Allow', async () => {
    const res = await send(s.url, { method: 'PUT', body: '{}' });
    assert.equal(res.status, 405);
    assert.match(String(res.headers.allow), /POST/);
  });
});

describe('POST checks', () => {
  let s: Served;
  before(async () => {
    s = await startHttp({ maxBodyBytes: 1024 });
  });
  after(() => s.close());

  const body = JSON.stringify(listTools.message);

  it('406 when Accept lacks application/json or text/event-stream', async () => {
    for (const accept of ['application/json', 'text/event-stream', 'text/html']) {
      const res = await send(s.url, { body, headers: { ...listTools.headers, accept } });
      assert.equal(res.status, 406, accept);
    }
    const none = await send(s.url, {
      body,
      bare: true,
      headers: { ...listTools.headers, 'content-type': 'application/json' },
    });
    assert.equal(none.status, 406, 'no Accept at all');
    const wildcard = await send(s.url, { body, headers: { ...listTools.headers, accept: '*/*' } });
    assert.equal(wildcard.status, 200, 'a wildcard admits both');
  });

  it('415 for a body that is not Content-Type application/json', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await send(s.url, { body, headers: { ...listTools.headers, 'content-type': type } });
      assert.equal(res.status, 415, type);
    }
    const charset = await send(s.url, {
      body,
      headers: { ...listTools.headers, 'content-type': 'application/json; charset=utf-8' },
    });
    assert.equal(charset.status, 200);
  });

  it('413 for a body over the limit, declared or streamed', async () => {
    const big = JSON.stringify({
      ...listTools.message,
      params: { ...listTools.message.params, pad: 'x'.repeat(2000) },
    });
    const res = await send(s.url, { body: big, headers: listTools.headers });
    assert.equal(res.status, 413);
    assert.match(res.json().error.message, /at most 1024 bytes/);
    const chunked = await send(s.url, {
      body: big,
      headers: { ...listTools.headers, 'transfer-encoding': 'chunked' },
    });
    assert.equal(chunked.status, 413);
  });

  it('400 with -32700 for a body that is not JSON', async () => {
    const res = await send(s.url, { body: '{"jsonrpc": "2.0", "id": 1,', headers: listTools.headers });
    assert.equal(res.status, 400);
    assert.deepEqual(res.json().error.code, -32700);
    assert.equal('id' in res.json(), false, res.body);
  });
});

describe('authentication', () => {
  let s: Served;
  before(async () => {
    s = await startHttp({ auth: { bearerTokens: ['token-one', 'token-two'], apiKeys: ['key-abc'] } });
  });
  after(() => s.close());

  const expectUnauthorized = (res: { status: number; headers: Json; body: string }) => {
    assert.equal(res.status, 401);
    assert.equal(res.headers['www-authenticate'], 'Bearer realm="mcp-run"');
    assert.doesNotMatch(res.body, /token-one|key-abc/);
  };

  it('401 with WWW-Authenticate when no credential is sent', async () => {
    expectUnauthorized(await post(s.url, listTools.message, listTools.headers));
  });
  it('401 for a wrong token, a token of another length, a wrong key, or a key sent as a token', async () => {
    for (const headers of <Record<string, string>[]>[
      { authorization: 'Bearer token-three' },
      { authorization: 'Bearer t' },
      { authorization: 'Basic dG9rZW4tb25l' },
      { 'x-api-key': 'key-abd' },
      { authorization: 'Bearer key-abc' },
    ]) {
      expectUnauthorized(await post(s.url, listTools.message, { ...listTools.headers, ...headers }));
    }
  });
  it('admits each configured token and key', async () => {
    for (const headers of <Record<string, string>[]>[
      { authorization: 'Bearer token-one' },
      { authorization: 'bearer token-two' },
      { 'x-api-key': 'key-abc' },
    ]) {
      const res = await post(s.url, listTools.message, { ...listTools.headers, ...headers });
      assert.equal(res.status, 200, JSON.stringify(headers));
      assert.equal(res.json().result.tools.length, 2);
    }
  });
  it('checks every request, GET and DELETE included (a session is never a credential)', async () => {
    expectUnauthorized(await send(s.url, { method: 'GET', headers: { 'mcp-session-id': 'x' } }));
    expectUnauthorized(await send(s.url, { method: 'DELETE', headers: { 'mcp-session-id': 'x' } }));
  });
  it('lets a CORS preflight through without credentials (browsers send none)', async () => {
    const res = await send(s.url, { method: 'OPTIONS', headers: { origin: 'http://localhost:1' } });
    assert.equal(res.status, 204);
  });
  it('a wrong token is refused before the body is looked at', async () => {
    const res = await postModern(s.url, 1, 'tools/call', { name: 'echo' }, { authorization: 'Bearer nope' });
    expectUnauthorized(res);
  });
});
