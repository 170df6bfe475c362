/** The stdio transport's framing and shutdown, over in-memory streams. */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { type StdioTransport, serveStdio } from '../../src/transports/stdio.js';
import { captureLogger, type Json, setup, tick } from './harness.js';

interface Wire {
  readonly input: PassThrough;
  readonly transport: StdioTransport;
  readonly raw: () => string;
  readonly messages: () => Json[];
  readonly fixture: ReturnType<typeof setup>['fixture'];
}

function start(options: { maxLineBytes?: number; drainTimeoutMs?: number } = {}): Wire {
  const { protocol, fixture } = setup();
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.on('data', (chunk: Buffer) => {
    written += chunk.toString('utf8');
  });
  const transport = serveStdio(protocol, { log: captureLogger(), input, output, ...options });
  return {
    input,
    transport,
    fixture,
    raw: () => written,
    messages: () =>
      written
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line)),
  };
}

const line = (message: object): string => `${JSON.stringify(message)}\n`;
const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' });
const INIT = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25' } };

/** Waits until `count` messages were written (or fails after a while). */
async function until(wire: Wire, count: number): Promise<Json[]> {
  for (let i = 0; i < 200 && wire.messages().length < count; i++) await tick(5);
  return wire.messages();
}

describe('stdio transport', () => {
  it('handles two messages in one chunk', async () => {
    const wire = start();
    wire.input.write(line(INIT) + line(ping(1)));
    const messages = await until(wire, 2);
    assert.deepEqual(messages.map((m) => m.id).sort(), [1, 'init']);
  });

  it('reassembles a message split across chunks, even inside a multi-byte character', async () => {
    const wire = start();
    wire.input.write(line(INIT));
    const bytes = Buffer.from(
      line({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'héllo ✓' } },
      }),
    );
    const cut = bytes.indexOf(Buffer.from('✓')) + 1;
    wire.input.write(bytes.subarray(0, 10));
    wire.input.write(bytes.subarray(10, cut));
    await tick(5);
    wire.input.write(bytes.subarray(cut));
    const messages = await until(wire, 2);
    assert.equal(messages.find((m) => m.id === 2).result.content[0].text, 'héllo ✓');
  });

  it('tolerates \\r\\n and ignores blank lines', async () => {
    const wire = start();
    wire.input.write(`\n  \r\n${JSON.stringify(INIT)}\r\n\r\n${JSON.stringify(ping(3))}\r\n`);
    const messages = await until(wire, 2);
    assert.equal(messages.length, 2);
    assert.deepEqual(messages.find((m) => m.id === 3).result, {});
  });

  it('writes one compact line per message, escaping newlines inside strings', async () => {
    const wire = start();
    wire.input.write(line(INIT));
    wire.input.write(
      line({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'a\nb' } },
      }),
    );
    const messages = await until(wire, 2);
    assert.equal(messages.find((m) => m.id === 4).result.content[0].text, 'a\nb');
    assert.equal(wire.raw().split('\n').length, 3, 'two lines and the final newline');
    assert.doesNotMatch(wire.raw(), /": /, 'compact JSON');
  });

  it('answers an oversized line with -32600 and keeps serving', async () => {
    const wire = start({ maxLineBytes: 200 });
    const huge = line({ jsonrpc: '2.0', id: 5, method: 'ping', params: { pad: 'x'.repeat(500) } });
    wire.input.write(huge.slice(0, 150));
    wire.input.write(huge.slice(150));
    wire.input.write(line(INIT));
    const messages = await until(wire, 2);
    assert.equal(messages[0].error.code, -32600);
    assert.equal(messages[0].id, null);
    assert.equal(messages[1].id, 'init');
  });

  it('answers malformed JSON with -32700 and keeps serving', async () => {
    const wire = start();
    wire.input.write('{not json}\n');
    wire.input.write(line(INIT));
    const messages = await until(wire, 2);
    assert.equal(messages[0].error.code, -32700);
    assert.equal(messages[1].id, 'init');
  });

  it('on EOF waits for requests in flight, answers them, then resolves closed', async () => {
    const wire = start();
    wire.input.write(line(INIT));
    wire.input.write(line({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'slow' } }));
    await until(wire, 1);
    await tick(5);
    wire.input.end(line(ping(7)).trimEnd()); // the last line has no newline: it still counts
    let closed = false;
    void wire.transport.closed.then(() => {
      closed = true;
    });
    await tick(20);
    assert.equal(closed, false, 'still waiting for the slow call');
    wire.fixture.probe.releaseSlow[0]?.();
    await wire.transport.closed;
    const ids = wire.messages().map((m) => m.id);
    assert.ok(ids.includes(6), 'the in-flight call was answered');
    assert.ok(ids.includes(7), 'the unterminated last line was served');
  });

  it('settles once answers are out and the input is quiet: not before an answer, not while a call runs', async () => {
    const wire = start();
    let settled = false;
    void wire.transport.settled.then(() => {
      settled = true;
    });
    await tick(60);
    assert.equal(settled, false, 'settled before it answered anything');
    wire.input.write(line(INIT));
    wire.input.write(line({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'slow' } }));
    await until(wire, 1);
    await tick(60);
    assert.equal(settled, false, 'settled while a call was running');
    wire.fixture.probe.releaseSlow[0]?.();
    await wire.transport.settled;
    assert.ok(
      wire.messages().some((m) => m.id === 9),
      'the call was answered before it settled',
    );
    wire.input.end();
    await wire.transport.closed;
  });

  it('on EOF answers stuck requests with an error after the drain timeout, and aborts them', async () => {
    const wire = start({ drainTimeoutMs: 30 });
    wire.input.write(line(INIT));
    wire.input.write(line({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'slow' } }));
    await until(wire, 1);
    await tick(5);
    wire.input.end();
    await wire.transport.closed;
    assert.equal(wire.fixture.probe.slowAborted, 1);
    const answer = wire.messages().find((m) => m.id === 8);
    assert.equal(answer?.error?.code, -32603, JSON.stringify(answer));
    assert.match(answer?.error?.message ?? '', /shutting down.*within the 30 ms drain/);
  });
});
