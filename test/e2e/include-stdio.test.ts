/**
 * A manifest in several files, served over real stdio to the official SDK v1 client: the tools of
 * the included files are listed, each with its shared schemas self-contained under `$defs`; an
 * edit of an included file is a hot reload with one tools/list_changed; a broken edit there is
 * logged at its file:line and takes nothing away.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, tempFiles } from '../helpers/demo.js';
import { ServerLog } from '../helpers/reload-harness.js';

const tool = (name: string) =>
  `  ${name}:\n    kind: content\n    description: Shows ${name}.\n    input: { who: { $ref: '#/schemas/Person' } }\n    content: [{ text: "${name} {{who.name}}" }]\n`;
const files = tempFiles({
  'mcp.yaml': `server: { name: split, version: 1.0.0 }\ninclude: [tools/people.yaml]\nschemas:\n  Person: { type: object, properties: { name: { type: string } }, required: [name] }\n`,
  'tools/people.yaml': `tools:\n${tool('one')}`,
});
const included = join(files.dir, 'tools/people.yaml');
const client = new Client({ name: 'include', version: '1' });
let changed = 0;
let log: ServerLog;

before(async () => {
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, join(files.dir, 'mcp.yaml'), '--log-level', 'debug'],
    stderr: 'pipe',
  });
  log = new ServerLog(transport.stderr as never);
  await client.connect(transport);
  await log.waitFor(() => log.text.includes('watching'), 'the watcher to start');
});
after(async () => {
  await client.close();
  files.cleanup();
});

test('the included tools are served with their shared schemas self-contained; calls validate through them', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    ['one'],
  );
  const who = (tools[0]!.inputSchema.properties as Record<string, any>).who;
  assert.equal(who.$ref, '#/properties/who/$defs/Person');
  assert.deepEqual(who.$defs.Person.required, ['name']);
  const ok = await client.callTool({ name: 'one', arguments: { who: { name: 'Ada' } } });
  assert.deepEqual(ok.content, [{ type: 'text', text: 'one Ada' }]);
  const bad = await client.callTool({ name: 'one', arguments: { who: {} } });
  assert.equal(bad.isError, true);
});

test('editing the included file reloads; a broken edit there is logged at its line and keeps serving', async () => {
  await log.edit(included, `tools:\n${tool('one')}${tool('two')}`);
  assert.deepEqual(
    (await client.listTools()).tools.map((t) => t.name),
    ['one', 'two'],
  );
  assert.equal(changed, 1);
  await log.edit(included, `tools:\n${tool('one')}  two:\n    kind: contnt\n`);
  assert.match(log.text, /MANIFEST_UNKNOWN_KIND\] .*tools\/people\.yaml:8:11 tools\.two\.kind/);
  assert.deepEqual(
    (await client.listTools()).tools.map((t) => t.name),
    ['one', 'two'],
  );
});
