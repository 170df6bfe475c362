/**
 * `--workers 2`: the built CLI, a primary and two workers on one port, driven by the official v1
 * client. Every request goes out on a fresh TCP connection, so node:cluster's round-robin hands
 * consecutive requests to alternate workers; each response's X-Mcp-Run-Replica says which. Run
 * twice: with the state the primary holds (IPC), and with Redis (`--state`, skipped without
 * MCP_RUN_TEST_REDIS_URL).
 *
 * - the manifest's warnings at startup are said once, by the first worker;
 * - a 2025 session's requests land on both workers, its GET stream on one and calls on the other;
 * - a task started on one worker is read and awaited through the other;
 * - a reload with 2025 and 2026 listeners on both workers: each hears list_changed exactly once;
 * - a worker SIGKILLed mid-call: the call fails with an error, the worker comes back, the next
 *   call succeeds;
 * - /metrics: the server's totals summed over both workers, each worker's own levels labelled by
 *   its slot, in a valid exposition;
 * - SIGTERM to the primary drains both workers and exits 0.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { tempFiles } from '../helpers/demo.js';
import { readExposition } from '../helpers/exposition.js';
import { treeOf } from '../helpers/process-tree.js';
import { runCli } from '../helpers/run-cli.js';
import { eventually, type Listener, listen, REDIS_URL, stateUrl } from '../state/replicas-harness.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';

const manifest = (extra = '') => `
server:
  name: workers
  version: 1.0.0
  tasks: { pollIntervalMs: 100 }
sources:
  mem: { kind: sqlite, path: ":memory:" }
tools:
  one: { kind: sql, source: mem, description: The first, sql: SELECT 1 AS n }
  slow:
    kind: shell
    description: Sleeps in a child process, then reports with its tag.
    input:
      seconds: { type: number, description: How long }
      tag: { type: string, description: A marker to find the processes by }
    command: [sh, -c, 'sleep "$1" & wait; echo "done $2"', sh, "{{seconds}}", "{{tag}}"]
    timeoutMs: 120000
  claimed:
    kind: sql
    source: mem
    description: Its input comes from a claim, but the server has no auth (a warning at startup).
    input: { who: { type: string, fromClaim: sub } }
    sql: SELECT 3 AS n
${extra}`;
const TWO = '  two: { kind: sql, source: mem, description: The second, sql: SELECT 2 AS n }';
const THREE = '  three: { kind: sql, source: mem, description: The third, sql: SELECT 3 AS n }';

interface Served {
  readonly method: string;
  readonly replica: string;
}

/** A fetch that opens a new connection for every request (and records the worker that answered). */
function freshConnections(served: Served[], agents: Agent[]): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const agent = new Agent();
    agents.push(agent);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : {};
    const res = await undiciFetch(String(input), { ...(init as object), dispatcher: agent });
    served.push({
      method: body.method ?? init?.method ?? 'GET',
      replica: res.headers.get('x-mcp-run-replica') ?? '?',
    });
    return res;
  }) as unknown as typeof fetch;
}

/** A v1 client on fresh connections; it counts the tools/list_changed it hears. */
async function connect(url: string, agents: Agent[]) {
  const served: Served[] = [];
  const client = new Client({ name: 'workers-test', version: '1.0.0' }, { capabilities: {} });
  let heard = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void heard++);
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: freshConnections(served, agents),
  });
  await client.connect(transport);
  return {
    client,
    served,
    heard: () => heard,
    getStream: () => served.find((s) => s.method === 'GET')?.replica,
  };
}

/** The worker ids, as two fresh requests see them. */
async function workerIds(url: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let i = 0; i < 6 && ids.size < 2; i++) {
    const dead = await undiciFetch(url, { method: 'DELETE', dispatcher: new Agent() });
    await dead.text();
    ids.add(dead.headers.get('x-mcp-run-replica') ?? '?');
  }
  return ids;
}

async function ready(url: string): Promise<boolean> {
  const res = await undiciFetch(new URL('/readyz', url), { dispatcher: new Agent() }).catch(() => undefined);
  if (res === undefined) return false;
  await res.text();
  return res.status === 200;
}

