/**
 * One principal, one caller: `mcp-run --http` with `server.auth` keys each OAuth caller's sessions
 * and tasks on the token's subject, or, for a token without `sub`, on its `client_id`; a token
 * naming neither is refused (401). Tokens are real ES256 JWTs from a JWKS served on 127.0.0.1
 * (test/helpers/jwks-issuer.ts), which can mint what an authorization server might issue: tokens
 * without `sub`, a subject that reads like a client id. Tasks are read back through the built CLI in
 * both eras (2026: raw JSON-RPC, as the v2 client has no tasks; 2025: the official v1 client).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { tempFiles } from '../helpers/demo.js';
import {
  type Claims,
  challenge,
  type JwksIssuer,
  keyPair,
  sign,
  startJwksIssuer,
} from '../helpers/jwks-issuer.js';
import {
  type Json,
  modernRequest,
  post,
  type ServedCli,
  spawnHttpCli,
  taskRequest,
} from '../transports/http-harness.js';

const manifest = (issuer: string) => `
server:
  name: principals
  auth: { issuer: "${issuer}" }
  tasks: { pollIntervalMs: 50 }
tools:
  keep:
    kind: shell
    description: Echoes what it is given (a task's result is its caller's own).
    input:
      secret: { type: string }
    command: [echo, "kept {{secret}}"]
toolsets:
  support: { tools: [keep] }
`;

describe('OAuth callers: one principal, one caller (mcp-run --http, both eras)', () => {
  let issuer: JwksIssuer;
  let key: Awaited<ReturnType<typeof keyPair>>;
  let served: ServedCli;
  let files: ReturnType<typeof tempFiles>;

  before(async () => {
    issuer = await startJwksIssuer();
    key = await keyPair('k1');
    issuer.published.push(key.jwk);
    files = tempFiles({ 'mcp.yaml': manifest(issuer.url) });
    served = await spawnHttpCli([`${files.dir}/mcp.yaml`, '--no-watch']);
  });
  after(async () => {
    await served?.stop();
    await issuer?.close();
    files?.cleanup();
  });

  /** An access token for this server; `sub: undefined` leaves the subject out. */
  const token = (claims: Claims) =>
    sign(key.privateKey, 'k1', { iss: issuer.url, aud: served.url, ...claims });

  /** 2026: starts `keep` as a task; the whole answer (a task, or an error) and its HTTP status. */
  async function start(bearer: string, secret: string): Promise<{ status: number; body: Json }> {
    const withTasks = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
    const { message, headers } = modernRequest(
      1,
      'tools/call',
      { name: 'keep', arguments: { secret } },
      { 'io.modelcontextprotocol/clientCapabilities': withTasks },
    );
    const res = await post(served.url, message, { ...headers, authorization: `Bearer ${bearer}` });
    const type = res.headers['content-type'] ?? '';
    const body = type.includes('event-stream')
      ? res.events().at(-1)
      : type.includes('json')
        ? res.json()
        : res.body;
    return { status: res.status, body };
  }

  /** 2026: `tasks/get` until the task ends, or its error (-32602 for a task that is not the caller's). */
  async function settled(bearer: string, taskId: string): Promise<Json> {
    for (let i = 0; i < 200; i++) {
      const got = await taskRequest(served.url, bearer, 2, 'tasks/get', { taskId });
      if (got.error !== undefined || got.result.status !== 'working') return got;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`task ${taskId} did not end`);
  }

  test('2026: two tokens that name no principal (no sub, no client_id) get 401, never one shared caller', async () => {
    // Their clients are named only in claims that are not the principal's (azp, Okta's cid). Before,
    // both were the caller `oauth:<iss>#client:?`, and B read A's task result.
    const a = await token({ sub: undefined, azp: 'svc-a', cid: 'svc-a' });
    const b = await token({ sub: undefined, azp: 'svc-b', cid: 'svc-b' });
    const created = await start(a, 'secret-of-a');
    const taskId = created.body?.result?.taskId;
    if (typeof taskId === 'string') {
      const read = await settled(b, taskId);
      assert.doesNotMatch(JSON.stringify(read), /secret-of-a/, "B read A's task result");
    }
    for (const bearer of [a, b]) {
      const res = await start(bearer, 'x');
      assert.equal(res.status, 401, JSON.stringify(res.body));
    }
    const refused = await post(
      served.url,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      {
        authorization: `Bearer ${a}`,
        'mcp-protocol-version': '2026-07-28',
      },
    );
    assert.equal(refused.status, 401);
    const c = challenge(refused.headers['www-authenticate']);
    assert.equal(c.error, 'invalid_token');
    assert.match(
      c.error_description ?? '',
      /names no principal: it has neither a "sub" nor a "client_id" claim/,
    );
  });

  test("2026: sub-less tokens are callers by client_id; a subject never shares a client id's tasks", async () => {
    const tokens = {
      'client svc-a': await token({ sub: undefined, client_id: 'svc-a' }),
      'client svc-b': await token({ sub: undefined, client_id: 'svc-b' }),
      'client abc': await token({ sub: undefined, client_id: 'abc' }),
      'subject client:abc': await token({ sub: 'client:abc', client_id: 'app' }),
      'subject abc': await token({ sub: 'abc' }),
    };
    for (const [owner, mine] of Object.entries(tokens)) {
      const secret = `secret-of-${owner.replace(/\W/g, '-')}`;
      const created = await start(mine, secret);
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const taskId = created.body.result.taskId as string;
      assert.equal(typeof taskId, 'string', JSON.stringify(created.body));
      for (const [other, theirs] of Object.entries(tokens)) {
        if (other === owner) continue;
        const read = await settled(theirs, taskId);
        assert.equal(read.error?.code, -32602, `${other} read the task of ${owner}: ${JSON.stringify(read)}`);
      }
      const own = await settled(mine, taskId);
      assert.equal(own.result?.status, 'completed', JSON.stringify(own));
      assert.match(JSON.stringify(own.result.result), new RegExp(secret));
    }
  });

  test('2026: a subject that reads like a toolset suffix never owns a task of another toolset', async () => {
    // A task's owner is the caller and the toolsets it was started on; the subject below once made
    // the caller on /mcp the same owner as "alice" on /mcp/support.
    const alice = await token({ sub: 'alice' });
    const mallory = await token({ sub: 'alice toolsets:["support"]' });
    const created = await taskRequest(`${served.url}/support`, alice, 1, 'tools/call', {
      name: 'keep',
      arguments: { secret: 'secret-on-support' },
    });
    const taskId = created.result?.taskId as string;
    assert.equal(typeof taskId, 'string', JSON.stringify(created));
    const read = await settled(mallory, taskId);
    assert.equal(read.error?.code, -32602, `read: ${JSON.stringify(read)}`);
    const own = await taskRequest(`${served.url}/support`, alice, 3, 'tasks/get', { taskId });
    assert.equal(own.error, undefined, JSON.stringify(own));
  });

  test("2025-11-25 (official v1 client): a subject's session and task are unknown to the client id of the same text", async () => {
    const bearer = (value: string) => ({ requestInit: { headers: { authorization: `Bearer ${value}` } } });
    const owner = new V1Client({ name: 'owner', version: '1' }, { capabilities: {} });
    const ownerTransport = new V1HttpTransport(
      new URL(served.url),
      bearer(await token({ sub: 'client:abc', client_id: 'app' })),
    );
    await owner.connect(ownerTransport);
    const created = await owner.request(
      { method: 'tools/call', params: { name: 'keep', arguments: { secret: 'secret-2025' }, task: {} } },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    const done = await owner.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.match(JSON.stringify(done), /secret-2025/);

    // Another principal that learned the session id: on it, with its own token (its label was the
    // owner's before: `client:abc`), it is refused as for an unknown session.
    const intruder = new V1Client({ name: 'intruder', version: '1' }, { capabilities: {} });
    await intruder.connect(
      new V1HttpTransport(new URL(served.url), {
        ...bearer(await token({ sub: undefined, client_id: 'abc' })),
        sessionId: ownerTransport.sessionId as string,
      }),
    );
    await assert.rejects(
      intruder.experimental.tasks.getTaskResult(taskId, CallToolResultSchema),
      (err: Error) => {
        assert.doesNotMatch(err.message, /secret-2025/);
        assert.match(err.message, /404|Session not found/);
        return true;
      },
    );
    await assert.rejects(intruder.experimental.tasks.listTasks());
    await owner.close();
    await intruder.close().catch(() => {});
  });
});
