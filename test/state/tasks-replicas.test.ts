/**
 * Tasks with `--state`: a task started on one replica is read, awaited, cancelled and found failed
 * through another, both replicas addressed directly (so which one runs the call is known) and
 * sharing the real Redis. 2025-11-25: the official v1 client, its tools/call sent to replica A and
 * every other request to replica B. 2026-07-28: raw JSON-RPC with the tasks extension. A cancel
 * through B stops the process tree on A (checked with `ps`); a replica killed mid-task leaves its
 * task failed, not working, once its heartbeat window (MCP_RUN_TASK_STALE_MS, short here) passes.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { alive, treeOf } from '../helpers/process-tree.js';
import { type Json, modernRequest, post } from '../transports/http-harness.js';
import {
  eventually,
  type Replica,
  skipReason,
  startHaproxy,
  startReplica,
  stateUrl,
} from './replicas-harness.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const MANIFEST = `
server:
  name: tasks-replicas
  version: 1.0.0
  tasks: { pollIntervalMs: 100 }
tools:
  slow:
    kind: shell
    description: Sleeps in a child process, then reports with its tag.
    input:
      seconds: { type: number, description: How long }
      tag: { type: string, description: A marker to find the processes by }
    command: [sh, -c, 'sleep "$1" & wait; echo "done $2"', sh, "{{seconds}}", "{{tag}}"]
    timeoutMs: 120000
`;
/** The heartbeat window of these replicas: a silent runner is gone after this. */
const STALE_MS = '1500';

const skip = skipReason({ haproxy: true });

