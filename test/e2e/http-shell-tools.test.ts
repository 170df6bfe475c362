/**
 * The official clients call an `http` tool (against a local upstream) and a `shell` tool over real
 * stdio: the SDK v1 client (2025 era, with progress and log notifications) and the SDK v2 client
 * pinned to 2026-07-28. The server is the built CLI serving a manifest written by the test.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, tempFiles } from '../helpers/demo.js';
import { startUpstream, type Upstream } from '../kinds/http/upstream.js';

const TOKEN = 'e2e-token-5e1f0c2a';

const MANIFEST = `
server: { name: http-shell-e2e, version: 1.0.0 }
sources:
  api:
    kind: http
    baseUrl: \${env:E2E_API_URL}
    auth: { bearer: "\${env:E2E_API_TOKEN}" }
tools:
  get_item:
    kind: http
    source: api
    title: Get item
    description: One item.
    path: /items/{id}
    input:
      id: { type: string }
      tag: { type: array, items: { type: string }, required: false }
    output:
      pick: "{method, url, auth: headers.authorization}"
      template: "{{method}} {{url}}"
  count:
    kind: shell
    description: Counts to n, reporting progress.
    command: [./bin/node, count.js, "{{n}}", "{{label}}", "{{ackDir}}"]
    progress: { pattern: "^step (?<progress>\\\\d+) of (?<total>\\\\d+)$" }
    input:
      n: { type: integer, minimum: 1, maximum: 5 }
      label: { type: string }
      ackDir: { type: string, required: false }
`;

const COUNT = [
  "const fs = require('node:fs');",
  'const [n, label, ackDir] = process.argv.slice(2);',
  // The v1 SDK handles notifications a microtask later than responses, so one that reaches it in
  // the same read as the response is dropped. With ackDir, each step waits until the client has
  // handled its progress and log notifications, which makes the order deterministic.
  'const acked = (i) => !ackDir || (fs.existsSync(ackDir + "/progress-" + i) && fs.existsSync(ackDir + "/log-" + i));',
  'const nap = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);',
  'for (let i = 1; i <= Number(n); i++) {',
  "  console.error('working on ' + i);",
  "  console.log('step ' + i + ' of ' + n);",
  '  for (let t = 0; t < 1000 && !acked(i); t++) nap();',
  '}',
  "console.log('done: ' + label);",
].join('\n');

let upstream: Upstream;
let files: { dir: string; cleanup: () => void };
let env: Record<string, string>;

before(async () => {
  upstream = await startUpstream();
  files = tempFiles({
    'mcp.yaml': MANIFEST,
    'count.js': COUNT,
    'bin/node': `#!/bin/sh\nexec '${process.execPath}' "$@"\n`,
  });
  chmodSync(join(files.dir, 'bin/node'), 0o755);
  env = {
    ...(process.env as Record<string, string>),
    E2E_API_URL: `${upstream.origin}/v1`,
    E2E_API_TOKEN: TOKEN,
  };
});
after(async () => {
  await upstream.close();
  files.cleanup();
});

const HOSTILE_ID = '../admin?x=1#y';

describe('stdio, SDK v1 client (2025-11-25)', () => {
  const client = new LegacyClient({ name: 'e2e-http-shell', version: '1.0.0' });
  before(async () => {
    await client.connect(
      new LegacyStdio({
        command: process.execPath,
        args: [CLI, join(files.dir, 'mcp.yaml')],
        env,
        stderr: 'pipe',
      }),
    );
  });
  after(() => client.close());

  test('lists both tools with their implied annotations', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => [t.name, t.annotations]),
      [
        ['get_item', { readOnlyHint: true, idempotentHint: true, openWorldHint: false }],
        ['count', { openWorldHint: false }],
      ],
    );
  });

  test('calls the http tool: the path value stays one segment, the token never shows', async () => {
    const result = await client.callTool({
      name: 'get_item',
      arguments: { id: HOSTILE_ID, tag: ['a', 'b'] },
    });
    const url = `/v1/items/${encodeURIComponent(HOSTILE_ID)}?tag=a&tag=b`;
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.structuredContent, { method: 'GET', url, auth: 'Bearer ***' });
    // The structured result is also sent as JSON text, for clients that read only text (spec SHOULD).
    assert.deepEqual(result.content, [
      { type: 'text', text: `GET ${url}` },
      { type: 'text', text: JSON.stringify(result.structuredContent) },
    ]);
    assert.equal(upstream.seen.at(-1)!.headers.authorization, `Bearer ${TOKEN}`);
    assert.ok(!JSON.stringify(result).includes(TOKEN));
  });

  test('calls the shell tool with progress notifications and stderr as log messages', async () => {
    const acks = join(files.dir, 'acks');
    mkdirSync(acks);
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push([n.params.level, n.params.logger, n.params.data]);
      writeFileSync(join(acks, `log-${String(n.params.data).split(' ').at(-1)}`), '');
    });
    await client.setLoggingLevel('info');
    const progress: unknown[] = [];
    const args = { n: 3, label: '$(id); `id`', ackDir: 'acks' };
    const result = await client.callTool({ name: 'count', arguments: args }, undefined, {
      onprogress: (p) => {
        progress.push([p.progress, p.total]);
        writeFileSync(join(acks, `progress-${p.progress}`), '');
      },
    });
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.content, [
      { type: 'text', text: 'step 1 of 3\nstep 2 of 3\nstep 3 of 3\ndone: $(id); `id`\n' },
    ]);
    assert.deepEqual(progress, [
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    assert.deepEqual(logs, [
      ['info', 'count', 'working on 1'],
      ['info', 'count', 'working on 2'],
      ['info', 'count', 'working on 3'],
    ]);
  });

  test('an option-looking argument is refused with an error result', async () => {
    const refused = await client.callTool({ name: 'count', arguments: { n: 1, label: '--help' } });
    assert.equal(refused.isError, true);
    assert.match(
      (refused.content as { text: string }[])[0]!.text,
      /starts with "-" and would be read as an option/,
    );
  });
});

describe('stdio, SDK v2 client pinned to 2026-07-28', () => {
  const client = new ModernClient(
    { name: 'e2e-http-shell', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  before(async () => {
    await client.connect(
      new ModernStdio({
        command: process.execPath,
        args: [CLI, join(files.dir, 'mcp.yaml')],
        env,
        stderr: 'pipe',
      }),
    );
  });
  after(() => client.close());

  test('negotiates 2026-07-28', () => assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28'));

  test('calls the http tool', async () => {
    const result = await client.callTool({ name: 'get_item', arguments: { id: 'a/b' } });
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.structuredContent, { method: 'GET', url: '/v1/items/a%2Fb', auth: 'Bearer ***' });
  });

  test('calls the shell tool', async () => {
    const result = await client.callTool({ name: 'count', arguments: { n: 2, label: 'x; rm -rf ~' } });
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.content, [
      { type: 'text', text: 'step 1 of 2\nstep 2 of 2\ndone: x; rm -rf ~\n' },
    ]);
  });
});
