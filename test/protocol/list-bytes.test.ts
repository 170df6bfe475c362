/**
 * Cached list pages go out as cached JSON text: the bytes must be exactly JSON.stringify of the
 * response, in both eras, for string and number ids, through the transports' serializer
 * (serializeMessage) and over stdio.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import {
  cachedResponseParts,
  cachedResponseText,
  jsonTextOf,
  serializeMessage,
  withJsonText,
} from '../../src/protocol/results.js';
import { createProtocol } from '../../src/protocol/server.js';
import { serveStdio } from '../../src/transports/stdio.js';
import { makeFixture } from './catalog-fixture.js';
import { captureLogger, type Json, modern, tick } from './harness.js';

const LISTS = [
  ['tools/list', 'tools'],
  ['prompts/list', 'prompts'],
  ['resources/templates/list', 'resourceTemplates'],
] as const;

/** A raw connection: the response objects exactly as the core hands them to a transport. */
function connect(protocol: ReturnType<typeof createProtocol>) {
  const sent: Json[] = [];
  const connection = protocol.connect((message) => sent.push(message));
  const request = async (id: string | number, method: string, params: object): Promise<Json> => {
    await connection.receive(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return sent.find((m) => m.id === id && m.method === undefined);
  };
  return { request };
}

/** Every page of `method`, following nextCursor; ids alternate between numbers and strings. */
async function pages(
  request: (id: string | number, method: string, params: object) => Promise<Json>,
  method: string,
  wrap: (p: Record<string, unknown>) => object,
  prefix: string,
): Promise<Json[]> {
  const responses: Json[] = [];
  let cursor: string | undefined;
  let n = 0;
  do {
    const id = n % 2 === 0 ? `${prefix}-${n}"\u2028` : 1000 + n;
    const response = await request(id, method, wrap(cursor === undefined ? {} : { cursor }));
    assert.equal(response.error, undefined, JSON.stringify(response.error));
    responses.push(response);
    cursor = response.result.nextCursor;
    n++;
  } while (cursor !== undefined);
  return responses;
}

const ERAS: Record<string, { init?: string; wrap: (p: Record<string, unknown>) => object }> = {
  modern: { wrap: (p) => modern(p) },
  'legacy 2025-11-25': { init: '2025-11-25', wrap: (p) => p },
  'legacy 2025-03-26 (downgraded copies)': { init: '2025-03-26', wrap: (p) => p },
};

describe('cached list pages on the wire', () => {
  for (const [era, { init, wrap }] of Object.entries(ERAS)) {
    it(`sends exactly JSON.stringify of the response (${era})`, async () => {
      const fixture = makeFixture();
      const protocol = createProtocol(fixture.ref, { log: captureLogger(), listChanged: true });
      const { request } = connect(protocol);
      if (init) await request('init', 'initialize', { protocolVersion: init, capabilities: {} });
      for (let round = 0; round < 2; round++) {
        for (const [method, key] of LISTS) {
          for (const response of await pages(request, method, wrap, `${method}${round}`)) {
            assert.ok(Array.isArray(response.result[key]));
            assert.equal(serializeMessage(response), JSON.stringify(response));
          }
        }
      }
    });
  }

  it('serves each page from its cached text, which is the page as JSON', async () => {
    const fixture = makeFixture();
    const protocol = createProtocol(fixture.ref, { log: captureLogger(), listChanged: true });
    const { request } = connect(protocol);
    const first = await request(1, 'tools/list', modern());
    const again = await request('two', 'tools/list', modern());
    assert.equal(again.result, first.result, 'the decorated page is cached');
    assert.equal(jsonTextOf(first.result), JSON.stringify(first.result));
    assert.ok(cachedResponseText(again)?.includes(`"id":"two"`));
    assert.deepEqual(Object.keys(first.result), [
      'resultType',
      'tools',
      'nextCursor',
      'ttlMs',
      'cacheScope',
      '_meta',
    ]);
  });

  it('splits a cached response into a head and tail bytes that join to the same JSON, the tail made once', async () => {
    const fixture = makeFixture();
    const protocol = createProtocol(fixture.ref, { log: captureLogger(), listChanged: true });
    const { request } = connect(protocol);
    const first = await request(1, 'tools/list', modern());
    const again = await request('zwei "2"', 'tools/list', modern());
    for (const response of [first, again]) {
      const parts = cachedResponseParts(response);
      assert.ok(parts, 'a cached page has parts');
      assert.equal(parts.head + Buffer.concat(parts.tail).toString('utf8'), JSON.stringify(response));
    }
    assert.equal(cachedResponseParts(again)?.tail, cachedResponseParts(first)?.tail, 'one tail per page');
    assert.equal(cachedResponseParts({ jsonrpc: '2.0', id: 1, result: { tools: [] } }), undefined);
  });

  it('writes the tail from each item, the same bytes as JSON.stringify: past Latin-1, left-out and null values', () => {
    const page = withJsonText({
      tools: [
        { name: 'a', description: 'It’s “quoted”, \u2028 and 😀' },
        undefined,
        { n: 1, skip: undefined },
      ],
      nothing: undefined,
      nextCursor: 'eyJvIjoxfQ',
      nested: { list: [1, 'two'] },
    });
    const parts = cachedResponseParts({ jsonrpc: '2.0', id: 7, result: page });
    assert.ok(parts, 'a marked result has parts');
    const text = JSON.stringify({ jsonrpc: '2.0', id: 7, result: page });
    assert.equal(parts.head + Buffer.concat(parts.tail).toString('utf8'), text);
    assert.equal(Buffer.concat(parts.tail).length + Buffer.byteLength(parts.head), Buffer.byteLength(text));
  });

  it('keeps one decorated form per ttl: two servers over one catalog differ only in ttlMs', async () => {
    const fixture = makeFixture();
    const log = captureLogger();
    const a = connect(createProtocol(fixture.ref, { log, listChanged: true, ttlMs: 1000 }));
    const b = connect(createProtocol(fixture.ref, { log, listChanged: true, ttlMs: 2000 }));
    const fromA = await a.request(1, 'prompts/list', modern());
    const fromB = await b.request(1, 'prompts/list', modern());
    assert.equal(fromA.result.ttlMs, 1000);
    assert.equal(fromB.result.ttlMs, 2000);
    assert.equal(serializeMessage(fromA), JSON.stringify(fromA));
    assert.equal(serializeMessage(fromB), JSON.stringify(fromB));
    assert.notEqual(serializeMessage(fromA), serializeMessage(fromB));
  });

  it('never splices a message that is not a plain result response', () => {
    const page = { tools: [] };
    const marked = serializeMessage({ jsonrpc: '2.0', id: 1, result: page, extra: true });
    assert.equal(marked, JSON.stringify({ jsonrpc: '2.0', id: 1, result: page, extra: true }));
    assert.equal(cachedResponseText({ jsonrpc: '2.0', id: 1, result: page }), undefined, 'not marked');
  });

  it('writes the same bytes over stdio', async () => {
    const fixture = makeFixture();
    const protocol = createProtocol(fixture.ref, { log: captureLogger(), listChanged: true });
    const input = new PassThrough();
    const output = new PassThrough();
    let written = '';
    output.on('data', (chunk: Buffer) => {
      written += chunk.toString('utf8');
    });
    const transport = serveStdio(protocol, { log: captureLogger(), input, output });
    const direct = connect(protocol);
    const expected: string[] = [];
    const ids: (string | number)[] = [7, 'seven', 8, 'eight'];
    for (const id of ids) {
      const params = typeof id === 'number' ? modern() : {};
      if (typeof id === 'string' && expected.length === 1) {
        await direct.request('init', 'initialize', { protocolVersion: '2025-11-25', capabilities: {} });
      }
      expected.push(JSON.stringify(await direct.request(id, 'tools/list', params)));
    }
    // The stdio connection runs its own handshake first, so its legacy requests see the same era.
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: modern() })}\n`);
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } })}\n`,
    );
    for (const id of ids.slice(1)) {
      const params = typeof id === 'number' ? modern() : {};
      input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params })}\n`);
    }
    for (let i = 0; i < 200 && written.split('\n').length < 6; i++) await tick(5);
    const lines = written.split('\n').filter((l) => l !== '' && !l.includes('"id":"init"'));
    assert.deepEqual(lines, expected);
    input.end();
    await transport.closed;
  });
});
