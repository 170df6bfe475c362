/**
 * A `fromClaim` tool run as a task with `--state`: the verified caller stays in the process that
 * accepted the call, which runs it, while the task's record lives in the real Redis. A task started
 * on replica A with a real OAuth token (oidc-provider) is read on replica B by its caller, holds the
 * caller's claim, is unknown to another caller, and nothing in Redis holds the access token or its
 * claims set. Skipped with the reason without MCP_RUN_TEST_REDIS_URL.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { type Issuer, startIssuer } from '../e2e/oidc-issuer.js';
import { type Json, taskRequest } from '../transports/http-harness.js';
import {
  eventually,
  REDIS_URL,
  type Replica,
  skipReason,
  startReplica,
  stateUrl,
} from './replicas-harness.js';

/** Both replicas are one protected resource: tokens name this, not a replica's own address. */
const RESOURCE = 'http://mcp.test/mcp';
const REDIRECT = 'http://127.0.0.1:7/callback';

describe('fromClaim tasks across replicas (--state redis, oidc-provider tokens)', {
  skip: skipReason(),
}, () => {
  let issuer: Issuer;
  let dir: string;
  let state: string;
  let a: Replica;
  let b: Replica;

  before(async () => {
    issuer = await startIssuer({
      resource: () => RESOURCE,
      scopes: ['notes'],
      clients: { 'replicas-client': REDIRECT },
      claims: (account) => ({ email: `${account}@example.test` }),
    });
    dir = mkdtempSync(join(tmpdir(), 'mcp-run-claim-tasks-'));
    const manifest = join(dir, 'mcp.yaml');
    writeFileSync(
      manifest,
      [
        'server:',
        '  name: claim-tasks',
        `  auth: { issuer: "${issuer.url}", resource: "${RESOURCE}" }`,
        '  tasks: { pollIntervalMs: 50 }',
        'tools:',
        '  whoami:',
        '    kind: shell',
        "    description: Echoes the caller's email.",
        '    command: [echo, "user={{owner}}"]',
        '    input:',
        '      owner: { fromClaim: email }',
        '',
      ].join('\n'),
    );
    state = stateUrl();
    [a, b] = (await Promise.all([0, 1].map(() => startReplica(manifest, state)))) as [Replica, Replica];
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await issuer?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  test("the task holds its caller's claim on every replica, only for that caller, and Redis holds no token", async () => {
    const alice = await issuer.token('replicas-client', 'alice', 'notes');
    const bob = await issuer.token('replicas-client', 'bob', 'notes');
    const created = await taskRequest(a.url, alice, 1, 'tools/call', { name: 'whoami', arguments: {} });
    assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
    const taskId = created.result.taskId as string;
    let done: Json;
    await eventually(async () => {
      done = await taskRequest(b.url, alice, 2, 'tasks/get', { taskId });
      return done.result?.status !== 'working';
    }, 'the task ending, read on replica B');
    assert.equal(done.result.status, 'completed', JSON.stringify(done));
    assert.equal(done.result.result.isError, undefined, JSON.stringify(done.result.result));
    assert.equal(done.result.result.content[0].text.trim(), 'user=alice@example.test');
    for (const replica of [a, b]) {
      const theirs = await taskRequest(replica.url, bob, 3, 'tasks/get', { taskId });
      assert.equal(theirs.error?.code, -32602, JSON.stringify(theirs));
    }

    // Everything this deployment keeps in Redis: the token, its signature and its claims set
    // (the `email` claim as a claim, not the result's text) are nowhere.
    const prefix = `mcp-run:${new URL(state).searchParams.get('prefix')}:`;
    const redis = new Redis(REDIS_URL as string);
    try {
      const keys = await redis.keys(`${prefix}*`);
      assert.ok(
        keys.some((k) => k.includes(taskId)),
        `the task's record is in Redis: ${keys.join(', ')}`,
      );
      let held = '';
      for (const key of keys) {
        const type = await redis.type(key);
        const value =
          type === 'string'
            ? await redis.get(key)
            : type === 'hash'
              ? await redis.hgetall(key)
              : type === 'list'
                ? await redis.lrange(key, 0, -1)
                : type === 'zset'
                  ? await redis.zrange(key, 0, -1)
                  : type === 'set'
                    ? await redis.smembers(key)
                    : `(${type})`;
        held += `${key} ${JSON.stringify(value)}\n`;
      }
      const [, payload = '', signature = ''] = alice.split('.');
      for (const secret of [alice, payload, signature])
        assert.ok(!held.includes(secret), 'Redis holds the access token');
      assert.doesNotMatch(held, /\\?"email\\?"/, 'Redis holds the claims set');
      assert.match(held, /user=alice@example\.test/, "the result itself is the caller's, kept as a task's");
    } finally {
      redis.disconnect();
    }
  });
});
