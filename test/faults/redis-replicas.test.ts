/**
 * Redis faults under three replicas: three mcp-run processes with `--state` on a redis-server of the
 * suite's own, reached through the fault relay (so the network to Redis can be blackholed), behind
 * HAProxy (round-robin, no stickiness). Listening clients are spread over the replicas: 2025 sessions
 * (the official v1 client, each holding its GET stream) and 2026 `subscriptions/listen` streams.
 * For each fault (Redis SIGKILLed; blackholed; shut down and started again; blackholed for one
 * replica only, while the others fan a change out), counted:
 * - every listener gets each `notifications/tools/list_changed` exactly once (a bounded wait for a
 *   duplicate follows the first), for a manifest change made while Redis is away and for one made
 *   after it is back: 2026 listeners hear of it from their replica at once, 2025 sessions (told
 *   through the store, once each) as soon as Redis is back;
 * - a task of each era started before the fault is polled to its result through HAProxy after it;
 * - every 2025 session is served again, the same session, once Redis is back.
 * Last, a replica SIGKILLed while it runs a task of each era: polled through HAProxy, the task
 * reads failed within the heartbeat window (short here), never working for ever.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { treesOf } from '../helpers/process-tree.js';
import {
  type Balancer,
  eventually,
  type Listener,
  listen,
  type OwnRedis,
  type Replica,
  skipReason,
  startHaproxy,
  startOwnRedis,
  startReplica,
} from '../state/replicas-harness.js';
import { type Json, modernRequest, post } from '../transports/http-harness.js';
import { outcome } from './harness.js';
import { type FaultRelay, startRelay } from './relay.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const LIST_CHANGED = 'notifications/tools/list_changed';
/** The heartbeat window of these replicas: a silent runner is gone after this. */
const STALE_MS = 1500;
/** How long a listener is watched for a second copy once the first has arrived. */
const DUPLICATE_WAIT_MS = 1500;
/** A call with no answer within this is lost. */
const HARD_MS = 15_000;
/** How long each Redis fault lasts at least. */
const FAULT_MS = 3000;
/** Once Redis is back, every 2025 listener has the change within this (asserted). */
const RECOVERY_MS = 10_000;

const manifest = (extra: string[]) => `
server:
  name: redis-replicas
  version: 1.0.0
  tasks: { pollIntervalMs: 100 }
tools:
  hello:
    kind: content
    description: Says hello.
    content:
      - text: "hello"
  slow:
    kind: shell
    description: Sleeps, then reports with its tag.
    input:
      seconds: { type: number, description: How long }
      tag: { type: string, description: A marker }
    command: [sh, -c, 'sleep "$1"; echo "done $2"', sh, "{{seconds}}", "{{tag}}"]
    timeoutMs: 120000
${extra.map((name) => `  ${name}:\n    kind: content\n    description: Added by the test.\n    content:\n      - text: "${name}"\n`).join('')}`;

const skip = skipReason({ haproxy: true, redisServer: true });

interface Session2025 {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  /** The replica holding its GET stream. */
  readonly replica: string;
  readonly session: string;
  /** Each request it sent: the method (GET for its stream) and the replica that answered. */
  readonly served: { rpc: string; replica: string }[];
  listChanged: number;
}

