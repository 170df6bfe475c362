/**
 * `--state`: three mcp-run replicas behind HAProxy (round-robin, no stickiness) sharing Redis. The
 * official v1 client holds a 2025 session whose requests land on different replicas (listing,
 * calling, progress, an elicitation answered on another replica than the one that asked); the v2
 * client works in the 2026 era through the same balancer; a reload on every replica gives each
 * listening client exactly one list_changed; killing the replica that carries a client's GET stream
 * loses nothing: the client resumes elsewhere with Last-Event-ID and gets what it missed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  type Balancer,
  eventually,
  type Replica,
  skipReason,
  startHaproxy,
  startReplica,
  stateUrl,
} from './replicas-harness.js';

const MANIFEST = (extra = '') => `
server: { name: replicas, version: 1.0.0 }
tools:
  hello:
    kind: content
    description: Says hello.
    input:
      name: { type: string }
    content:
      - text: "Hello {{name}}"
  steps:
    kind: shell
    description: Counts to three, reporting progress.
    command: [node, -e, "for (let i = 1; i <= 3; i++) console.log(i + '/3 step ' + i)"]
    progress: { pattern: '^(?<progress>\\d+)/(?<total>\\d+) (?<message>.*)$' }
  file_ticket:
    kind: content
    description: Files a ticket with the title the user gives.
    ask:
      message: New ticket
      fields:
        title: { type: string, title: Title }
    content:
      - text: "Filed {{title}}."
  slow:
    kind: shell
    description: Waits until the test writes the file go, then says done.
    command: [node, -e, "const fs = require('fs'); const t = setInterval(() => { if (fs.existsSync('go')) { clearInterval(t); console.log('done'); } }, 20)"]
    timeoutMs: 30000
${extra}`;

const skip = skipReason({ haproxy: true });

/** A v1 client whose every HTTP exchange records which replica answered it. */
function v1Client(url: string) {
  /** Each exchange: HTTP method, what the body was (a JSON-RPC method, or "answer"), who served it. */
  const seen: { method: string; rpc: string; replica: string; status: number; last?: string }[] = [];
  const listChanged: number[] = [];
  const client = new Client({ name: 'replicas-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({
    action: 'accept',
    content: { title: 'Bug' },
  }));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChanged.push(Date.now());
  });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      const body = typeof init?.body === 'string' ? JSON.parse(init.body) : {};
      const rpc = body.method ?? ('result' in body || 'error' in body ? 'answer' : '');
      const last = new Headers(init?.headers).get('last-event-id') ?? undefined;
      seen.push({
        method: init?.method ?? 'GET',
        rpc,
        ...(last !== undefined && { last }),
        replica: res.headers.get('x-mcp-run-replica') ?? '?',
        status: res.status,
      });
      return res;
    },
    reconnectionOptions: {
      initialReconnectionDelay: 100,
      maxReconnectionDelay: 500,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 20,
    },
  });
  return { client, transport, seen, listChanged };
}

