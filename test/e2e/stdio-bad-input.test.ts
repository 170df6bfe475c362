/**
 * Bad input over real stdio: each malformed or out-of-order message gets the right JSON-RPC error,
 * and the next request is served. The server is the built CLI on the demo manifest.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { demoCopy } from '../helpers/demo.js';
import { RawStdioPeer } from '../helpers/raw-stdio.js';

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

describe('stdio: every bad message gets the right error and the server keeps serving', () => {
  const copy = demoCopy();
  let peer: RawStdioPeer;
  let nextId = 100;

  /** A request that must succeed: proof the server still serves after the previous fault. */
  async function stillServes(): Promise<void> {
    const id = nextId++;
    const res = await peer.request({
      jsonrpc: '2.0',
      id,
      method: 'tools/list',
      params: { _meta: MODERN_META },
    });
    assert.equal(res.result.tools.length, 3, `request ${id} was not served`);
  }

  before(() => {
    peer = new RawStdioPeer([copy.manifest]);
  });
  after(() => {
    peer.kill();
    copy.cleanup();
  });

  test('a request before initialize (2025 era) is refused with -32600', async () => {
    const res = await peer.request({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    assert.equal(res.error.code, -32600);
    assert.match(res.error.message, /initialize/);
    await stillServes();
  });

  // Nothing negotiated yet: a reply that cannot name its request leaves the id out (docs/clients.md).
  test('malformed JSON gets -32700 without an id', async () => {
    const res = peer.next((m) => m.error?.code === -32700);
    peer.sendLine('{"jsonrpc": "2.0", "id": 2, "method": ');
    assert.equal('id' in (await res), false);
    await stillServes();
  });

  test('a message that is not an object gets -32600', async () => {
    for (const line of ['42', '"tools/list"', 'null', '[]']) {
      const res = peer.next((m) => m.error?.code === -32600 && !('id' in m));
      peer.sendLine(line);
      await res;
    }
    await stillServes();
  });

  test('a wrong jsonrpc version gets -32600 and keeps the id', async () => {
    const res = await peer.request({ jsonrpc: '1.0', id: 3, method: 'tools/list' });
    assert.equal(res.error.code, -32600);
    await stillServes();
  });

  test('a null id on a request gets -32600', async () => {
    const res = peer.next((m) => m.error?.code === -32600 && !('id' in m));
    peer.send({ jsonrpc: '2.0', id: null, method: 'tools/list', params: { _meta: MODERN_META } });
    await res;
    await stillServes();
  });

  test('an unsupported 2025-era version is answered with the server own version', async () => {
    const res = await peer.request({
      jsonrpc: '2.0',
      id: 4,
      method: 'initialize',
      params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    assert.equal(res.result.protocolVersion, '2025-11-25');
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await stillServes();
  });

  test('an unknown method gets -32601', async () => {
    const res = await peer.request({ jsonrpc: '2.0', id: 5, method: 'tools/frobnicate', params: {} });
    assert.equal(res.error.code, -32601);
    await stillServes();
  });

  test('invalid params get -32602', async () => {
    const badArgs = await peer.request({
      jsonrpc: '2.0',
      id: 6,
      method: 'tools/call',
      params: { name: 'find_orders', arguments: 'ada@example.com' },
    });
    assert.equal(badArgs.error.code, -32602);
    const noName = await peer.request({ jsonrpc: '2.0', id: 7, method: 'prompts/get', params: {} });
    assert.equal(noName.error.code, -32602);
    const badCursor = await peer.request({
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/list',
      params: { cursor: '!!' },
    });
    assert.equal(badCursor.error.code, -32602);
    await stillServes();
  });

  test('an unsupported 2026 version gets -32022 with the supported versions', async () => {
    const res = await peer.request({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/list',
      params: { _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '1900-01-01' } },
    });
    assert.equal(res.error.code, -32022);
    assert.equal(res.error.data.requested, '1900-01-01');
    assert.ok(res.error.data.supported.includes('2026-07-28'));
    await stillServes();
  });

  test('a missing or incomplete _meta envelope (2026 era) gets -32602', async () => {
    const noMeta = await peer.request({ jsonrpc: '2.0', id: 10, method: 'server/discover', params: {} });
    assert.equal(noMeta.error.code, -32602);
    const noCapabilities = await peer.request({
      jsonrpc: '2.0',
      id: 11,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
    });
    assert.equal(noCapabilities.error.code, -32602);
    await stillServes();
  });

  test('SQL injection through an argument is bound: no extra rows, nothing changed', async () => {
    const call = (id: number, name: string, args: Record<string, unknown>) =>
      peer.request({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name, arguments: args, _meta: MODERN_META },
      });
    const before = await call(12, 'sales_by_category', {});
    for (const email of [
      "' OR '1'='1",
      "x'; DELETE FROM orders; --",
      "ada@example.com' UNION SELECT 1,2,3,4 --",
    ]) {
      const res = await call(13, 'find_orders', { email });
      assert.equal(res.result.structuredContent.rowCount, 0, `injection ${email} returned rows`);
    }
    const after = await call(14, 'sales_by_category', {});
    assert.deepEqual(after.result.structuredContent, before.result.structuredContent);
  });

  test('stdout carried nothing but JSON-RPC, one message per line', () => {
    assert.ok(peer.stdoutLines.length > 20);
    for (const line of peer.stdoutLines) assert.equal(JSON.parse(line).jsonrpc, '2.0');
  });
});

test('the server exits 0 when stdin ends', async () => {
  const copy = demoCopy();
  try {
    const peer = new RawStdioPeer([copy.manifest]);
    const res = await peer.request({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: MODERN_META },
    });
    assert.ok(res.result);
    assert.equal(await peer.end(), 0);
  } finally {
    copy.cleanup();
  }
});

test('a manifest with errors is not served: every error on stderr, exit 1, nothing on stdout', async () => {
  const peer = new RawStdioPeer(['test/fixtures/invalid/many-errors.yaml']);
  assert.equal(await peer.end(), 1);
  assert.deepEqual(peer.stdoutLines, []);
  assert.equal(peer.stderr.match(/^error\[/gm)?.length, 4);
  assert.match(peer.stderr, /not serving/);
});
