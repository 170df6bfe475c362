/**
 * The contract on a served manifest, over real HTTP with the official v1 client: a reload says how
 * it classes its changes; `reload.refuseBreaking` keeps the last good catalog on a breaking edit and
 * tells the author, while an additive edit goes through with one list_changed; the contract hash in
 * the initialize result's `_meta` stays put across a formatting-only edit and moves with the
 * contract; `mcp-run diff URL FILE` reads the running server as a client does.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { tempFiles } from '../helpers/demo.js';
import { ServerLog } from '../helpers/reload-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';

const manifest = (input: string, extraTool = '', refuse = true) => `
reload: { refuseBreaking: ${refuse} }
tools:
  find_order:
    kind: shell
    description: One order.
    command: [echo, "{{id}}"]
    annotations: { readOnlyHint: true }
    input:
${input}
${extraTool}`;
const OPTIONAL_ID = '      id: { type: string, required: false }';
const REQUIRED_ID = '      id: { type: string }';
const SECOND = `  second:
    kind: shell
    description: Another.
    command: [echo, two]`;

/** The contract hash of a fresh 2025 session, read from the raw initialize result. */
async function contractHashOf(url: string): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'hash', version: '1' } },
    }),
  });
  const text = await response.text();
  const json = JSON.parse(text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}'));
  const hash = json.result?._meta?.['mcp-run/contract'];
  assert.match(hash, /^[0-9a-f]{16}$/);
  return hash;
}

describe('the contract of a served manifest', () => {
  const files = tempFiles({ 'mcp.yaml': manifest(OPTIONAL_ID) });
  const file = join(files.dir, 'mcp.yaml');
  let server: ServedCli;
  let log: ServerLog;
  let client: Client;
  let listChanged = 0;

  before(async () => {
    server = await spawnHttpCli([file, '--log-level', 'debug']);
    log = new ServerLog(server.child.stderr);
    log.text = server.stderr();
    await log.waitFor(() => log.text.includes('watching'), 'the watcher to start');
    client = new Client({ name: 'contract', version: '1' });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    await log.waitFor(() => log.text.includes('opened its GET stream'), 'the session GET stream');
  });
  after(async () => {
    await client.close();
    assert.equal(await server.stop(), 0);
    files.cleanup();
  });

  test('a formatting-only edit keeps the contract hash', async () => {
    const hash = await contractHashOf(server.url);
    await log.edit(file, `# a comment\n${manifest(OPTIONAL_ID).replaceAll(': ', ':   ')}`);
    assert.equal(await contractHashOf(server.url), hash);
    assert.equal(listChanged, 0);
  });

  test('diff against the running server reads it as a client does', () => {
    const edited = join(files.dir, 'edited.yaml');
    const run = (args: string[]) => runCli(['diff', ...args]);
    const same = run([server.url, file, '--fail-on', 'any']);
    assert.equal(same.code, 0, same.stderr);
    assert.match(same.stdout, /no contract change/);
    writeFileSync(edited, manifest(REQUIRED_ID, SECOND));
    const changed = run([server.url, edited, '--json', '--fail-on', 'breaking']);
    assert.equal(changed.code, 1, changed.stderr);
    const report = JSON.parse(changed.stdout);
    assert.deepEqual(
      report.changes.map((c: { class: string; message: string }) => `${c.class}: ${c.message}`),
      ['breaking: tool `find_order` input `id` became required', 'additive: tool `second` added'],
    );
  });

  test('refuseBreaking keeps the old catalog on a breaking edit and tells the author', async () => {
    const hash = await contractHashOf(server.url);
    await log.edit(file, manifest(REQUIRED_ID));
    assert.match(log.text, /reload of mcp\.yaml refused; still serving the previous version/);
    assert.match(
      log.text,
      /error\[RELOAD_BREAKING_CHANGE\] .*mcp\.yaml\n {2}the edit breaks the contract for clients \(1 changed, 1 breaking: tool `find_order` input `id` became required\)/,
    );
    const { tools } = await client.listTools();
    assert.deepEqual(tools[0]?.inputSchema.required ?? [], []);
    assert.equal(await contractHashOf(server.url), hash);
    assert.equal(listChanged, 0);
  });

  test('an additive edit goes through with one list_changed and a new hash', async () => {
    const hash = await contractHashOf(server.url);
    await log.edit(file, manifest(OPTIONAL_ID, SECOND));
    assert.match(log.text, /reloaded mcp\.yaml: \+1 tool \(1 added\) \(the errors are fixed\)/);
    await log.waitFor(() => listChanged === 1, 'list_changed');
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['find_order', 'second'],
    );
    assert.notEqual(await contractHashOf(server.url), hash);
    assert.equal(listChanged, 1);
  });

  test('without refuseBreaking the breaking edit goes through and the log says why it breaks', async () => {
    await log.edit(file, manifest(REQUIRED_ID, SECOND, false));
    assert.match(
      log.text,
      /reloaded mcp\.yaml: ~1 tool \(1 changed, 1 breaking: tool `find_order` input `id` became required\)/,
    );
    await log.waitFor(() => listChanged === 2, 'list_changed');
  });
});
