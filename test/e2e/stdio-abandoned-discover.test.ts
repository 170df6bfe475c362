/**
 * A client that gives up on `server/discover` and falls back to `initialize` (the AI SDK waits
 * 1,000 ms; a slow start outlasts that) over the built CLI's real stdio, with a raw peer. Every
 * line is written before the server reads any, as a client's lines pile up in the pipe while the
 * server starts. docs/clients.md states the ordering guarantee these cases pin down.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RawStdioPeer } from '../helpers/raw-stdio.js';

type Json = Record<string, any>;

const MANIFEST = `server: { name: abandoned-discover, version: 1.0.0 }
tools:
  hello:
    kind: content
    description: Says hello.
    content:
      - text: hello
`;
const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const DISCOVER = {
  jsonrpc: '2.0',
  id: 'discover-1',
  method: 'server/discover',
  params: { _meta: { [PV]: '2026-07-28', [CAPS]: {} } },
};
const CANCEL = {
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId: 'discover-1', reason: 'no answer within 1000 ms' },
};
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const PING = { jsonrpc: '2.0', id: 2, method: 'ping' };

describe('an abandoned server/discover followed by initialize, over stdio', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-run-discover-'));
    writeFileSync(join(dir, 'mcp.yaml'), MANIFEST);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Writes `messages` at once, then reads until the ping is answered: everything before is in. */
  async function exchange(messages: Json[]): Promise<Json[]> {
    const peer = new RawStdioPeer([join(dir, 'mcp.yaml'), '--no-watch'], dir);
    try {
      const pong = peer.next((m) => m.id === 2 && !('method' in m));
      peer.sendLine(messages.map((m) => JSON.stringify(m)).join('\n'));
      await pong;
      return peer.stdoutLines.map((line) => JSON.parse(line) as Json);
    } finally {
      peer.kill();
    }
  }

  it('a discover the client cancelled is never answered, even when the cancel overtakes it', async () => {
    const out = await exchange([DISCOVER, CANCEL, INITIALIZE, INITIALIZED, PING]);
    assert.deepEqual(
      out.filter((m) => m.id === 'discover-1'),
      [],
      'no reply may carry the abandoned id',
    );
    assert.deepEqual(
      out.map((m) => m.id),
      [1, 2],
    );
    assert.equal(out[0]!.result.protocolVersion, '2025-11-25');
  });

  it('without a cancel, answers come in the order the requests were read: discover, then initialize', async () => {
    const out = await exchange([DISCOVER, INITIALIZE, INITIALIZED, PING]);
    assert.deepEqual(
      out.map((m) => m.id),
      ['discover-1', 1, 2],
    );
    assert.ok(Array.isArray(out[0]!.result.supportedVersions), JSON.stringify(out[0]));
    assert.equal(out[1]!.result.protocolVersion, '2025-11-25');
  });

  it('a cancel for an id that never comes changes nothing else', async () => {
    const stray = { ...CANCEL, params: { requestId: 'never-sent' } };
    const out = await exchange([stray, INITIALIZE, INITIALIZED, PING]);
    assert.deepEqual(
      out.map((m) => m.id),
      [1, 2],
    );
  });
});
