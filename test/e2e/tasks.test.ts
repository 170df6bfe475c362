/**
 * Tasks end to end against the built CLI, over real stdio and Streamable HTTP, with a slow shell
 * tool whose process tree is checked with `ps`.
 *
 * - 2026-07-28 (the io.modelcontextprotocol/tasks extension): the official SDK v2 client 2.4.0 has no
 *   task support (its Client refuses `resultType: "task"` with UNSUPPORTED_RESULT_TYPE), so the
 *   tests speak raw JSON-RPC through its own transports, which add the routing headers for tasks/*.
 * - 2025-11-25: the official SDK v1 client's experimental tasks API (callToolStream, getTask,
 *   getTaskResult, listTasks, cancelTask); every message it receives is checked against the
 *   vendored 2025-11-25 schema.
 * - A task outlives its client (HTTP, both eras); another caller's task id is unknown; a flood of
 *   creations is bounded by server.tasks.maxPerCaller.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { StreamableHTTPClientTransport as V2HttpTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2StdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { CLI, tempFiles } from '../helpers/demo.js';
import { alive, treeOf } from '../helpers/process-tree.js';
import { schemaFor } from '../protocol/mcp-schemas.js';
import { type Json, MODERN, type ServedCli, spawnHttpCli, taskRequest } from '../transports/http-harness.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const WITH_TASKS = { extensions: { [TASKS]: {} } };

const MANIFEST = `
server:
  name: tasks-e2e
  version: 1.0.0
  tasks: { pollIntervalMs: 100, maxPerCaller: 8 }
tools:
  slow:
    kind: shell
    description: Sleeps in a child process, then reports with its tag.
    input:
      seconds: { type: number, description: How long }
      tag: { type: string, description: A marker to find the processes by }
    command: [sh, -c, 'sleep "$1" & wait; echo "done $2"', sh, "{{seconds}}", "{{tag}}"]
    timeoutMs: 120000
  confirmed:
    kind: content
    description: Asks for a confirmation, then answers.
    task: optional
    confirm: Go ahead?
    content:
      - text: confirmed and done
  quick:
    kind: content
    description: Answers at once; never a task.
    content:
      - text: quick answer
`;

async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  limitMs = 20_000,
): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// ---------------------------------------------------------------- 2026 over the v2 transports

/** The 2026 shapes of the extension (ext-tasks schema/draft), checked key by key. */
function assertModernTask(task: Json, resultType: 'task' | 'complete'): void {
  assert.equal(task.resultType, resultType);
  assert.equal(typeof task.taskId, 'string');
  assert.ok(['working', 'input_required', 'completed', 'failed', 'cancelled'].includes(task.status));
  for (const key of ['createdAt', 'lastUpdatedAt']) assert.ok(!Number.isNaN(Date.parse(task[key])), key);
  assert.ok(Number.isInteger(task.ttlMs) && task.ttlMs > 0);
  assert.ok(Number.isInteger(task.pollIntervalMs) && task.pollIntervalMs > 0);
  for (const legacy of ['ttl', 'pollInterval', 'task', 'requestState']) assert.ok(!(legacy in task), legacy);
  if (task.status === 'completed') {
    const errors = schemaFor('2026-07-28').check('CallToolResult', task.result);
    assert.deepEqual(errors, [], 'the inlined result is a 2026 CallToolResult');
  }
}

class RawModern {
  private next = 1;
  private readonly waiting = new Map<number, (message: Json) => void>();

  constructor(
    private readonly transport: {
      start(): Promise<void>;
      send(m: Json): Promise<void>;
      close(): Promise<void>;
      onmessage?: (m: Json) => void;
    },
  ) {
    transport.onmessage = (message: Json) => {
      const done = this.waiting.get(message.id);
      if (done === undefined) return;
      this.waiting.delete(message.id);
      done(message);
    };
  }

  start(): Promise<void> {
    return this.transport.start();
  }

  /** The whole JSON-RPC response (result or error). */
  async call(method: string, params: Json = {}, capabilities: Json = WITH_TASKS): Promise<Json> {
    const id = this.next++;
    const answer = new Promise<Json>((resolve) => this.waiting.set(id, resolve));
    await this.transport.send({
      jsonrpc: '2.0',
      id,
      method,
      params: { ...params, _meta: { [PV]: MODERN, [CAPS]: capabilities } },
    });
    return answer;
  }