describe('replicas behind HAProxy sharing Redis', { skip }, () => {
  let dir: string;
  let manifest: string;
  let replicas: Replica[] = [];
  let lb: Balancer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-run-replicas-'));
    manifest = join(dir, 'mcp.yaml');
    writeFileSync(manifest, MANIFEST());
    const state = stateUrl();
    // Polling: a call still running after 300 ms has its POST stream closed, and the client resumes it.
    replicas = await Promise.all(
      [0, 1, 2].map(() => startReplica(manifest, state, ['--sse-poll-ms', '300'])),
    );
    lb = await startHaproxy(replicas);
  });

  after(async () => {
    await lb?.stop();
    await Promise.all(replicas.map((r) => r.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  test('the v1 client holds one 2025 session across replicas: list, call, progress, elicitation', async () => {
    const { client, transport, seen } = v1Client(lb.url);
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['file_ticket', 'hello', 'slow', 'steps']);
      for (const name of ['a', 'b', 'c']) {
        const hello = await client.callTool({ name: 'hello', arguments: { name } });
        assert.deepEqual(hello.content, [{ type: 'text', text: `Hello ${name}` }]);
      }
      const progress: number[] = [];
      const steps = await client.callTool({ name: 'steps', arguments: {} }, undefined, {
        onprogress: (p) => progress.push(p.progress),
      });
      assert.equal(steps.isError, undefined);
      assert.deepEqual(progress, [1, 2, 3]);
      const ticket = await client.callTool({ name: 'file_ticket', arguments: {} });
      assert.deepEqual(ticket.content, [{ type: 'text', text: 'Filed Bug.' }]);
      const posts = seen.filter((s) => s.method === 'POST');
      assert.ok(
        posts.every((s) => s.status < 300),
        JSON.stringify(posts),
      );
      const served = new Set(posts.map((s) => s.replica));
      assert.equal(served.size, 3, `POSTs of one session reached every replica: ${JSON.stringify(posts)}`);
      // The elicitation's answer was a POST of its own, which round-robin sent to another replica
      // than the call's: it was routed back (the call finished with the user's title).
      const call = posts.findLast((s) => s.rpc === 'tools/call');
      const answer = posts.findLast((s) => s.rpc === 'answer');
      assert.ok(call && answer, JSON.stringify(posts));
      assert.notEqual(answer.replica, call.replica, 'the answer reached another replica than the call');
      const ids = new Set(replicas.map((r) => r.id));
      for (const s of served) assert.ok(ids.has(s), `${s} is one of the replicas`);
    } finally {
      await client.close();
    }
  });

  test('a polled call’s stream resumes on another replica, and the result arrives there', async () => {
    const { client, transport, seen } = v1Client(lb.url);
    await client.connect(transport);
    try {
      const answer = client.callTool({ name: 'slow', arguments: {} });
      await eventually(
        () => seen.some((s) => s.method === 'GET' && s.last !== undefined && s.status === 200),
        'the resuming GET',
      );
      const call = seen.findLast((s) => s.rpc === 'tools/call');
      const resume = seen.find((s) => s.method === 'GET' && s.last !== undefined);
      assert.ok(call && resume);
      assert.match(resume.last as string, /^[0-9a-z]+\/0$/, 'resumed from the priming event');
      assert.notEqual(
        resume.replica,
        call.replica,
        'resumed on another replica than the one running the call',
      );
      // Only now may the call finish: its result can come only through the resumed stream.
      writeFileSync(join(dir, 'go'), '');
      const result = await answer;
      assert.deepEqual(result.content, [{ type: 'text', text: 'done\n' }]);
    } finally {
      await client.close();
    }
  });

  test('the v2 client works in the 2026 era through the balancer', async () => {
    const client = new ClientV2(
      { name: 'replicas-v2', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new HttpV2(new URL(lb.url)));
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      for (const name of ['x', 'y', 'z']) {
        const r = await client.callTool({ name: 'hello', arguments: { name } });
        assert.deepEqual(r.content, [{ type: 'text', text: `Hello ${name}` }]);
      }
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'steps'));
    } finally {
      await client.close();
    }
  });

  test('a reload on every replica: each listening client gets exactly one list_changed; killing the GET stream’s replica loses nothing', async () => {
    const a = v1Client(lb.url);
    const b = v1Client(lb.url);
    await a.client.connect(a.transport);
    await b.client.connect(b.transport);
    try {
      await a.client.listTools();
      await b.client.listTools();
      // Each client's GET stream sits on some replica, each session's record is shared.
      await eventually(
        () => a.seen.some((s) => s.method === 'GET' && s.status === 200),
        'client a GET stream',
      );
      await eventually(
        () => b.seen.some((s) => s.method === 'GET' && s.status === 200),
        'client b GET stream',
      );
      writeFileSync(
        manifest,
        MANIFEST(`  added:\n    kind: content\n    description: New.\n    content:\n      - text: new\n`),
      );
      await eventually(
        () => a.listChanged.length >= 1 && b.listChanged.length >= 1,
        'list_changed on both clients',
      );
      // Every replica reloaded (each answers with the new list) before the count is read.
      for (const r of replicas)
        await eventually(() => r.stderr().includes('reloaded'), `replica ${r.id} reloaded`);
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(a.listChanged.length, 1, 'client a: one list_changed');
      assert.equal(b.listChanged.length, 1, 'client b: one list_changed');

      // Kill the replica carrying a's GET stream, then change the manifest while a is cut off.
      const getReplica = [...a.seen].reverse().find((s) => s.method === 'GET' && s.status === 200)?.replica;
      const victim = replicas.find((r) => r.id === getReplica);
      assert.ok(victim, `a's GET stream is on a known replica (${getReplica})`);
      await victim.kill();
      writeFileSync(
        manifest,
        MANIFEST(
          `  added:\n    kind: content\n    description: New.\n    content:\n      - text: new\n  another:\n    kind: content\n    description: Another.\n    content:\n      - text: another\n`,
        ),
      );
      await eventually(() => a.listChanged.length >= 2, 'the list_changed missed while cut off, on resume');
      const resumed = a.seen.filter((s) => s.method === 'GET' && s.status === 200).at(-1);
      assert.notEqual(resumed?.replica, victim.id, 'resumed on another replica');
      const { tools } = await a.client.listTools();
      assert.ok(
        tools.some((t) => t.name === 'another'),
        'the session goes on',
      );
      const r = await a.client.callTool({ name: 'hello', arguments: { name: 'again' } });
      assert.deepEqual(r.content, [{ type: 'text', text: 'Hello again' }]);
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(a.listChanged.length, 2, 'client a: exactly one list_changed per change');
      assert.equal(b.listChanged.length, 2, 'client b: exactly one list_changed per change');
    } finally {
      await a.client.close();
      await b.client.close();
    }
  });
});