/** A v1 client whose tools/call goes to `runner` and every other request to `reader`. */
function splitClient(runner: Replica, reader: Replica) {
  const served: { rpc: string; replica: string }[] = [];
  const client = new Client({ name: 'tasks-replicas', version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(reader.url), {
    fetch: async (input, init) => {
      const body = typeof init?.body === 'string' ? JSON.parse(init.body) : {};
      const rpc = body.method ?? '';
      const to = rpc === 'tools/call' || rpc === 'initialize' ? runner.url : String(input);
      const res = await fetch(to, init);
      served.push({ rpc, replica: res.headers.get('x-mcp-run-replica') ?? '?' });
      return res;
    },
  });
  return { client, transport, served };
}

/** One 2026 request with the tasks extension to one replica; the JSON-RPC response. */
async function modern(replica: Replica, method: string, params: Json): Promise<Json> {
  const { message, headers } = modernRequest(randomUUID(), method, params, {
    'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
  });
  if (typeof params.taskId === 'string') headers['mcp-name'] = params.taskId;
  const res = await post(replica.url, message, headers);
  const type = String(res.headers['content-type'] ?? '');
  return type.includes('event-stream') ? res.events().find((m) => m.id === message.id) : res.json();
}

async function modernOk(replica: Replica, method: string, params: Json): Promise<Json> {
  const response = await modern(replica, method, params);
  if (response?.error) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
  return response.result;
}

describe('tasks across replicas sharing Redis', { skip }, () => {
  let dir: string;
  let manifest: string;
  let state: string;
  let a: Replica;
  let b: Replica;
  const leftovers: number[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-run-task-replicas-'));
    manifest = join(dir, 'mcp.yaml');
    writeFileSync(manifest, MANIFEST);
    state = stateUrl();
    [a, b] = (await Promise.all(
      [0, 1].map(() => startReplica(manifest, state, [], { MCP_RUN_TASK_STALE_MS: STALE_MS })),
    )) as [Replica, Replica];
    assert.notEqual(a.id, b.id);
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    for (const pid of leftovers)
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    rmSync(dir, { recursive: true, force: true });
  });

  test('2025-11-25 (v1 client): started on A; tasks/get, tasks/result and tasks/list through B; another session cannot see it', async () => {
    const { client, transport, served } = splitClient(a, b);
    await client.connect(transport);
    const other = splitClient(b, b);
    await other.client.connect(other.transport);
    try {
      const tag = `t-${randomUUID()}`;
      const created = await client.request(
        { method: 'tools/call', params: { name: 'slow', arguments: { seconds: 1, tag }, task: {} } },
        CreateTaskResultSchema,
      );
      const taskId = created.task.taskId;
      assert.equal(created.task.status, 'working');
      const working = await client.experimental.tasks.getTask(taskId);
      assert.ok(['working', 'completed'].includes(working.status), working.status);
      // tasks/result through B waits for the end of the call running on A.
      const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      assert.equal((result.content[0] as Json).text.trim(), `done ${tag}`);
      const listed = await client.experimental.tasks.listTasks();
      assert.equal(listed.tasks.find((t) => t.taskId === taskId)?.status, 'completed');
      const call = served.find((s) => s.rpc === 'tools/call');
      assert.equal(call?.replica, a.id, 'the call ran on A');
      for (const rpc of ['tasks/get', 'tasks/result', 'tasks/list'])
        assert.equal(served.find((s) => s.rpc === rpc)?.replica, b.id, `${rpc} was served by B`);
      // Another session, on the replica that answered the first one's reads, does not know the id.
      await assert.rejects(
        other.client.experimental.tasks.getTask(taskId),
        (err: Json) => err.code === -32602,
      );
      assert.equal(
        (await other.client.experimental.tasks.listTasks()).tasks.length,
        0,
        'another session lists none',
      );
    } finally {
      await client.close();
      await other.client.close();
    }
  });

  test('2025-11-25 through HAProxy (round-robin): the v1 client streams a task to its result, its requests spread over both replicas', async () => {
    const lb = await startHaproxy([a, b]);
    const served: { rpc: string; replica: string }[] = [];
    const client = new Client({ name: 'tasks-lb', version: '1.0.0' }, { capabilities: {} });
    const transport = new StreamableHTTPClientTransport(new URL(lb.url), {
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        const body = typeof init?.body === 'string' ? JSON.parse(init.body) : {};
        served.push({ rpc: body.method ?? '', replica: res.headers.get('x-mcp-run-replica') ?? '?' });
        return res;
      },
    });
    await client.connect(transport);
    try {
      const tag = `t-${randomUUID()}`;
      let text = '';
      const stream = client.experimental.tasks.callToolStream(
        { name: 'slow', arguments: { seconds: 1, tag } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      );
      for await (const message of stream) {
        if (message.type === 'result') text = (message.result.content as Json[])[0].text;
        if (message.type === 'error') throw message.error;
      }
      assert.equal(text.trim(), `done ${tag}`);
      const call = served.find((s) => s.rpc === 'tools/call');
      const reads = served.filter((s) => s.rpc.startsWith('tasks/'));
      assert.ok(reads.length > 0, JSON.stringify(served));
      assert.ok(
        reads.some((s) => s.replica !== call?.replica),
        `some task request reached the replica not running it: ${JSON.stringify(served)}`,
      );
    } finally {
      await client.close();
      await lb.stop();
    }
  });

  test('2025-11-25: a cancel through B stops the process tree on A', async () => {
    const { client, transport, served } = splitClient(a, b);
    await client.connect(transport);
    try {
      const tag = `t-${randomUUID()}`;
      const created = await client.request(
        { method: 'tools/call', params: { name: 'slow', arguments: { seconds: 60, tag }, task: {} } },
        CreateTaskResultSchema,
      );
      const tree = await waitForTree(tag);
      leftovers.push(...tree);
      const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
      assert.equal(cancelled.status, 'cancelled');
      assert.equal(served.findLast((s) => s.rpc === 'tasks/cancel')?.replica, b.id);
      await eventually(() => tree.every((pid) => !alive(pid)), 'the process tree on A to die');
      assert.equal((await client.experimental.tasks.getTask(created.task.taskId)).status, 'cancelled');
    } finally {
      await client.close();
    }
  });

  test('2026-07-28 (raw JSON-RPC): started on A, polled and fetched through B; a cancel through B stops the tree on A', async () => {
    const tag = `t-${randomUUID()}`;
    const created = await modernOk(a, 'tools/call', { name: 'slow', arguments: { seconds: 0.5, tag } });
    assert.equal(created.resultType, 'task');
    let done: Json;
    await eventually(async () => {
      done = await modernOk(b, 'tasks/get', { taskId: created.taskId });
      return done.status === 'completed';
    }, 'the task to complete, read through B');
    assert.equal(done.result.content[0].text.trim(), `done ${tag}`);

    const long = `t-${randomUUID()}`;
    const running = await modernOk(a, 'tools/call', { name: 'slow', arguments: { seconds: 60, tag: long } });
    const tree = await waitForTree(long);
    leftovers.push(...tree);
    const ack = await modernOk(b, 'tasks/cancel', { taskId: running.taskId });
    assert.equal(ack.resultType, 'complete');
    await eventually(() => tree.every((pid) => !alive(pid)), 'the process tree on A to die');
    assert.equal((await modernOk(b, 'tasks/get', { taskId: running.taskId })).status, 'cancelled');
    const unknown = await modern(b, 'tasks/get', { taskId: `${running.taskId}x` });
    assert.equal(unknown.error?.code, -32602, 'an unknown id is not found on B either');
  });

  test('a replica killed mid-task: its task reads failed through another, within the heartbeat window', async () => {
    const c = await startReplica(manifest, state, [], { MCP_RUN_TASK_STALE_MS: STALE_MS });
    try {
      const tag = `t-${randomUUID()}`;
      const created = await modernOk(c, 'tools/call', { name: 'slow', arguments: { seconds: 60, tag } });
      leftovers.push(...(await waitForTree(tag)));
      // Alive and heartbeating: still working when read through B after a whole window.
      await new Promise((resolve) => setTimeout(resolve, Number(STALE_MS) * 2));
      assert.equal((await modernOk(b, 'tasks/get', { taskId: created.taskId })).status, 'working');
      await c.kill();
      let seen: Json;
      await eventually(
        async () => {
          seen = await modernOk(b, 'tasks/get', { taskId: created.taskId });
          return seen.status !== 'working';
        },
        'the dead replica’s task to stop reading working',
        Number(STALE_MS) * 10,
      );
      assert.equal(seen.status, 'failed');
      assert.match(seen.error?.message ?? seen.statusMessage ?? '', /went away/);
    } finally {
      await c.kill();
    }
  });
});

async function waitForTree(tag: string): Promise<number[]> {
  let tree: number[] = [];
  await eventually(() => {
    tree = treeOf(tag);
    return tree.length >= 2;
  }, 'the tool to start');
  return tree;
}