  async result(method: string, params: Json = {}, capabilities: Json = WITH_TASKS): Promise<Json> {
    const response = await this.call(method, params, capabilities);
    if (response.error) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result;
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

async function settle(client: RawModern, taskId: string): Promise<Json> {
  return until(`task ${taskId} to end`, async () => {
    const task = await client.result('tasks/get', { taskId });
    return ['completed', 'failed', 'cancelled'].includes(task.status) ? task : undefined;
  });
}

let files: { dir: string; cleanup: () => void };
let manifest: string;
let http: ServedCli;

before(async () => {
  files = tempFiles({ 'mcp.yaml': MANIFEST });
  manifest = join(files.dir, 'mcp.yaml');
  http = await spawnHttpCli([manifest]);
});

after(async () => {
  await http?.stop();
  files?.cleanup();
});

const v2Transports: [string, () => ConstructorParameters<typeof RawModern>[0]][] = [
  ['HTTP', () => new V2HttpTransport(new URL(http.url)) as never],
  [
    'stdio',
    () => new V2StdioTransport({ command: process.execPath, args: [CLI, manifest], stderr: 'pipe' }) as never,
  ],
];

for (const [name, transport] of v2Transports) {
  describe(`2026-07-28 tasks over ${name} (SDK v2 transport)`, () => {
    let client: RawModern;
    before(async () => {
      client = new RawModern(transport());
      await client.start();
    });
    after(async () => {
      await client.close();
    });

    test('discover advertises the extension; a shell tool runs as a task: poll, then the result', async () => {
      const discovered = await client.result('server/discover');
      assert.deepEqual(discovered.capabilities.extensions[TASKS], {});
      assert.equal(discovered.capabilities.tasks, undefined);
      const listed = await client.result('tools/list');
      assert.ok(
        listed.tools.every((tool: Json) => tool.execution === undefined),
        'no execution in 2026',
      );
      const tag = `t-${randomUUID()}`;
      const created = await client.result('tools/call', { name: 'slow', arguments: { seconds: 0.5, tag } });
      assertModernTask(created, 'task');
      assert.equal(created.status, 'working');
      const working = await client.result('tasks/get', { taskId: created.taskId });
      assertModernTask(working, 'complete');
      const done = await settle(client, created.taskId);
      assertModernTask(done, 'complete');
      assert.equal(done.status, 'completed');
      assert.equal(done.result.content[0].text.trim(), `done ${tag}`);
      assert.equal(done.result._meta?.['io.modelcontextprotocol/related-task'], undefined);
    });

    test('tasks/cancel mid-run ends the task cancelled and the whole process tree is gone', async () => {
      const tag = `t-${randomUUID()}`;
      const created = await client.result('tools/call', { name: 'slow', arguments: { seconds: 60, tag } });
      const tree = await until('the tool to start', () => {
        const pids = treeOf(tag);
        return pids.length >= 2 ? pids : undefined;
      });
      const ack = await client.result('tasks/cancel', { taskId: created.taskId });
      assert.equal(ack.resultType, 'complete');
      assert.deepEqual(
        Object.keys(ack).filter((k) => k !== '_meta'),
        ['resultType'],
      );
      const after = await client.result('tasks/get', { taskId: created.taskId });
      assert.equal(after.status, 'cancelled');
      await until('the process tree to die', () => tree.every((pid) => !alive(pid)) || undefined);
      const again = await client.result('tasks/cancel', { taskId: created.taskId });
      assert.equal(again.resultType, 'complete', 'cancelling a terminal task is an idempotent ack');
    });

    test('a confirm step moves the task to input_required; tasks/update answers it and the task completes', async () => {
      const caps = { ...WITH_TASKS, elicitation: { form: {} } };
      const created = await client.result('tools/call', { name: 'confirmed', arguments: {} }, caps);
      const waiting = await until('input_required', async () => {
        const task = await client.result('tasks/get', { taskId: created.taskId }, caps);
        return task.status === 'input_required' ? task : undefined;
      });
      const [key] = Object.keys(waiting.inputRequests);
      assert.equal(waiting.inputRequests[key!].method, 'elicitation/create');
      const ack = await client.result(
        'tasks/update',
        { taskId: created.taskId, inputResponses: { [key!]: { action: 'accept', content: {} } } },
        caps,
      );
      assert.equal(ack.resultType, 'complete');
      const done = await settle(client, created.taskId);
      assert.equal(done.status, 'completed');
      assert.equal(done.result.content[0].text, 'confirmed and done');
    });

    test('without the extension: tasks/* is -32021 and a call runs directly', async () => {
      const refused = await client.call('tasks/get', { taskId: 'anything' }, {});
      assert.equal(refused.error.code, -32021);
      assert.deepEqual(refused.error.data.requiredCapabilities, WITH_TASKS);
      const direct = await client.result(
        'tools/call',
        { name: 'slow', arguments: { seconds: 0, tag: 'direct' } },
        {},
      );
      assert.equal(direct.resultType, 'complete');
      assert.equal(direct.content[0].text.trim(), 'done direct');
      const quick = await client.result('tools/call', { name: 'quick', arguments: {} });
      assert.equal(quick.resultType, 'complete', 'a tool without task support never becomes a task');
      const unknown = await client.call('tasks/get', { taskId: 'no-such-task' });
      assert.equal(unknown.error.code, -32602);
    });
  });
}

// ---------------------------------------------------------------- 2025-11-25 with the v1 client

/** Connects a v1 client; every message it receives is checked against the 2025-11-25 schema. */
async function v1Client(transport: Transport, problems: string[], seen: Json[] = []): Promise<V1Client> {
  const client = new V1Client({ name: 'tasks-v1', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  const deliver = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    seen.push(message);
    problems.push(...schemaErrors(message as Json));
    deliver(message, extra);
  };
  return client;
}

const V1_RESULT_DEFS: Record<string, string> = {
  tasks: 'ListTasksResult',
  task: 'CreateTaskResult',
};

function schemaErrors(message: Json): string[] {
  const schema = schemaFor('2025-11-25');
  // TaskStatusNotificationParams is NotificationParams & Task (allOf); the closed NotificationParams
  // (mcp-schemas.ts closes objects) would refuse Task's keys, so the Task part is checked alone.
  if (message.method === 'notifications/tasks/status') return schema.check('Task', message.params);
  const result = message.result;
  if (result === undefined) return [];
  for (const [key, def] of Object.entries(V1_RESULT_DEFS))
    if (key in result) return schema.check(def, result);
  if ('taskId' in result) return schema.check('GetTaskResult', result);
  if ('content' in result) return schema.check('CallToolResult', result);
  return [];
}

const v1Transports: [string, () => Transport][] = [
  ['HTTP', () => new V1HttpTransport(new URL(http.url))],
  ['stdio', () => new V1StdioTransport({ command: process.execPath, args: [CLI, manifest], stderr: 'pipe' })],
];

for (const [name, transport] of v1Transports) {
  describe(`2025-11-25 tasks over ${name} (SDK v1 experimental tasks)`, () => {
    let client: V1Client;
    const problems: string[] = [];
    const seen: Json[] = [];
    before(async () => {
      client = await v1Client(transport(), problems, seen);
    });
    after(async () => {
      await client.close();
      assert.deepEqual(problems, [], 'every message matched the 2025-11-25 schema');
    });

    test('capabilities and execution.taskSupport; a task streamed to its result, then in tasks/list and tasks/result', async () => {
      const capabilities = client.getServerCapabilities() as Json;
      assert.deepEqual(capabilities.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
      const { tools } = await client.listTools();
      assert.deepEqual(tools.find((t) => t.name === 'slow')?.execution, { taskSupport: 'optional' });
      assert.equal(tools.find((t) => t.name === 'quick')?.execution, undefined);
      for (const tool of tools) assert.deepEqual(schemaFor('2025-11-25').check('Tool', tool), []);

      const tag = `t-${randomUUID()}`;
      const kinds: string[] = [];
      let taskId = '';
      let text = '';
      const stream = client.experimental.tasks.callToolStream(
        { name: 'slow', arguments: { seconds: 0.5, tag } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      );
      for await (const message of stream) {
        kinds.push(message.type);
        if (message.type === 'taskCreated') taskId = message.task.taskId;
        if (message.type === 'result') text = (message.result.content as Json[])[0].text;
        if (message.type === 'error') throw message.error;
      }
      assert.equal(kinds[0], 'taskCreated');
      assert.equal(kinds.at(-1), 'result');
      assert.equal(text.trim(), `done ${tag}`);
      const listed = await client.experimental.tasks.listTasks();
      const mine = listed.tasks.find((t) => t.taskId === taskId);
      assert.equal(mine?.status, 'completed');
      assert.equal(mine?.ttl, 60_000);
      const again = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      assert.equal((again.content[0] as Json).text.trim(), `done ${tag}`);
      assert.deepEqual(again._meta?.['io.modelcontextprotocol/related-task'], { taskId });
      const statuses = seen.filter(
        (m) => m.method === 'notifications/tasks/status' && m.params.taskId === taskId,
      );
      if (name === 'stdio')
        assert.ok(
          statuses.some((m) => m.params.status === 'completed'),
          'a status notification',
        );
    });

    test('cancel mid-run: cancelled Task back, process tree gone, tasks/result says cancelled, a second cancel is -32602', async () => {
      const tag = `t-${randomUUID()}`;
      const created = await client.request(
        { method: 'tools/call', params: { name: 'slow', arguments: { seconds: 60, tag }, task: {} } },
        CreateTaskResultSchema,
      );
      const taskId = created.task.taskId;
      const tree = await until('the tool to start', () => {
        const pids = treeOf(tag);
        return pids.length >= 2 ? pids : undefined;
      });
      const cancelled = await client.experimental.tasks.cancelTask(taskId);
      assert.equal(cancelled.status, 'cancelled');
      await until('the process tree to die', () => tree.every((pid) => !alive(pid)) || undefined);
      assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'cancelled');
      await assert.rejects(
        client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema),
        /cancelled/,
      );
      await assert.rejects(client.experimental.tasks.cancelTask(taskId), (err: Json) => err.code === -32602);
    });

    test('a call to a task-supporting tool without params.task runs directly; quick refuses params.task with -32601', async () => {
      const direct = await client.callTool({ name: 'slow', arguments: { seconds: 0, tag: 'direct' } });
      assert.equal((direct.content as Json[])[0].text.trim(), 'done direct');
      await assert.rejects(
        client.request(
          { method: 'tools/call', params: { name: 'quick', arguments: {}, task: {} } },
          CreateTaskResultSchema,
        ),
        (err: Json) => err.code === -32601,
      );
    });
  });
}

for (const [name, transport] of v1Transports) {
  test(`2025-11-25 over ${name}: a confirm step asks through tasks/result, tagged with the related task`, async () => {
    const client = new V1Client(
      { name: 'tasks-v1-asked', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    const asked: Json[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: {} };
    });
    await client.connect(transport());
    const kinds: string[] = [];
    let taskId = '';
    let text = '';
    for await (const message of client.experimental.tasks.callToolStream(
      { name: 'confirmed', arguments: {} },
      CallToolResultSchema,
      { task: {} },
    )) {
      kinds.push(message.type);
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'taskStatus')
        assert.ok(['working', 'input_required'].includes(message.task.status));
      if (message.type === 'result') text = (message.result.content as Json[])[0].text;
      if (message.type === 'error') throw message.error;
    }
    assert.equal(text, 'confirmed and done');
    assert.equal(asked.length, 1);
    assert.match(String(asked[0]!.message), /Go ahead\?/);
    assert.deepEqual(asked[0]!._meta?.['io.modelcontextprotocol/related-task'], { taskId });
    await client.close();
  });
}

// ---------------------------------------------------------------- across clients and callers (HTTP)

describe('tasks over HTTP, across clients and callers', () => {
  test('2026: a task survives its client disconnecting; a new client fetches the result', async () => {
    const tag = `t-${randomUUID()}`;
    const first = new RawModern(new V2HttpTransport(new URL(http.url)) as never);
    await first.start();
    const created = await first.result('tools/call', { name: 'slow', arguments: { seconds: 1, tag } });
    await first.close();
    const second = new RawModern(new V2HttpTransport(new URL(http.url)) as never);
    await second.start();
    const done = await settle(second, created.taskId);
    assert.equal(done.result.content[0].text.trim(), `done ${tag}`);
    await second.close();
  });

  test('2025-11-25: a task survives its client disconnecting; reconnecting to the session fetches it', async () => {
    const problems: string[] = [];
    const firstTransport = new V1HttpTransport(new URL(http.url));
    const first = await v1Client(firstTransport, problems);
    const sessionId = firstTransport.sessionId!;
    const tag = `t-${randomUUID()}`;
    const created = await first.request(
      { method: 'tools/call', params: { name: 'slow', arguments: { seconds: 1, tag }, task: {} } },
      CreateTaskResultSchema,
    );
    await first.close();
    const again = new V1Client({ name: 'tasks-v1-again', version: '1.0.0' });
    await again.connect(new V1HttpTransport(new URL(http.url), { sessionId }));
    const result = await again.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    assert.equal((result.content[0] as Json).text.trim(), `done ${tag}`);
    await again.close();
    assert.deepEqual(problems, []);
  });

  test("2025-11-25: another session's task id is unknown", async () => {
    const problems: string[] = [];
    const owner = await v1Client(new V1HttpTransport(new URL(http.url)), problems);
    const other = await v1Client(new V1HttpTransport(new URL(http.url)), problems);
    const created = await owner.request(
      { method: 'tools/call', params: { name: 'slow', arguments: { seconds: 0, tag: 'mine' }, task: {} } },
      CreateTaskResultSchema,
    );
    const id = created.task.taskId;
    await assert.rejects(other.experimental.tasks.getTask(id), (err: Json) => err.code === -32602);
    await assert.rejects(other.experimental.tasks.cancelTask(id), (err: Json) => err.code === -32602);
    assert.equal((await other.experimental.tasks.listTasks()).tasks.length, 0);
    await owner.experimental.tasks.getTaskResult(id, CallToolResultSchema);
    await owner.close();
    await other.close();
  });
});

describe('tasks with credentials and limits (HTTP)', () => {
  let served: ServedCli;
  before(async () => {
    served = await spawnHttpCli([manifest, '--auth-token-env', 'TASK_TOKENS'], {
      env: { ...process.env, TASK_TOKENS: 'alice-token-0123456789,mallory-token-0123456789' },
    });
  });
  after(async () => {
    await served.stop();
  });

  const call = (token: string, id: number, method: string, params: Json) =>
    taskRequest(served.url, token, id, method, params);

  test("2026: another caller's task id is not found, for get, update and cancel", async () => {
    const created = await call('alice-token-0123456789', 1, 'tools/call', {
      name: 'slow',
      arguments: { seconds: 30, tag: `t-${randomUUID()}` },
    });
    const taskId = created.result.taskId;
    for (const [method, extra] of [
      ['tasks/get', {}],
      ['tasks/update', { inputResponses: {} }],
      ['tasks/cancel', {}],
    ] as const) {
      const refused = await call('mallory-token-0123456789', 2, method, { taskId, ...extra });
      assert.equal(refused.error?.code, -32602, method);
    }
    const mine = await call('alice-token-0123456789', 3, 'tasks/get', { taskId });
    assert.equal(mine.result.status, 'working', "the owner's task is untouched");
    await call('alice-token-0123456789', 4, 'tasks/cancel', { taskId });
  });

  test('a flood of task creations is bounded by maxPerCaller, with a clear error, for that caller only', async () => {
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call('mallory-token-0123456789', 100 + i, 'tools/call', {
          name: 'slow',
          arguments: { seconds: 0, tag: 'flood' },
        }),
      ),
    );
    const tasks = results.filter((r) => r.result?.resultType === 'task');
    const refused = results.filter((r) => r.result?.isError === true);
    assert.equal(tasks.length, 8);
    assert.equal(refused.length, 22);
    assert.match(
      refused[0].result.content[0].text,
      /too many tasks: this caller holds 8 \(the limit is 8, server\.tasks\.maxPerCaller\)/,
    );
    const alice = await call('alice-token-0123456789', 200, 'tools/call', {
      name: 'slow',
      arguments: { seconds: 0, tag: 'ok' },
    });
    assert.equal(alice.result.resultType, 'task', 'another caller still gets tasks');
  });
});

