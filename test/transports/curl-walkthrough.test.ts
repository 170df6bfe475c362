/**
 * docs/clients.md, "By hand, with curl": each era's block, as written, run by a real shell with
 * curl against the demo served by the built CLI over HTTP (only the URL is swapped for the test's
 * port). Every answer is valid against the official schema of its era, the statuses the doc
 * promises are the ones printed, and the 2026 block's faulty request is refused naming each fault.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { demoCopy, REPO } from '../helpers/demo.js';
import { schemaFor } from '../protocol/mcp-schemas.js';
import { type ServedCli, spawnHttpCli } from './http-harness.js';

const doc = readFileSync(join(REPO, 'docs/clients.md'), 'utf8');
const DOC_URL = 'MCP=http://127.0.0.1:3000/mcp';

/** The sh block under a heading of the curl section. */
function block(heading: string): string {
  const section = doc.slice(doc.indexOf('## By hand, with curl'));
  const at = section.indexOf(`### ${heading}`);
  assert.ok(at >= 0, `docs/clients.md has no "### ${heading}"`);
  const code = /```sh\n([\s\S]*?)```/.exec(section.slice(at))?.[1];
  assert.ok(code?.includes(DOC_URL), `the ${heading} block does not start from ${DOC_URL}`);
  return code!;
}

type Message = { jsonrpc: string; id?: number; result?: any; error?: any };

/** The JSON-RPC messages the block printed (plain bodies and SSE `data:` lines), and the status lines. */
function run(script: string, cwd: string): { messages: Message[]; statuses: string[] } {
  const shell = spawnSync('sh', ['-c', script], { cwd, encoding: 'utf8', timeout: 30_000 });
  assert.equal(shell.status, 0, shell.stderr);
  const lines = shell.stdout.split('\n').map((l) => l.trim());
  const messages = lines
    .map((l) => l.replace(/^data: /, ''))
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Message);
  return { messages, statuses: lines.filter((l) => /^\d{3}$/.test(l)) };
}

describe('the curl walkthrough of docs/clients.md', () => {
  const demo = demoCopy();
  let server: ServedCli;
  before(async () => {
    server = await spawnHttpCli([demo.manifest], { cwd: demo.dir });
  });
  after(async () => {
    await server?.stop();
    demo.cleanup();
  });

  it('2025 era: initialize, the session header, initialized, tools/list, tools/call, DELETE', () => {
    const script = block('2025 era: a session').replace(DOC_URL, `MCP=${server.url}`);
    const { messages, statuses } = run(script, demo.dir);
    const schema = schemaFor('2025-11-25');
    assert.deepEqual(
      messages.map((m) => m.id),
      [1, 2, 3],
    );
    for (const m of messages) assert.deepEqual(schema.check('JSONRPCResultResponse', m), []);
    assert.deepEqual(schema.check('InitializeResult', messages[0]!.result), []);
    assert.deepEqual(schema.check('ListToolsResult', messages[1]!.result), []);
    assert.deepEqual(schema.check('CallToolResult', messages[2]!.result), []);
    assert.equal(messages[2]!.result.isError, undefined, JSON.stringify(messages[2]));
    assert.match(messages[2]!.result.content[0].text, /2 rows\./);
    assert.deepEqual(statuses, ['202', '200'], 'initialized is accepted, DELETE ends the session');
    assert.equal(server.child.exitCode, null);
  });

  it('2026-07-28: server/discover, tools/list, tools/call with the headers and _meta; a faulty one refused', () => {
    const script = block('2026-07-28: stateless requests').replace(DOC_URL, `MCP=${server.url}`);
    const { messages, statuses } = run(script, demo.dir);
    const schema = schemaFor('2026-07-28');
    assert.deepEqual(
      messages.map((m) => m.id),
      [1, 2, 3, 4],
    );
    for (const m of messages.slice(0, 3)) assert.deepEqual(schema.check('JSONRPCResultResponse', m), []);
    assert.deepEqual(schema.check('DiscoverResult', messages[0]!.result), []);
    assert.deepEqual(schema.check('ListToolsResult', messages[1]!.result), []);
    assert.deepEqual(schema.check('CallToolResult', messages[2]!.result), []);
    assert.match(messages[2]!.result.content[0].text, /2 rows\./);
    const refused = messages[3]!;
    assert.deepEqual(schema.check('JSONRPCErrorResponse', refused), []);
    assert.equal(refused.error.code, -32602);
    assert.deepEqual(
      refused.error.data.problems.map((p: { code: number }) => p.code),
      [-32602, -32020],
    );
    assert.deepEqual(statuses, ['400']);
  });
});
