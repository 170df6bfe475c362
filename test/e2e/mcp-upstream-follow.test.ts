/**
 * What `kind: mcp` relays beside calls, through the built CLI (over HTTP, so that several clients
 * share its upstreams) with the official v1 client: resource subscriptions (the reference server everything, and the probe, which records
 * the subscribes and unsubscribes it is sent), completion of an upstream prompt's arguments and of
 * a resource template's variable (everything's completable prompt, renamed by a prefix), and a
 * `kind: mcp` tool run as a task (its progress shown, its upstream call cancelled with the task).
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
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { tempFiles } from '../helpers/demo.js';
import {
  CAPS,
  modernRequest,
  openStream,
  post,
  type ServedCli,
  spawnHttpCli,
} from '../transports/http-harness.js';

type Json = Record<string, any>;
const REPO = join(import.meta.dirname, '../..');
const EVERYTHING = join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const PROBE = join(REPO, 'test/fixtures/mcp-upstream/probe.mjs');
const node = JSON.stringify(process.execPath);
const ARCHITECTURE = 'demo://resource/static/document/architecture.md';
const FEATURES = 'demo://resource/static/document/features.md';

const files = tempFiles({ 'probe.log': '' });
const probeLog = join(files.dir, 'probe.log');
const manifest = join(files.dir, 'mcp.yaml');
writeFileSync(
  manifest,
  `
sources:
  everything:
    kind: mcp
    command: [${node}, ${JSON.stringify(EVERYTHING)}, stdio]
    expose:
      tools: { include: [toggle-subscriber-updates, trigger-long-running-operation], prefix: ev_ }
      resources: { include: [architecture.md, features.md], prefix: ev_ }
      prompts: { include: [completable-prompt], prefix: ev_ }
  probe:
    kind: mcp
    command: [${node}, ${JSON.stringify(PROBE)}]
    env: { PROBE_LOG: ${JSON.stringify(probeLog)}, PROBE_SUBSCRIBE: '1' }
    expose:
      tools: { include: [touch, wait, exit], prefix: probe_ }
  plain:
    kind: mcp
    command: [${node}, ${JSON.stringify(PROBE)}]
    env: { PROBE_NOTE: probe://plain }
resources:
  plain_note:
    kind: mcp
    source: plain
    uri: probe://plain
  note:
    kind: mcp
    source: probe
    uri: probe://note
  dynamic_text:
    kind: mcp
    source: everything
    uriTemplate: demo://resource/dynamic/text/{resourceId}
`,
);

// One server over HTTP, so that several clients subscribe through the same upstream.
let http: ServedCli;

/** A v1 client that records the resources/updated it receives, in order. */
async function subscriber(
  name: string,
): Promise<{ client: Client; updates: string[]; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name, version: '1.0.0' });
  const updates: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updates.push(n.params.uri);
  });
  const transport = new StreamableHTTPClientTransport(new URL(http.url));
  await client.connect(transport);
  return { client, updates, transport };
}

/** Polls `check` until it answers (bounded: the upstream's updates come every 5 s). */
async function until<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const probeLines = () => readFileSync(probeLog, 'utf8').split('\n').filter(Boolean);
const text = (result: Json) => (result.content as Json[]).map((b) => b.text ?? '').join('\n');