describe('tasks are bound to the toolset they were started on (HTTP, same token)', () => {
  const TOKEN = 'alice-token-0123456789';
  const sets = tempFiles({
    'mcp.yaml': `${MANIFEST}toolsets:\n  billing: { tools: [slow] }\n  support: { tools: [quick] }\n`,
  });
  let served: ServedCli;
  before(async () => {
    served = await spawnHttpCli(
      [join(sets.dir, 'mcp.yaml'), '--no-watch', '--auth-token-env', 'TASK_TOKENS'],
      {
        env: { ...process.env, TASK_TOKENS: TOKEN },
      },
    );
  });
  after(async () => {
    await served.stop();
    sets.cleanup();
  });

  const call = (path: string, id: number, method: string, params: Json) =>
    taskRequest(`${served.url}${path}`, TOKEN, id, method, params);

  test('2026: a task of /billing is not found on /support or the default endpoint', async () => {
    const created = await call('/billing', 1, 'tools/call', {
      name: 'slow',
      arguments: { seconds: 30, tag: `t-${randomUUID()}` },
    });
    const taskId = created.result.taskId;
    assert.equal(typeof taskId, 'string', JSON.stringify(created));
    for (const path of ['/support', ''])
      for (const [method, extra] of [
        ['tasks/get', {}],
        ['tasks/update', { inputResponses: {} }],
        ['tasks/cancel', {}],
      ] as const) {
        const refused = await call(path, 2, method, { taskId, ...extra });
        assert.equal(refused.error?.code, -32602, `${method} on ${path || '/'}`);
      }
    const mine = await call('/billing', 3, 'tasks/get', { taskId });
    assert.equal(mine.result.status, 'working', 'untouched on its own toolset');
    await call('/billing', 4, 'tasks/cancel', { taskId });
  });

  test('2025-11-25: a task of /billing is unknown to a session on /support with the same token', async () => {
    const problems: string[] = [];
    const auth = { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } };
    const owner = await v1Client(new V1HttpTransport(new URL(`${served.url}/billing`), auth), problems);
    const other = await v1Client(new V1HttpTransport(new URL(`${served.url}/support`), auth), problems);
    const created = await owner.request(
      { method: 'tools/call', params: { name: 'slow', arguments: { seconds: 0, tag: 'billing' }, task: {} } },
      CreateTaskResultSchema,
    );
    const id = created.task.taskId;
    await assert.rejects(other.experimental.tasks.getTask(id), (err: Json) => err.code === -32602);
    await assert.rejects(
      other.experimental.tasks.getTaskResult(id, CallToolResultSchema),
      (err: Json) => err.code === -32602,
    );
    await assert.rejects(other.experimental.tasks.cancelTask(id), (err: Json) => err.code === -32602);
    assert.equal((await other.experimental.tasks.listTasks()).tasks.length, 0);
    assert.equal((await owner.experimental.tasks.listTasks()).tasks.length, 1);
    const result = await owner.experimental.tasks.getTaskResult(id, CallToolResultSchema);
    assert.equal((result.content[0] as Json).text.trim(), 'done billing');
    await owner.close();
    await other.close();
    assert.deepEqual(problems, []);
  });
});

describe('mcp-run call --task', () => {
  test('starts a task, prints its id and its status changes, then the result', () => {
    const run = spawnSync(
      process.execPath,
      [CLI, 'call', 'slow', '--task', '--arg', 'seconds=0.3', '--arg', 'tag=from-cli', '-m', manifest],
      { encoding: 'utf8' },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'done from-cli');
    const id = /^task (\S+) started$/m.exec(run.stderr)?.[1];
    assert.ok(id, run.stderr);
    assert.match(run.stderr, new RegExp(`^task ${id}: completed$`, 'm'));
  });

  test('refuses --task for a tool that cannot run as one (exit 2)', () => {
    const run = spawnSync(process.execPath, [CLI, 'call', 'quick', '--task', '-m', manifest], {
      encoding: 'utf8',
    });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /tool "quick" cannot run as a task/);
  });
});
