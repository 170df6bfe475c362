/**
 * A stdio upstream is one per server: `--workers 2` would start a copy in each worker, and a
 * stateful upstream's copies diverge (server-memory's graph written through one worker is not in
 * the other's). So the built CLI refuses such a manifest, once, at the source's line, naming the
 * ways out; `perWorker: true` says the upstream keeps no state between calls, and each worker then
 * runs its own copy, which serves.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { tempFiles } from '../../helpers/demo.js';
import { runCli } from '../../helpers/run-cli.js';
import { type ServedCli, spawnHttpCli } from '../../transports/http-harness.js';

const REPO = join(import.meta.dirname, '../../..');
const FILESYSTEM = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const MEMORY = join(REPO, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const node = JSON.stringify(process.execPath);

const manifest = (source: string) => `
server: { name: upstreams, version: 1.0.0 }
sources:
${source}
`;

describe('kind: mcp over stdio with --workers', () => {
  const files = tempFiles({
    'memory.yaml': manifest(`  memory:
    kind: mcp
    command: [${node}, ${JSON.stringify(MEMORY)}]
    expose: { tools: { include: [read_graph] } }`),
    'notes/a.txt': 'a note\n',
  });
  const stateless = join(files.dir, 'fs.yaml');
  let served: ServedCli | undefined;
  after(async () => {
    await served?.stop();
    files.cleanup();
  });

  test('a stdio upstream is refused under --workers 2, at its line, with the ways out', () => {
    const run = runCli([join(files.dir, 'memory.yaml'), '--http', '--port', '0', '--workers', '2'], {
      env: { ...process.env, MCP_RUN_STATE_KEY: '' },
    });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /memory\.yaml:6:\d+ sources\.memory\.command/);
    assert.match(
      run.stderr,
      /--workers would start 2 copies of it, and a stateful upstream's copies diverge/,
    );
    assert.match(run.stderr, /--workers 1.*`url:`.*perWorker: true/s);
    // Said once: the first worker starts alone and its failure ends the server.
    assert.equal(run.stderr.match(/copies diverge/g)?.length, 1);
  });

  test('perWorker: true runs a copy in each worker, and it serves', async () => {
    writeFileSync(
      stateless,
      manifest(`  fs:
    kind: mcp
    command: [${node}, ${JSON.stringify(FILESYSTEM)}, ${JSON.stringify(join(files.dir, 'notes'))}]
    perWorker: true
    expose: { tools: { include: [read_text_file] } }`),
    );
    served = await spawnHttpCli([stateless, '--workers', '2', '--no-watch'], {
      env: { ...process.env, MCP_RUN_STATE_KEY: '' },
    });
    const res = await fetch(served.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'read_text_file',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'read_text_file',
          arguments: { path: join(files.dir, 'notes/a.txt') },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const body = (await res.json()) as { result?: { content?: { text?: string }[] } };
    assert.equal(body.result?.content?.[0]?.text, 'a note\n', JSON.stringify(body));
  });
});