describe('kind: mcp: subscriptions, completion and tasks relayed', () => {
  let a: Awaited<ReturnType<typeof subscriber>>;
  let b: Awaited<ReturnType<typeof subscriber>>;
  before(async () => {
    http = await spawnHttpCli([manifest]);
    [a, b] = await Promise.all([subscriber('follow-a'), subscriber('follow-b')]);
  });
  after(async () => {
    await Promise.all([a.client.close(), b.client.close()]);
    await http.stop();
    files.cleanup();
  });

  test('the upstream resources advertise subscribe; everything updates them, under our URI, until unsubscribed', async () => {
    assert.equal((a.client.getServerCapabilities() as Json).resources?.subscribe, true);
    const { resources } = await a.client.listResources();
    assert.ok(resources.some((r) => r.uri === ARCHITECTURE));
    await a.client.subscribeResource({ uri: ARCHITECTURE });
    await a.client.subscribeResource({ uri: FEATURES });
    await b.client.subscribeResource({ uri: ARCHITECTURE });
    // everything sends an update for each subscribed URI at once, then every 5 s.
    const started = (await a.client.callTool({
      name: 'ev_toggle-subscriber-updates',
      arguments: {},
    })) as Json;
    assert.match(text(started), /Started simulated resource updated/);
    await until('both updates for a', () => a.updates.includes(ARCHITECTURE) && a.updates.includes(FEATURES));
    await until('the update for b', () => b.updates.includes(ARCHITECTURE));
    assert.ok(!b.updates.includes(FEATURES), 'b hears only what it subscribed to');

    // b leaves: a still holds the URI, so it is still subscribed upstream and a still hears of it.
    await b.client.unsubscribeResource({ uri: ARCHITECTURE });
    const bSeen = b.updates.length;
    const aSeen = a.updates.filter((u) => u === ARCHITECTURE).length;
    await until('a further update of architecture for a', () =>
      a.updates.filter((u) => u === ARCHITECTURE).length > aSeen ? true : undefined,
    );
    assert.equal(b.updates.length, bSeen, 'b hears no more after its unsubscribe');

    // a leaves architecture too: the next tick brings features and no architecture.
    await a.client.unsubscribeResource({ uri: ARCHITECTURE });
    const mark = a.updates.length;
    await until('the next update of features', () => a.updates.slice(mark).includes(FEATURES));
    assert.deepEqual(
      a.updates.slice(mark).filter((u) => u === ARCHITECTURE),
      [],
      'no update of an unsubscribed URI',
    );
    await a.client.unsubscribeResource({ uri: FEATURES });
    const stopped = (await a.client.callTool({
      name: 'ev_toggle-subscriber-updates',
      arguments: {},
    })) as Json;
    assert.match(text(stopped), /Stopped simulated resource updates/);
  });

  test('one upstream subscribe per URI however many subscribers, one unsubscribe when the last leaves', async () => {
    await a.client.subscribeResource({ uri: 'probe://note' });
    await b.client.subscribeResource({ uri: 'probe://note' });
    assert.deepEqual(
      probeLines().filter((l) => l.includes('subscribe')),
      ['subscribe probe://note'],
    );
    await a.client.callTool({ name: 'probe_touch', arguments: { uri: 'probe://note' } });
    await until(
      'the update for both',
      () => a.updates.includes('probe://note') && b.updates.includes('probe://note'),
    );
    // An update of a URI nobody follows reaches no one.
    await a.client.callTool({ name: 'probe_touch', arguments: { uri: 'probe://other' } });

    await a.client.unsubscribeResource({ uri: 'probe://note' });
    assert.ok(!probeLines().includes('unsubscribe probe://note'), 'b still holds it');
    await b.client.unsubscribeResource({ uri: 'probe://note' });
    await until('the upstream unsubscribe', () => probeLines().includes('unsubscribe probe://note'));
    assert.ok(!a.updates.includes('probe://other') && !b.updates.includes('probe://other'));

    // A session that ends (DELETE) releases what it held.
    const c = await subscriber('follow-c');
    await c.client.subscribeResource({ uri: 'probe://note' });
    await until('the second upstream subscribe', () =>
      probeLines().filter((l) => l === 'subscribe probe://note').length === 2 ? true : undefined,
    );
    await c.transport.terminateSession();
    await c.client.close();
    await until('the upstream unsubscribe at the end of the session', () =>
      probeLines().filter((l) => l === 'unsubscribe probe://note').length === 2 ? true : undefined,
    );
  });

  test('a resource of an upstream that did not declare resources.subscribe cannot be subscribed to', async () => {
    await assert.rejects(
      a.client.subscribeResource({ uri: 'probe://plain' }),
      (err: Json) => err.code === -32602 && /sends no updates/.test(err.message),
    );
    await assert.rejects(
      a.client.subscribeResource({ uri: 'demo://resource/dynamic/text/1' }),
      (err: Json) => err.code === -32602 && /sends no updates/.test(err.message),
    );
  });

  test('a reload and an upstream restart subscribe again, and the updates keep coming', async () => {
    const count = (line: string) => probeLines().filter((l) => l === line).length;
    const updates = () => a.updates.filter((u) => u === 'probe://note').length;
    await a.client.subscribeResource({ uri: 'probe://note' });
    const subscribed = count('subscribe probe://note');
    // A reload re-opens every source: a new probe, subscribed again; the old one let go.
    writeFileSync(manifest, `${readFileSync(manifest, 'utf8')}\n# edited\n`);
    await until('the subscribe on the reloaded source', () =>
      count('subscribe probe://note') > subscribed ? true : undefined,
    );
    let seen = updates();
    await a.client.callTool({ name: 'probe_touch', arguments: { uri: 'probe://note' } });
    await until('the update through the reloaded source', () => (updates() > seen ? true : undefined));
    // The upstream dies and is started again: it has forgotten its subscriptions, so it is told again.
    const again = count('subscribe probe://note');
    const exited = (await a.client.callTool({ name: 'probe_exit', arguments: {} })) as Json;
    assert.equal(exited.isError, true);
    await until('the subscribe after the restart', () =>
      count('subscribe probe://note') > again ? true : undefined,
    );
    seen = updates();
    await a.client.callTool({ name: 'probe_touch', arguments: { uri: 'probe://note' } });
    await until('the update after the restart', () => (updates() > seen ? true : undefined));
    await a.client.unsubscribeResource({ uri: 'probe://note' });
  });

  test('2026-07-28: a listen stream that names an upstream resource is followed upstream while it is open', async () => {
    const count = (line: string) => probeLines().filter((l) => l === line).length;
    const subscribed = count('subscribe probe://note');
    const unsubscribed = count('unsubscribe probe://note');
    const { message, headers } = modernRequest(1, 'subscriptions/listen', {
      notifications: { resourceSubscriptions: ['probe://note', ARCHITECTURE] },
    });
    const stream = await openStream(http.url, { body: JSON.stringify(message), headers });
    try {
      const ack = await stream.next(15_000);
      assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
      assert.deepEqual(ack.params.notifications.resourceSubscriptions, ['probe://note', ARCHITECTURE]);
      assert.equal(count('subscribe probe://note'), subscribed + 1);
      await a.client.callTool({ name: 'probe_touch', arguments: { uri: 'probe://note' } });
      const updated = await stream.next(15_000);
      assert.equal(updated.method, 'notifications/resources/updated');
      assert.equal(updated.params.uri, 'probe://note');
    } finally {
      stream.close();
    }
    await until('the upstream unsubscribe when the stream closes', () =>
      count('unsubscribe probe://note') > unsubscribed ? true : undefined,
    );
  });

  test('2026-07-28: a kind: mcp tool run as a task completes; cancelling one cancels its upstream call', async () => {
    const withTasks = { [CAPS]: { extensions: { 'io.modelcontextprotocol/tasks': {} } } };
    let id = 100;
    const call = async (method: string, params: Json): Promise<Json> => {
      const { message, headers } = modernRequest(id++, method, params, withTasks);
      if (typeof params.taskId === 'string') headers['mcp-name'] = params.taskId;
      const res = await post(http.url, message, headers);
      const answer = res.headers['content-type']?.includes('event-stream') ? res.events().at(-1) : res.json();
      if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
      return answer.result;
    };
    const created = await call('tools/call', {
      name: 'ev_trigger-long-running-operation',
      arguments: { duration: 0.3, steps: 2 },
    });
    assert.equal(created.resultType, 'task');
    const done = await until('the task to complete', async () => {
      const task = await call('tasks/get', { taskId: created.taskId });
      return task.status === 'working' ? undefined : task;
    });
    assert.equal(done.status, 'completed');
    assert.match(text(done.result), /Long running operation completed/);

    const tag = `t-${randomUUID()}`;
    const waiting = await call('tools/call', { name: 'probe_wait', arguments: { tag } });
    assert.equal(waiting.resultType, 'task');
    await until('the upstream call to start', () => probeLines().includes(`waiting ${tag}`));
    await call('tasks/cancel', { taskId: waiting.taskId });
    await until('the upstream to see the cancellation', () => probeLines().includes(`cancelled ${tag}`));
    assert.equal((await call('tasks/get', { taskId: waiting.taskId })).status, 'cancelled');
  });

  test("completion of an upstream prompt's argument, renamed by the prefix, with its context", async () => {
    const ref = { type: 'ref/prompt' as const, name: 'ev_completable-prompt' };
    const department = await a.client.complete({ ref, argument: { name: 'department', value: 'S' } });
    assert.deepEqual(department.completion.values, ['Sales', 'Support']);
    const name = await a.client.complete({
      ref,
      argument: { name: 'name', value: '' },
      context: { arguments: { department: 'Engineering' } },
    });
    assert.deepEqual(name.completion.values, ['Alice', 'Bob', 'Charlie']);
    // An argument the upstream did not list is never asked of it.
    const unknown = await a.client.complete({ ref, argument: { name: 'other', value: '' } });
    assert.deepEqual(unknown.completion.values, []);
  });

  test("completion of an upstream resource template's variable", async () => {
    const ref = { type: 'ref/resource' as const, uri: 'demo://resource/dynamic/text/{resourceId}' };
    const done = await a.client.complete({ ref, argument: { name: 'resourceId', value: '12' } });
    assert.deepEqual(done.completion.values, ['12']);
    const none = await a.client.complete({ ref, argument: { name: 'resourceId', value: 'x' } });
    assert.deepEqual(none.completion.values, []);
  });

  test('2025-11-25: a kind: mcp tool run as a task shows its progress and its result', async () => {
    const progress: number[] = [];
    let taskId = '';
    let result: Json | undefined;
    for await (const message of a.client.experimental.tasks.callToolStream(
      { name: 'ev_trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } },
      CallToolResultSchema,
      { task: { ttl: 60_000 }, onprogress: (p) => progress.push(p.progress) },
    )) {
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'result') result = message.result;
      if (message.type === 'error') throw message.error;
    }
    assert.ok(taskId !== '', 'it ran as a task');
    assert.match(text(result!), /Long running operation completed/);
    assert.deepEqual(progress, [1, 2, 3]);
  });

  test('2025-11-25: cancelling the task cancels the upstream call', async () => {
    const tag = `t-${randomUUID()}`;
    const created = await a.client.request(
      { method: 'tools/call', params: { name: 'probe_wait', arguments: { tag }, task: {} } },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    await until('the upstream call to start', () => probeLines().includes(`waiting ${tag}`));
    assert.equal((await a.client.experimental.tasks.getTask(taskId)).status, 'working');
    const cancelled = await a.client.experimental.tasks.cancelTask(taskId);
    assert.equal(cancelled.status, 'cancelled');
    await until('the upstream to see the cancellation', () => probeLines().includes(`cancelled ${tag}`));
  });
});
