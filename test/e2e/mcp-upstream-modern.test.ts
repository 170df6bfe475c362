/**
 * `kind: mcp` with a 2026-07-28-only upstream over Streamable HTTP (test/fixtures/mcp-upstream/
 * modern.mjs, the official v2 server library with legacy: 'reject'): mcp-run's own client finds
 * the era by `server/discover` (era: auto) and speaks it statelessly, for both eras of its own
 * callers: the official v1 client (2025) and the v2 client (2026-07-28) call its tools, read its
 * resource and get its prompt through mcp-run; the upstream's progress and error results are
 * relayed; its input_required question reaches each caller as that caller's era carries it; and
 * `era: 2025` against it fails to open with SOURCE_OPEN_FAILED.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, tempFiles } from '../helpers/demo.js';

type Json = Record<string, any>;
const REPO = join(import.meta.dirname, '../..');
const MODERN = join(REPO, 'test/fixtures/mcp-upstream/modern.mjs');
const text = (result: Json) => (result.content as Json[]).map((b) => b.text).join('');

/** Starts the fixture and resolves with its port once it listens. */
async function startModern(log: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [MODERN], {
    env: { ...process.env, MODERN_LOG: log },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let said = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the modern upstream did not listen: ${said}`)), 15_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      const m = /listening (\d+)/.exec(said);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      said += chunk.toString();
    });
  });
  return { child, port };
}

function manifestFor(port: number, era?: string): string {
  return `
sources:
  modern:
    kind: mcp
    url: http://127.0.0.1:${port}/mcp${era === undefined ? '' : `\n    era: "${era}"`}
    roots: ["file:///srv/shared"]
    expose:
      tools: { prefix: m_ }
      resources: {}
      prompts: {}
`;
}

describe('a 2026-07-28-only upstream over HTTP (era: auto), called by both eras of clients', () => {
  const files = tempFiles({});
  const log = join(files.dir, 'modern.log');
  let upstream: ChildProcess;
  const asked: string[] = [];
  const v1 = new Client(
    { name: 'modern-v1', version: '1' },
    { capabilities: { elicitation: {}, roots: {} } },
  );
  const v2 = new ClientV2(
    { name: 'modern-v2', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: {} } },
  );
  before(async () => {
    writeFileSync(log, '');
    const started = await startModern(log);
    upstream = started.child;
    const manifest = join(files.dir, 'mcp.yaml');
    writeFileSync(manifest, manifestFor(started.port));
    v1.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(`v1: ${request.params.message}`);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    v1.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///srv/one' }] }));
    v2.setRequestHandler('elicitation/create', async (request: Json) => {
      asked.push(`v2: ${request.params.message}`);
      return { action: 'accept', content: { name: 'Grace' } };
    });
    await Promise.all([
      v1.connect(
        new StdioClientTransport({ command: process.execPath, args: [CLI, manifest], stderr: 'pipe' }),
      ),
      v2.connect(new StdioV2({ command: process.execPath, args: [CLI, manifest], stderr: 'pipe' })),
    ]);
  });
  after(async () => {
    await Promise.all([v1.close(), v2.close()]);
    upstream?.kill('SIGKILL');
    files.cleanup();
  });

  test('mcp-run spoke 2026-07-28 to it: discover, the version and method headers, no session, no initialize', () => {
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    assert.ok(lines.includes('POST server/discover 2026-07-28 -'), lines.join('\n'));
    assert.ok(lines.includes('POST tools/list 2026-07-28 -'), lines.join('\n'));
    assert.ok(!lines.some((l) => l.includes('initialize')), lines.join('\n'));
    assert.ok(
      lines.every((l) => l.endsWith(' -')),
      `a session id was sent: ${lines.join('\n')}`,
    );
  });

  for (const [era, client] of [
    ['2025', () => v1],
    ['2026', () => v2],
  ] as const) {
    test(`a ${era} client lists and calls its tools, reads its resource and gets its prompt`, async () => {
      const c = client() as Client;
      const { tools } = await c.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), [
        'm_confirm',
        'm_echo',
        'm_fail',
        'm_regional',
        'm_roots',
        'm_slow',
        'm_wait',
      ]);
      const echoed = (await c.callTool({ name: 'm_echo', arguments: { text: `from ${era}` } })) as Json;
      assert.equal((echoed.content as Json[])[0]!.text, `echo: from ${era}`);
      assert.deepEqual(echoed.structuredContent, { text: `from ${era}` });
      const read = await c.readResource({ uri: 'note://hello' });
      assert.equal((read.contents[0] as Json).text, 'hello from 2026');
      const prompt = await c.getPrompt({ name: 'greet', arguments: { name: 'Lin' } });
      assert.equal((prompt.messages[0]!.content as Json).text, 'Say hello to Lin.');
    });

    test(`a ${era} client calls a tool whose argument the upstream wants as a header too (x-mcp-header)`, async () => {
      const result = (await (client() as Client).callTool({
        name: 'm_regional',
        arguments: { region: 'eu-west é' },
      })) as Json;
      assert.notEqual(result.isError, true, text(result));
      assert.equal(text(result), 'region: eu-west é');
    });

    test(`the upstream's error result reaches a ${era} client as an error result`, async () => {
      const failed = (await (client() as Client).callTool({ name: 'm_fail', arguments: {} })) as Json;
      assert.equal(failed.isError, true);
      assert.match(text(failed), /it went wrong upstream/);
    });

    test(`a ${era} client's progress token reaches the upstream, and what progress comes back is the upstream's`, async () => {
      const seen: Json[] = [];
      const before = readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l === 'slow token sent').length;
      const options = { onprogress: (p: Json) => seen.push(p) };
      const result = (await (era === '2025'
        ? v1.callTool({ name: 'm_slow', arguments: {} }, undefined, options)
        : v2.callTool({ name: 'm_slow', arguments: {} }, options))) as Json;
      assert.equal(text(result), 'done');
      const after = readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l === 'slow token sent').length;
      assert.equal(after, before + 1, 'the upstream was given a progress token');
      // Both steps arrive at mcp-run's client, in order (they precede the result on the upstream's
      // SSE answer); mcp-run's own caller may see the last after its result (then dropped by the SDK
      // client), so only their shape is checked here.
      assert.deepEqual(
        seen.map((p) => [p.progress, p.total]),
        [
          [1, 2],
          [2, 2],
        ].slice(0, seen.length),
      );
    });

    test(`the upstream's input_required question is asked of a ${era} client and its answer reaches the upstream`, async () => {
      const result = (await (client() as Client).callTool({ name: 'm_confirm', arguments: {} })) as Json;
      assert.notEqual(result.isError, true, text(result));
      assert.equal(text(result), `answer: accept {"name":"${era === '2025' ? 'Ada' : 'Grace'}"}`);
      assert.ok(asked.includes(`v${era === '2025' ? 1 : 2}: Who are you?`), asked.join('\n'));
    });
  }

  test("a caller's cancellation closes the upstream call's answer stream, which the upstream takes as its cancellation", async () => {
    const logged = (line: string) => readFileSync(log, 'utf8').split('\n').includes(line);
    const abort = new AbortController();
    const call = v1.callTool({ name: 'm_wait', arguments: {} }, undefined, { signal: abort.signal });
    for (let i = 0; i < 200 && !logged('waiting'); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(logged('waiting'), 'the upstream started the call');
    abort.abort();
    await assert.rejects(call);
    for (let i = 0; i < 200 && !logged('wait cancelled'); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(logged('wait cancelled'), 'the upstream saw the cancellation');
  });

  test("a roots question is answered with the source's roots: by mcp-run, for either caller, never with a caller's own", async () => {
    for (const client of [v1, v2]) {
      const answered = (await client.callTool({ name: 'm_roots', arguments: {} })) as Json;
      assert.equal(text(answered), 'roots: file:///srv/shared');
    }
  });
});

describe('era: 2025 against a 2026-07-28-only upstream', () => {
  const files = tempFiles({});
  let upstream: ChildProcess;
  after(() => {
    upstream?.kill('SIGKILL');
    files.cleanup();
  });

  test('fails to open with SOURCE_OPEN_FAILED, saying to set era: auto or 2026', async () => {
    const log = join(files.dir, 'modern.log');
    const started = await startModern(log);
    upstream = started.child;
    const manifest = join(files.dir, 'mcp.yaml');
    writeFileSync(manifest, manifestFor(started.port, '2025'));
    const run = spawnSync(process.execPath, [CLI, 'validate', manifest], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    const said = run.stdout + run.stderr;
    assert.notEqual(run.status, 0, said);
    assert.match(said, /SOURCE_OPEN_FAILED/);
    assert.match(said, /era: auto or 2026/);
  });
});