describe('Redis faults under three replicas behind HAProxy', { skip }, () => {
  let dir: string;
  let file: string;
  let redis: OwnRedis;
  /** One relay per replica, so that one replica alone can be cut off from Redis. */
  let relays: FaultRelay[] = [];
  let replicas: Replica[] = [];
  let balancer: Balancer;
  const sessions: Session2025[] = [];
  const listeners: Listener[] = [];
  const added: string[] = [];
  /** Tags of the long calls: their processes, orphaned by the killed replica, are ended after. */
  const longTags: string[] = [];
  /** Changes made so far: what every listener must have counted. */
  let changes = 0;

  before(async () => {
    if (skip) return;
    dir = mkdtempSync(join(tmpdir(), 'mcp-run-redis-replicas-'));
    file = join(dir, 'mcp.yaml');
    writeFileSync(file, manifest([]));
    redis = await startOwnRedis({ persist: true });
    relays = await Promise.all([0, 1, 2].map(() => startRelay({ port: redis.port })));
    replicas = await Promise.all(
      relays.map((relay) =>
        startReplica(file, `redis://127.0.0.1:${relay.port}?prefix=redis-replicas`, [], {
          MCP_RUN_TASK_STALE_MS: String(STALE_MS),
        }),
      ),
    );
    balancer = await startHaproxy(replicas, { fall: 3 });
    const ids = replicas.map((r) => r.id);
    // Listeners are opened until every replica holds two 2025 GET streams and one 2026 listen. A
    // session sends three requests (initialize, initialized, GET): one more request through HAProxy
    // between two sessions moves round-robin on, so their GET streams land on different replicas.
    const sessionsSpread = () =>
      spread(
        sessions.map((s) => s.replica),
        ids,
        2,
      );
    for (let i = 0; i < 12 && !sessionsSpread(); i++) {
      sessions.push(await session2025(balancer.url));
      await fetch(new URL('/healthz', balancer.url)).then((r) => r.text());
    }
    const listensSpread = () =>
      spread(
        listeners.map((l) => l.replica),
        ids,
        1,
      );
    for (let i = 0; i < 6 && !listensSpread(); i++) listeners.push(await listen(balancer.url, `listen-${i}`));
  });

  after(async () => {
    for (const l of listeners) l.close();
    for (const s of sessions) await s.client.close().catch(() => undefined);
    await balancer?.stop();
    for (const r of replicas) await r.stop();
    for (const relay of relays) await relay.close();
    for (const pid of longTags.flatMap(treesOf))
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    await redis?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Adds a tool to the manifest: one tools/list_changed for every listener. */
  function change(name: string): void {
    added.push(name);
    changes++;
    writeFileSync(file, manifest(added));
  }

  const counts = () => ({
    s2025: sessions.map((s) => s.listChanged),
    s2026: listeners.map((l) => l.count(LIST_CHANGED)),
  });

  /**
   * Every listener of `which` era has `changes` list_changed within `limitMs`, and still has after
   * the wait for a duplicate; resolves with when the last of them had it.
   */
  async function exactlyOnce(which: 's2025' | 's2026' | 'both', limitMs: number): Promise<number> {
    const of = () => (which === 'both' ? [...counts().s2025, ...counts().s2026] : counts()[which]);
    await eventually(
      () => of().every((n) => n >= changes),
      `${changes} list_changed on every ${which} listener (${JSON.stringify(counts())})`,
      limitMs,
    );
    const all = Date.now();
    await new Promise((r) => setTimeout(r, DUPLICATE_WAIT_MS));
    assert.deepEqual(
      of(),
      of().map(() => changes),
      `each change once: ${JSON.stringify(counts())}`,
    );
    return all;
  }

  it('spreads the listeners over the three replicas', () => {
    const ids = replicas.map((r) => r.id);
    assert.ok(
      spread(
        sessions.map((s) => s.replica),
        ids,
        2,
      ),
      JSON.stringify(sessions.map((s) => s.replica)),
    );
    assert.ok(
      spread(
        listeners.map((l) => l.replica),
        ids,
        1,
      ),
      JSON.stringify(listeners.map((l) => l.replica)),
    );
  });

  const faults: { name: string; down: () => Promise<void>; up: () => Promise<void> }[] = [
    { name: 'SIGKILLed', down: () => redis.stop(), up: () => redis.start() },
    { name: 'blackholed', down: async () => blackhole(relays), up: async () => heal(relays) },
    { name: 'shut down and started again', down: () => redis.shutdown(), up: () => redis.start() },
    // Commands sent meanwhile time out here, yet reach Redis when the stall ends: a claim taken
    // then must still count as this replica's.
    { name: 'stalled', down: async () => stall(relays), up: async () => release(relays) },
    // The other replicas tell its sessions while it is away: it reads their streams once it is back.
    {
      name: 'blackholed for one replica only',
      down: async () => blackhole(relays.slice(1, 2)),
      up: async () => heal(relays.slice(1, 2)),
    },
  ];

  for (const fault of faults)
    it(`Redis ${fault.name}: each list_changed once to every listener, tasks polled to their result, no session lost`, async (t) => {
      const legacy = sessions[0] as Session2025;
      const tag = randomUUID().slice(0, 8);
      const legacyTask = await legacy.client.request(
        { method: 'tools/call', params: { name: 'slow', arguments: { seconds: 1, tag }, task: {} } },
        CreateTaskResultSchema,
      );
      const modernTask = await modern(balancer.url, 'tools/call', {
        name: 'slow',
        arguments: { seconds: 1, tag },
      });
      assert.equal(modernTask.result?.resultType, 'task', JSON.stringify(modernTask));

      await fault.down();
      const downAt = Date.now();
      // A 2025 call meanwhile: served, or a clear error; never silence.
      const during = outcome(
        () => legacy.client.callTool({ name: 'hello', arguments: {} }) as never,
        HARD_MS,
      );
      const slug = fault.name.replace(/\W+/g, '_');
      change(`while_${slug}`);
      // 2026 listeners hear of it from their own replica, Redis or not.
      await exactlyOnce('s2026', RECOVERY_MS);
      // The fault outlasts a command's time limit (2 s), whatever the timing of the reloads.
      await new Promise((r) => setTimeout(r, Math.max(0, downAt + FAULT_MS - Date.now())));
      await fault.up();
      const backAt = Date.now();
      const meanwhile = await during;
      assert.notEqual(meanwhile.kind, 'silent', 'a 2025 call during the fault was answered');
      // Bounded: within RECOVERY_MS of Redis being back, every 2025 listener has it.
      const recovered = (await exactlyOnce('s2025', RECOVERY_MS)) - backAt;

      change(`after_${slug}`);
      await exactlyOnce('both', RECOVERY_MS);

      // The tasks started before the fault, polled through HAProxy.
      let legacyDone: Json;
      await eventually(
        async () => {
          legacyDone = await legacy.client.experimental.tasks
            .getTask(legacyTask.task.taskId)
            .catch(() => undefined);
          return legacyDone?.status === 'completed';
        },
        `the 2025 task to complete (last: ${JSON.stringify(legacyDone)})`,
        RECOVERY_MS,
      );
      const legacyResult = await legacy.client.experimental.tasks.getTaskResult(
        legacyTask.task.taskId,
        CallToolResultSchema,
      );
      assert.equal((legacyResult.content[0] as Json).text.trim(), `done ${tag}`);
      let modernDone: Json;
      await eventually(
        async () => {
          modernDone = await modern(balancer.url, 'tasks/get', { taskId: modernTask.result.taskId });
          return modernDone.result?.status === 'completed';
        },
        `the 2026 task to complete (last: ${JSON.stringify(modernDone)})`,
        RECOVERY_MS,
      );
      assert.equal(modernDone.result.result.content[0].text.trim(), `done ${tag}`);

      // No 2025 session lost: each is served again, the same session.
      for (const s of sessions) {
        const result = await s.client.callTool({ name: 'hello', arguments: {} });
        assert.equal((result.content as Json[])[0].text, 'hello');
        assert.equal(s.transport.sessionId, s.session);
      }
      t.diagnostic(
        `a 2025 call during the fault: ${meanwhile.kind} after ${meanwhile.ms} ms ${meanwhile.kind === 'silent' ? '' : meanwhile.text.slice(0, 120)}; ` +
          `every 2025 listener had the change made meanwhile ${recovered} ms after Redis was back`,
      );
    });

  it('a replica SIGKILLed while it runs a task: polled through HAProxy, the task reads failed, never working for ever', async () => {
    const legacy = sessions[0] as Session2025;
    const tag = `t-${randomUUID()}`;
    longTags.push(tag);
    const started = await modern(balancer.url, 'tools/call', {
      name: 'slow',
      arguments: { seconds: 60, tag },
    });
    const runner = replicas.find((r) => r.id === started.replica) as Replica;
    assert.ok(runner, `the runner ${started.replica} is one of the replicas`);
    // A 2025 task on the same replica: the session's calls go where round-robin sends them.
    let legacyTask: { taskId: string; replica: string } | undefined;
    for (let i = 0; i < 6 && legacyTask === undefined; i++) {
      const before = legacy.served.length;
      const created = await legacy.client.request(
        { method: 'tools/call', params: { name: 'slow', arguments: { seconds: 60, tag }, task: {} } },
        CreateTaskResultSchema,
      );
      const on = legacy.served.slice(before).find((s) => s.rpc === 'tools/call')?.replica;
      if (on === runner.id) legacyTask = { taskId: created.task.taskId, replica: on };
    }
    assert.ok(legacyTask, 'a 2025 task ran on the same replica');
    await runner.kill();
    const killedAt = Date.now();
    let modernSeen: Json;
    let legacySeen: Json;
    await eventually(
      async () => {
        modernSeen = (await modern(balancer.url, 'tasks/get', { taskId: started.result.taskId })).result;
        legacySeen = await legacy.client.experimental.tasks.getTask(legacyTask.taskId).catch(() => undefined);
        return (
          modernSeen?.status !== 'working' && legacySeen !== undefined && legacySeen.status !== 'working'
        );
      },
      'the dead replica’s tasks to stop reading working',
      STALE_MS * 10,
    );
    assert.equal(modernSeen.status, 'failed');
    assert.match(modernSeen.error?.message ?? modernSeen.statusMessage ?? '', /went away/);
    assert.equal(legacySeen.status, 'failed');
    assert.match(legacySeen.statusMessage ?? '', /went away/);
    assert.ok(Date.now() - killedAt < STALE_MS * 10);
  });
});

/** The network to Redis drops every byte, both ways, on the connections open and new ones. */
function blackhole(relays: readonly FaultRelay[]): void {
  for (const relay of relays) relay.fault = { kind: 'blackhole' };
}

/** The network to Redis holds every byte, both ways, longer than a command waits. */
function stall(relays: readonly FaultRelay[]): void {
  for (const relay of relays) relay.fault = { kind: 'stall' };
}

/** The stall ends: what it held arrives, in order, and the connections go on. */
function release(relays: readonly FaultRelay[]): void {
  for (const relay of relays) relay.fault = { kind: 'none' };
}

/** The partition ends the way a long one does: the connections through it are gone (reset). */
function heal(relays: readonly FaultRelay[]): void {
  for (const relay of relays) {
    relay.fault = { kind: 'none' };
    relay.cut();
  }
}

/** Every id in `ids` appears at least `each` times in `seen`. */
function spread(seen: readonly string[], ids: readonly string[], each: number): boolean {
  return ids.every((id) => seen.filter((s) => s === id).length >= each);
}

/** A 2025 session through `url`, connected once its GET stream is open; counts its list_changed. */
async function session2025(url: string): Promise<Session2025> {
  const served: { rpc: string; replica: string }[] = [];
  const client = new Client({ name: 'redis-replicas', version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      const body = typeof init?.body === 'string' ? JSON.parse(init.body) : {};
      const rpc = init?.method === 'GET' ? 'GET' : (body.method ?? '');
      served.push({ rpc, replica: res.headers.get('x-mcp-run-replica') ?? '?' });
      return res;
    },
  });
  await client.connect(transport);
  await eventually(() => served.some((s) => s.rpc === 'GET'), 'the GET stream to open', 5000);
  const s: Session2025 = {
    client,
    transport,
    served,
    replica: served.find((x) => x.rpc === 'GET')?.replica as string,
    session: transport.sessionId as string,
    listChanged: 0,
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    s.listChanged++;
  });
  return s;
}

/** One 2026 request with the tasks extension through `url`: the JSON-RPC response and who served it. */
async function modern(url: string, method: string, params: Json): Promise<Json> {
  const { message, headers } = modernRequest(randomUUID(), method, params, {
    'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
  });
  if (typeof params.taskId === 'string') headers['mcp-name'] = params.taskId;
  const res = await post(url, message, headers);
  const type = String(res.headers['content-type'] ?? '');
  const response = type.includes('event-stream') ? res.events().find((m) => m.id === message.id) : res.json();
  return { ...response, replica: res.headers['x-mcp-run-replica'] };
}
