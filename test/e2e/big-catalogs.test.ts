/**
 * Search mode (`catalog: { mode: search }`, catalog/disclosure.ts) through the official clients and
 * the built CLI: the SDK v1 client over Streamable HTTP (2025-11-25) and the v2 client pinned to
 * 2026-07-28 over stdio and HTTP list the meta-tools and the pinned tool, then search, browse, describe and
 * call through `call_tool`. A call through `call_tool` is the direct call: its validation, its
 * confirm step (2025 elicitation, 2026 input_required), its task (2026, raw requests: the v2 client
 * has no tasks), and a tool outside the toolset is unknown as it is when called by name. A reload is
 * heard (list_changed) and search answers from the new catalog.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, tempFiles } from '../helpers/demo.js';
import { connectWatchedStdio } from '../helpers/reload-harness.js';
import { type Json, modernRequest, post, type ServedCli, spawnHttpCli } from '../transports/http-harness.js';

const manifest = (extra = '') => `
server:
  name: big-catalog
  catalog: { mode: search, pin: [status] }
toolsets:
  issues: { tools: ["issue_*"], catalog: { mode: search } }
tools:
  issue_create:
    kind: content
    group: issues
    title: Create an issue
    description: Opens a new issue in the tracker.
    input: { title: { type: string, description: The issue title } }
    content: [{ text: "created {{title}}" }]
  issue_delete:
    kind: content
    group: issues
    title: Delete an issue
    description: Deletes an issue after the user confirms.
    input: { id: { type: integer, description: Which issue } }
    confirm: "Delete issue {{id}}?"
    content: [{ text: "deleted {{id}}" }]
  report_build:
    kind: content
    group: reports
    title: Build a report
    description: Builds the weekly report; may run as a task.
    task: optional
    content: [{ text: report ready }]
  repo_star:
    kind: content
    group: repos
    title: Star a repository
    description: Stars a repository for the caller.
    content: [{ text: starred }]
  status:
    kind: content
    description: Says whether the server is up.
    content: [{ text: ok }]
${extra}`;

const META = ['search_tools', 'browse_tools', 'describe_tool', 'call_tool'];
const names = (items: readonly { name: string }[]) => items.map((t) => t.name);
const textOf = (result: Json): string => result.content[0].text;
/** The tool names a search_tools answer lists, best first. */
const listed = (result: Json): string[] =>
  textOf(result)
    .split('\n')
    .map((l) => l.slice(0, l.indexOf(':')));

