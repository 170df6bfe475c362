/**
 * The record/replay tape on its own, with real sockets: recording forwards only below the source's
 * own origin (a `//host` or absolute-form request target reaches no other host), and replay answers
 * identical requests from their recorded exchanges in order.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { redactQuery, startTape } from '../../src/testing/tape.js';
import { send, startUpstream } from '../kinds/http/upstream.js';

/** A raw request with the exact target given (fetch would normalise it). */
function raw(url: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('recording forwards only paths below the source origin', async () => {
  const own = await startUpstream(() => (seen, res) => send(res, 200, { own: seen.url }));
  const other = await startUpstream(() => (seen, res) => send(res, 200, { other: seen.url }));
  const tape = await startTape(new Map([['api', `${own.origin}/v1`]]), {
    mode: 'record',
    fixture: { exchanges: [] },
    secrets: [],
  });
  try {
    const base = tape.baseUrls.get('api')!;
    assert.match(base, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    assert.deepEqual(JSON.parse((await raw(base, '/v1/x?n=1')).body), { own: '/v1/x?n=1' });
    const absolute = await raw(base, `${other.origin}/steal`);
    assert.equal(absolute.status, 400);
    const slashes = await raw(base, `//${other.origin.slice('http://'.length)}/steal`);
    assert.notEqual(JSON.parse(slashes.body).other, '//steal');
    assert.equal(other.seen.length, 0, 'a request reached another host');
    assert.deepEqual(
      tape.recorded.map((x) => x.path),
      ['/v1/x?n=1', `//${other.origin.slice('http://'.length)}/steal`],
    );
  } finally {
    await tape.close();
    await own.close();
    await other.close();
  }
});

test('replay answers identical requests from their exchanges in order, and a miss says so', async () => {
  const exchanges = [
    {
      source: 'api',
      method: 'GET',
      path: '/pets/4',
      status: 200,
      contentType: 'application/json',
      response: '{"id":4}',
    },
    { source: 'api', method: 'GET', path: '/pets/4', status: 404, response: 'gone' },
  ];
  const tape = await startTape(new Map([['api', 'https://api.example.com']]), {
    mode: 'replay',
    fixture: { exchanges },
    secrets: [],
  });
  try {
    const base = tape.baseUrls.get('api')!;
    assert.deepEqual(await raw(base, '/pets/4'), { status: 200, body: '{"id":4}' });
    assert.deepEqual(await raw(base, '/pets/4'), { status: 404, body: 'gone' });
    assert.equal((await raw(base, '/pets/4')).status, 599);
    assert.deepEqual(tape.misses, [{ request: 'api GET /pets/4', why: 'unrecorded' }]);
  } finally {
    await tape.close();
  }
});

test('live replay: a recorded answer is replayed, an unrecorded request goes upstream and is not kept', async () => {
  const own = await startUpstream(() => (seen, res) => send(res, 200, { live: seen.url }));
  // An upstream that was there and is gone: nothing listens on its port any more.
  const gone = await startUpstream();
  const port = new URL(gone.origin).port;
  await gone.close();
  const exchanges = [
    { source: 'api', method: 'GET', path: '/v1/kept', status: 200, response: 'from the tape' },
  ];
  const tape = await startTape(
    new Map([
      ['api', `${own.origin}/v1`],
      ['down', `http://127.0.0.1:${port}`],
    ]),
    { mode: 'replay', fixture: { exchanges }, live: true, secrets: [] },
  );
  try {
    const base = tape.baseUrls.get('api')!;
    assert.deepEqual(await raw(base, '/v1/kept'), { status: 200, body: 'from the tape' });
    assert.deepEqual(JSON.parse((await raw(base, '/v1/new')).body), { live: '/v1/new' });
    assert.deepEqual(
      own.seen.map((s) => s.url),
      ['/v1/new'],
    );
    assert.deepEqual(tape.recorded, []);
    assert.equal(tape.misses.length, 0);
    const down = await raw(tape.baseUrls.get('down')!, '/x');
    assert.equal(down.status, 502);
    assert.equal(tape.misses.length, 1);
    assert.equal(tape.misses[0]!.request, 'down GET /x');
    assert.equal(tape.misses[0]!.why, 'unreachable');
    assert.match(tape.misses[0]!.detail!, new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`));
  } finally {
    await tape.close();
    await own.close();
  }
});

test('query parameters named like credentials are redacted', () => {
  assert.equal(
    redactQuery('/a?api_key=1&q=x&access_token=2&Signature=3'),
    '/a?api_key=***&q=x&access_token=***&Signature=***',
  );
  assert.equal(redactQuery('/a?page=2'), '/a?page=2');
});