const MODES = [
  { name: 'the state the primary holds (IPC)', state: undefined as string | undefined, skip: undefined },
  {
    name: 'Redis (--state)',
    state: REDIS_URL && stateUrl(REDIS_URL),
    skip:
      REDIS_URL === undefined ? 'MCP_RUN_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379)' : undefined,
  },
];

for (const mode of MODES)
  describe(`--workers 2 with ${mode.name}`, { skip: mode.skip }, () => {
    const files = tempFiles({ 'mcp.yaml': manifest() });
    const file = join(files.dir, 'mcp.yaml');
    const agents: Agent[] = [];
    let server: ServedCli;
    let workers: Set<string>;

    before(async () => {
      server = await spawnHttpCli(
        [
          file,
          '--workers',
          '2',
          '--metrics',
          '--log-level',
          'debug',
          ...(mode.state ? ['--state', mode.state] : []),
        ],
        { env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '', MCP_RUN_STATE_KEY: '' } },
      );
      workers = await workerIds(server.url);
      assert.equal(workers.size, 2, 'two workers answer on the port');
    });
    after(async () => {
      if (server) assert.equal(await server.stop(), 0, 'the primary drains both workers and exits 0');
      await Promise.all(agents.map((a) => a.destroy().catch(() => {})));
      files.cleanup();
    });

    test("the manifest's warnings are said once, by the first worker (the second logs them at debug)", () => {
      // Before any reload (the next tests make some, and the first worker says a reload's warnings).
      const lines = server.stderr().split('\n');
      const about = (level: string) =>
        lines.filter(
          (line) => line.startsWith(`mcp-run: ${level}: warning[`) && line.includes('tools.claimed'),
        );
      assert.equal(about('warn').length, 1, server.stderr());
      assert.equal(about('debug').length, 1, 'the second worker has it too, at debug');
    });

    test('a 2025 session is served by both workers: its GET stream on one, its calls on the other', async () => {
      const session = await connect(server.url, agents);
      try {
        await eventually(() => session.getStream() !== undefined, 'the GET stream');
        const calls = () => session.served.filter((s) => s.method === 'tools/call').map((s) => s.replica);
        // Round-robin hands each new connection to the next free worker: on a busy machine one
        // worker may take a few in a row, so the calls go on until both served some (at most 30).
        for (let i = 0; i < 30 && (i < 6 || new Set(calls()).size < 2); i++) {
          const result = await session.client.callTool({ name: 'one', arguments: {} });
          assert.deepEqual(result.structuredContent, { rows: [{ n: 1 }], rowCount: 1, truncated: false });
        }
        assert.deepEqual(new Set(calls()), workers, 'the calls went to both workers');
        assert.ok(
          calls().some((r) => r !== session.getStream()),
          'a call ran on the worker without the GET stream',
        );
      } finally {
        await session.client.close();
      }
    });

    test('a task started on one worker is read and awaited through the other', async () => {
      const session = await connect(server.url, agents);
      try {
        const tag = `t-${randomUUID()}`;
        const created = await session.client.request(
          { method: 'tools/call', params: { name: 'slow', arguments: { seconds: 1, tag }, task: {} } },
          CreateTaskResultSchema,
        );
        const taskId = created.task.taskId;
        const runner = session.served.findLast((s) => s.method === 'tools/call')?.replica;
        // Reads go round the workers until one lands on the worker not running the call (at most 30).
        const readers = () => session.served.filter((s) => s.method === 'tasks/get').map((s) => s.replica);
        for (let i = 0; i < 30 && !readers().some((r) => r !== runner); i++)
          await session.client.experimental.tasks.getTask(taskId);
        assert.ok(
          readers().some((r) => r !== runner),
          `a tasks/get was served by the other worker (${readers()})`,
        );
        const result = await session.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
        assert.equal((result.content[0] as { text: string }).text.trim(), `done ${tag}`);
      } finally {
        await session.client.close();
      }
    });

    test('a reload is one event: listeners on both workers hear each list_changed exactly once', async () => {
      // 2025 sessions until their GET streams are on both workers; 2026 listen streams likewise.
      const sessions: Awaited<ReturnType<typeof connect>>[] = [];
      const listeners: Listener[] = [];
      try {
        while (new Set(sessions.map((s) => s.getStream())).size < 2 && sessions.length < 8) {
          const session = await connect(server.url, agents);
          await eventually(() => session.getStream() !== undefined, 'the GET stream');
          sessions.push(session);
        }
        while (new Set(listeners.map((l) => l.replica)).size < 2 && listeners.length < 8)
          listeners.push(await listen(server.url, randomUUID()));
        assert.deepEqual(new Set(sessions.map((s) => s.getStream())), workers);
        assert.deepEqual(new Set(listeners.map((l) => l.replica)), workers);
        const changed = 'notifications/tools/list_changed';

        writeFileSync(file, manifest(TWO));
        await eventually(
          () => sessions.every((s) => s.heard() >= 1) && listeners.every((l) => l.count(changed) >= 1),
          'the first list_changed everywhere',
        );
        // A second edit: its notification comes after any duplicate of the first would have.
        writeFileSync(file, manifest(`${TWO}\n${THREE}`));
        await eventually(
          () => sessions.every((s) => s.heard() >= 2) && listeners.every((l) => l.count(changed) >= 2),
          'the second list_changed everywhere',
        );
        // Both workers serve the new version, then every listener has heard exactly two.
        for (let i = 0; i < 4; i++) {
          const { tools } = await (sessions[0] as (typeof sessions)[0]).client.listTools();
          assert.deepEqual(tools.map((t) => t.name).sort(), ['claimed', 'one', 'slow', 'three', 'two']);
        }
        assert.deepEqual(
          sessions.map((s) => s.heard()),
          sessions.map(() => 2),
        );
        assert.deepEqual(
          listeners.map((l) => l.count(changed)),
          listeners.map(() => 2),
        );
      } finally {
        for (const l of listeners) l.close();
        await Promise.all(sessions.map((s) => s.client.close()));
        writeFileSync(file, manifest());
      }
    });

    test("/metrics on any worker: the server's totals summed, each worker's own levels by worker; /readyz speaks for the server", async () => {
      const scrape = async () => {
        const res = await undiciFetch(new URL('/metrics', server.url), { dispatcher: new Agent() });
        // Throws where the text breaks the exposition format.
        const families = readExposition(await res.text());
        const value = (sample: string, labels: Record<string, string>) =>
          families
            .get(sample.replace(/_count$/, ''))
            ?.samples.find(
              (s) => s.name === sample && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
            )?.value ?? 0;
        return { families, value, by: res.headers.get('x-mcp-run-replica') ?? '?' };
      };
      const calls = (m: Awaited<ReturnType<typeof scrape>>) => ({
        counted: m.value('mcp_run_tool_calls_total', { tool: 'one', outcome: 'ok' }),
        timed: m.value('mcp_run_tool_call_duration_seconds_count', { tool: 'one' }),
      });
      const before = calls(await scrape());
      let made = 0;
      const session = await connect(server.url, agents);
      try {
        const served = () => session.served.filter((s) => s.method === 'tools/call').map((s) => s.replica);
        for (let i = 0; i < 30 && (i < 4 || new Set(served()).size < 2); i++)
          await session.client.callTool({ name: 'one', arguments: {} });
        made = served().length;
        assert.deepEqual(new Set(served()), workers, 'the calls went to both workers');
      } finally {
        await session.client.close();
      }
      const workerLabels = (m: Awaited<ReturnType<typeof scrape>>, name: string) =>
        new Set(m.families.get(name)?.samples.map((s) => s.labels.worker));
      // Scrapes until each worker answered one: each sees every call of both.
      const scrapedBy = new Set<string>();
      for (let i = 0; i < 30 && scrapedBy.size < 2; i++) {
        const after = await scrape();
        const now = calls(after);
        assert.equal(now.counted - before.counted, made, 'the calls counted: the sum over both workers');
        assert.equal(now.timed - before.timed, made, 'the calls timed: the sum over both workers');
        for (const name of [
          'mcp_run_tool_calls_total',
          'mcp_run_tool_call_duration_seconds',
          'mcp_run_http_bytes_out_total',
        ])
          assert.deepEqual(workerLabels(after, name), new Set([undefined]), `${name} is the server's total`);
        for (const name of [
          'mcp_run_tool_calls_in_flight',
          'mcp_run_sessions',
          'mcp_run_process_resident_memory_bytes',
          'mcp_run_process_start_time_seconds',
          'mcp_run_nodejs_version_info',
        ])
          assert.deepEqual(workerLabels(after, name), new Set(['1', '2']), `${name} is by worker`);
        assert.equal(after.value('mcp_run_tool_calls_in_flight', { tool: 'one', worker: '2' }), 0);
        // No name mixes the two: sum() over any metric counts each thing once.
        for (const [name, family] of after.families) {
          const labelled = family.samples.filter((s) => s.labels.worker !== undefined).length;
          assert.ok(
            labelled === 0 || labelled === family.samples.length,
            `${name} mixes summed and per-worker series`,
          );
        }
        assert.equal(after.value('mcp_run_workers', { state: 'up' }), 2);
        scrapedBy.add(after.by);
      }
      assert.deepEqual(scrapedBy, workers);
      const res = await undiciFetch(new URL('/readyz', server.url), { dispatcher: new Agent() });
      assert.equal(res.status, 200, await res.text());
    });

    test('a worker SIGKILLed mid-call: the call fails with an error, and the next one succeeds', async () => {
      const session = await connect(server.url, agents);
      try {
        const tag = `k-${randomUUID()}`;
        const call = session.client.callTool({ name: 'slow', arguments: { seconds: 60, tag } }, undefined, {
          timeout: 30_000,
        });
        const outcome = call.then(
          () => 'answered',
          (err: Error) => err,
        );
        await eventually(() => treeOf(tag).length > 0, 'the call running');
        const sh = treeOf(tag)[0] as number;
        const worker = Number(readFileSync(`/proc/${sh}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
        assert.notEqual(worker, server.child.pid, 'the call runs in a worker, not in the primary');
        process.kill(worker, 'SIGKILL');
        const failed = await outcome;
        assert.ok(failed instanceof Error, 'the call ended with an error, not an answer');
        // The client resumed the call's stream on the other worker, where the primary ended it with
        // an error; or its resume reached the dying worker, and failed.
        assert.match(failed.message, /server process running this request stopped|fetch failed/);
        // The client can see its connection drop before the primary handles the exit: until then
        // the server still counts the worker up, so its readiness says nothing yet.
        const exited = new RegExp(`worker \\d \\(pid ${worker}\\) exited \\(SIGKILL\\)`);
        await eventually(() => exited.test(server.stderr()), 'the primary saw the worker die');
        await eventually(() => ready(server.url), 'both workers up again');
        // The session lives on in the shared state: its next call succeeds, on either worker.
        for (let i = 0; i < 2; i++) {
          const result = await session.client.callTool({ name: 'one', arguments: {} });
          assert.equal(result.isError, undefined);
        }
        assert.equal((await workerIds(server.url)).size, 2, 'two workers answer again');
      } finally {
        await session.client.close();
      }
    });
  });

describe('--workers: what stops the start is said once', () => {
  const files = tempFiles({
    'mcp.yaml': manifest(),
    // A folder cannot be made under a file: the primary cannot open this trail.
    'audited.yaml': `server:\n  audit:\n    file: mcp.yaml/audit.jsonl\n${manifest().replace(/^\nserver:\n/, '')}`,
  });
  after(() => files.cleanup());

  test('with stdio, which is one process', () => {
    const run = runCli([join(files.dir, 'mcp.yaml'), '--workers', '2']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--workers serves one HTTP port from several processes; it needs --http/);
  });

  test('with a server.audit the primary cannot open (said once, by the first worker: exit 1)', () => {
    const run = runCli([join(files.dir, 'audited.yaml'), '--http', '--port', '0', '--workers', '2']);
    assert.equal(run.code, 1);
    const said = run.stderr.match(/mcp-run: cannot open the audit trail/g) ?? [];
    assert.equal(said.length, 1, run.stderr);
  });

  test('a count below 1 (bad usage)', () => {
    const run = runCli([join(files.dir, 'mcp.yaml'), '--http', '--workers', '0']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /a number of processes from 1 to 256, or auto/);
  });
});
