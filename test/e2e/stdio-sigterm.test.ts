/**
 * SIGTERM on stdio drains like HTTP: a real server process with a slow (shell `sleep 1`) tool gets a
 * tools/call, then SIGTERM; the answer reaches stdout before the process exits, and it exits
 * promptly, with 0.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, tempFiles } from '../helpers/demo.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

test('stdio: SIGTERM answers the call in flight, then exits promptly', async () => {
  const files = tempFiles({
    'mcp.yaml': [
      'tools:',
      '  slow:',
      '    kind: shell',
      '    description: Sleeps a second, then says done.',
      '    command: [sh, -c, "sleep 1; echo done"]',
      '',
    ].join('\n'),
  });
  try {
    const child = spawn(process.execPath, [CLI, join(files.dir, 'mcp.yaml')], { stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
    });
    const exited = once(child, 'exit');
    const call = (id: number, name: string) =>
      `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, _meta: META } })}\n`;
    // A first, quick request proves the server is up before the slow one goes out.
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } })}\n`,
    );
    const deadline = Date.now() + 20_000;
    while (!stdout.includes('"id":1')) {
      assert.ok(Date.now() < deadline, `the server did not answer tools/list; stderr:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    child.stdin.write(call(2, 'slow'));
    // Give the call time to be dispatched and the sleep to start, then ask the process to stop.
    await new Promise((r) => setTimeout(r, 300));
    const termAt = Date.now();
    child.kill('SIGTERM');
    const [code, signal] = await exited;
    const tookMs = Date.now() - termAt;

    const answers = stdout
      .trim()
      .split('\n')
      .map(
        (l) => JSON.parse(l) as { id?: number; result?: { content?: { text: string }[]; isError?: boolean } },
      );
    const slow = answers.find((m) => m.id === 2);
    assert.ok(slow, `the call in flight got no answer before exit; stdout:\n${stdout}\nstderr:\n${stderr}`);
    assert.notEqual(slow.result?.isError, true, JSON.stringify(slow));
    assert.equal(slow.result?.content?.[0]?.text.trim(), 'done');
    assert.deepEqual([code, signal], [0, null], stderr);
    // Prompt: the sleep has at most a second left; the drain bound is 5 s. 4 s is generous.
    assert.ok(tookMs < 4000, `exit took ${tookMs} ms after SIGTERM`);
  } finally {
    files.cleanup();
  }
});

test('stdio: SIGTERM with a call that outlasts the drain bound answers it with an error and exits within the bound', async () => {
  const files = tempFiles({
    'mcp.yaml':
      'tools:\n  stuck:\n    kind: shell\n    description: s\n    command: [sleep, "60"]\n    timeoutMs: 120000\n',
  });
  try {
    const child = spawn(process.execPath, [CLI, join(files.dir, 'mcp.yaml')], { stdio: 'pipe' });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
    });
    const exited = once(child, 'exit');
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } })}\n`,
    );
    while (!stdout.includes('"id":1')) await new Promise((r) => setTimeout(r, 20));
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'stuck', arguments: {}, _meta: META } })}\n`,
    );
    await new Promise((r) => setTimeout(r, 300));
    const termAt = Date.now();
    child.kill('SIGTERM');
    const [code] = await exited;
    const tookMs = Date.now() - termAt;
    assert.equal(code, 0);
    // Not an end of stream with no answer: the drain answers the call it stopped.
    const answer = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id?: number; error?: { code: number; message: string } })
      .find((m) => m.id === 2);
    assert.ok(answer, `the call in flight got no answer before exit; stdout:\n${stdout}`);
    assert.equal(answer.error?.code, -32603, JSON.stringify(answer));
    assert.match(answer.error.message, /shutting down/);
    // The drain waits 5 s, then the call is answered and stopped: a 60 s sleep must not hold the exit. 15 s is generous.
    assert.ok(tookMs < 15_000, `exit took ${tookMs} ms after SIGTERM`);
  } finally {
    files.cleanup();
  }
});