describe('search mode over HTTP, SDK v1 (2025-11-25)', () => {
  const files = tempFiles({ 'mcp.yaml': manifest() });
  let server: ServedCli;
  const client = new Client({ name: 'big-v1', version: '1' }, { capabilities: { elicitation: {} } });
  const elicited: string[] = [];

  before(async () => {
    server = await spawnHttpCli([join(files.dir, 'mcp.yaml')]);
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicited.push(String(request.params.message));
      return { action: 'accept', content: {} };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  });
  after(async () => {
    await client.close();
    assert.equal(await server.stop(), 0);
    files.cleanup();
  });

  const call = async (name: string, args: Json = {}) =>
    (await client.callTool({ name, arguments: args })) as Json;

  test('tools/list shows the meta-tools and the pinned tool only', async () => {
    assert.deepEqual(names((await client.listTools()).tools), [...META, 'status']);
  });

  test('search, browse and describe answer about the whole catalog', async () => {
    assert.equal(listed(await call('search_tools', { query: 'open a new ticket' }))[0], 'issue_create');
    assert.equal(listed(await call('search_tools', { query: 'favorite a repo' }))[0], 'repo_star');
    const groups = textOf(await call('browse_tools'));
    assert.match(groups, /issues \(2\)/);
    assert.match(groups, /reports \(1\)/);
    assert.deepEqual(listed(await call('browse_tools', { group: 'issues' })), [
      'issue_create',
      'issue_delete',
    ]);
    const described = JSON.parse(textOf(await call('describe_tool', { name: 'issue_create' })));
    assert.equal(described.name, 'issue_create');
    assert.deepEqual(Object.keys(described.inputSchema.properties), ['title']);
    const unknown = await call('describe_tool', { name: 'issue_creat' });
    assert.equal(unknown.isError, true);
    assert.match(textOf(unknown), /did you mean "issue_create"/);
  });

  test('call_tool runs the tool as a direct call: arguments, validation, the confirm step', async () => {
    assert.equal(
      textOf(await call('call_tool', { name: 'issue_create', arguments: { title: 'Bug' } })),
      'created Bug',
    );
    const invalid = await call('call_tool', { name: 'issue_create', arguments: { title: 5 } });
    // Not listed, but callable by its own name: the same validation answers the same way.
    const direct = await call('issue_create', { title: 5 });
    assert.equal(invalid.isError, true);
    assert.match(textOf(invalid), /title/);
    assert.deepEqual(invalid, direct);
    assert.equal(textOf(await call('issue_create', { title: 'Direct' })), 'created Direct');
    elicited.length = 0;
    assert.equal(
      textOf(await call('call_tool', { name: 'issue_delete', arguments: { id: 3 } })),
      'deleted 3',
    );
    assert.deepEqual(elicited, ['Delete issue 3?']);
  });

  test('call_tool of a tool outside the toolset is refused as a direct call is: unknown', async () => {
    const scoped = new Client({ name: 'big-v1-issues', version: '1' });
    await scoped.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/issues`)));
    try {
      assert.deepEqual(names((await scoped.listTools()).tools), META);
      const through = await scoped
        .callTool({ name: 'call_tool', arguments: { name: 'status' } })
        .catch((err: Error) => err);
      const direct = await scoped.callTool({ name: 'status', arguments: {} }).catch((err: Error) => err);
      assert.ok(through instanceof Error && direct instanceof Error);
      assert.match(through.message, /Unknown tool: status/);
      assert.match(direct.message, /Unknown tool: status/);
      assert.deepEqual(
        listed(
          await scoped.callTool({ name: 'search_tools', arguments: { query: 'status of the server' } }),
        ).includes('status'),
        false,
      );
    } finally {
      await scoped.close();
    }
  });

  test('2026: call_tool of a task-capable tool starts a task, as a direct call would', async () => {
    const tasks = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
    const { message, headers } = modernRequest(
      7,
      'tools/call',
      { name: 'call_tool', arguments: { name: 'report_build' } },
      { 'io.modelcontextprotocol/clientCapabilities': tasks },
    );
    const answer = (await post(server.url, message, headers)).json();
    assert.equal(answer.result.resultType, 'task', JSON.stringify(answer));
    assert.equal(typeof answer.result.taskId, 'string');
    // Without the extension, the same call completes inline.
    const plain = modernRequest(8, 'tools/call', { name: 'call_tool', arguments: { name: 'report_build' } });
    const inline = (await post(server.url, plain.message, plain.headers)).json();
    assert.equal(inline.result.content[0].text, 'report ready', JSON.stringify(inline));
  });
});

const modernTransports: [
  string,
  (file: string) => Promise<{ transport: () => any; stop: () => Promise<void> }>,
][] = [
  [
    'stdio',
    async (file) => ({
      transport: () => new ModernStdio({ command: process.execPath, args: [CLI, file], stderr: 'pipe' }),
      stop: async () => {},
    }),
  ],
  [
    'HTTP',
    async (file) => {
      const server = await spawnHttpCli([file]);
      return {
        transport: () => new ModernHttp(new URL(server.url)),
        stop: async () => {
          assert.equal(await server.stop(), 0);
        },
      };
    },
  ],
];

for (const [over, start] of modernTransports) {
  describe(`search mode over ${over}, SDK v2 pinned to 2026-07-28`, () => {
    const files = tempFiles({ 'mcp.yaml': manifest() });
    const client = new ModernClient(
      { name: 'big-v2', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: {} } },
    );
    const elicited: string[] = [];
    let served: Awaited<ReturnType<typeof start>>;

    before(async () => {
      client.setRequestHandler('elicitation/create', async (request: Json) => {
        elicited.push(request.params.message);
        return { action: 'accept', content: {} } as never;
      });
      served = await start(join(files.dir, 'mcp.yaml'));
      await client.connect(served.transport());
    });
    after(async () => {
      await client.close();
      await served.stop();
      files.cleanup();
    });

    const call = async (name: string, args: Json = {}) =>
      (await client.callTool({ name, arguments: args })) as Json;

    test('list, search, describe, call (the confirm step as one input_required round)', async () => {
      assert.deepEqual(names((await client.listTools()).tools), [...META, 'status']);
      assert.equal(listed(await call('search_tools', { query: 'remove an issue' }))[0], 'issue_delete');
      const described = JSON.parse(textOf(await call('describe_tool', { name: 'issue_delete' })));
      assert.deepEqual(Object.keys(described.inputSchema.properties), ['id']);
      assert.equal(
        textOf(await call('call_tool', { name: 'issue_create', arguments: { title: 'X' } })),
        'created X',
      );
      assert.equal(
        textOf(await call('call_tool', { name: 'issue_delete', arguments: { id: 9 } })),
        'deleted 9',
      );
      assert.deepEqual(elicited, ['Delete issue 9?']);
      assert.equal(textOf(await call('status')), 'ok');
    });
  });
}

describe('search mode and hot reload over stdio, SDK v1', () => {
  const files = tempFiles({ 'mcp.yaml': manifest() });
  const file = join(files.dir, 'mcp.yaml');
  const client = new Client({ name: 'big-reload', version: '1' });
  let changed = 0;

  after(async () => {
    await client.close();
    files.cleanup();
  });

  test('an added tool is announced with list_changed and found by search at once', async () => {
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    const log = await connectWatchedStdio(client, file);
    const search = async (query: string) =>
      listed((await client.callTool({ name: 'search_tools', arguments: { query } })) as Json);
    assert.equal((await search('close a ticket')).includes('issue_close'), false);
    await log.edit(
      file,
      manifest(`  issue_close:
    kind: content
    group: issues
    title: Close an issue
    description: Marks an issue as done.
    content: [{ text: closed }]
`),
    );
    await log.waitFor(() => changed > 0, 'tools/list_changed');
    assert.equal((await search('close a ticket'))[0], 'issue_close');
    const text = textOf(await client.callTool({ name: 'call_tool', arguments: { name: 'issue_close' } }));
    assert.equal(text, 'closed');
  });
});
