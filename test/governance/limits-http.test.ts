/**
 * Limits per caller on the built CLI over real HTTP, driven by the official v1 client: a tool's rate
 * and a toolset's rate per caller (two bearer tokens are two callers), refused as JSON-RPC -32041
 * with the rule and when to retry; a cap on calls at once given back when a call succeeds, fails,
 * times out or is cancelled; `server.limits.requests` answered 429 with Retry-After; every refusal
 * counted once by rule on /metrics.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
// @ts-expect-error: the parser ships no types; parse() returns the metric families below.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { eventually, type Served, serveJson } from '../ops/harness.js';
import { postModern, type ServedCli, send, spawnHttpCli } from '../transports/http-harness.js';

const CALLS = `
server:
  name: limits
  version: 1.0.0
  limits: { concurrent: 1 }
toolsets:
  greet:
    tools: [hello, bye]
    limits: { calls: 5/minute }
tools:
  hello:
    kind: content
    description: Says hello.
    content: [{ text: hello }]
    limits: { calls: 3/minute }
  bye:
    kind: content
    description: Says bye.
    content: [{ text: bye }]
  probe:
    kind: content
    description: Answers when the caller has a free slot.
    content: [{ text: free }]
  slow:
    kind: shell
    description: Runs until cancelled.
    command: [node, -e, "setTimeout(() => {}, 60000)"]
    timeoutMs: 120000
  fails:
    kind: shell
    description: Exits with an error.
    command: [node, -e, "process.exit(3)"]
  times_out:
    kind: shell
    description: Outlives its time limit.
    command: [node, -e, "setTimeout(() => {}, 60000)"]
    timeoutMs: 300
resources:
  faq:
    kind: text
    uri: "docs://faq"
    text: Ask away.
    limits: { calls: 2/minute }
    mirror: true
prompts:
  review:
    description: Review a change.
    messages: [{ text: "Review it." }]
    limits: { calls: 1/minute }
`;

const REQUESTS = `
server:
  name: limits-requests
  version: 1.0.0
  limits: { requests: 3/minute }
tools:
  hello:
    kind: content
    description: Says hello.
    content: [{ text: hello }]
`;

const ROUNDS = `
server:
  name: limits-rounds
  version: 1.0.0
tools:
  file_ticket:
    kind: content
    description: Files a ticket with the title the user gives.
    ask:
      message: New ticket
      fields:
        title: { type: string, title: Title }
    content:
      - text: "Filed {{title}}."
    limits: { calls: 1/minute }
`;

interface Family {
  name: string;
  metrics: { value?: string; labels?: Record<string, string> }[];
}

async function refusals(base: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const family = (parsePrometheusTextFormat(text) as Family[]).find(
    (f) => f.name === 'mcp_run_limit_refusals_total',
  );
  return new Map((family?.metrics ?? []).map((m) => [m.labels?.limit ?? '', Number(m.value)]));
}

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-run-limits-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('limits on tool calls, per caller', () => {
  let served: Served;
  const clients: Client[] = [];
  /** Refusals the clients saw, by rule: /metrics must say the same. */
  const seen = new Map<string, number>();

  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: 'limits-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${served.base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  /** The tool's text, or the refusal's rule (the error checked for shape on the way). */
  function call(client: Client, name: string, signal?: AbortSignal): Promise<string> {
    return outcome(async () => {
      const result = await client.callTool({ name, arguments: {} }, undefined, signal && { signal });
      const content = result.content as { text: string }[];
      return result.isError ? `error: ${content[0]?.text}` : (content[0]?.text ?? '');
    });
  }

  async function outcome(run: () => Promise<string>): Promise<string> {
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof McpError) || err.code !== -32041) throw err;
      const data = err.data as { rule: string; retryAfterMs: number; retryAfter: number };
      assert.equal(typeof data.rule, 'string');
      assert.ok(data.retryAfterMs >= 1, `retryAfterMs ${data.retryAfterMs}`);
      assert.equal(data.retryAfter, Math.max(1, Math.ceil(data.retryAfterMs / 1000)));
      seen.set(data.rule, (seen.get(data.rule) ?? 0) + 1);
      return `refused: ${data.rule}`;
    }
  }

  let alice: Client;
  let bob: Client;
  before(async () => {
    const manifest = join(dir, 'calls.yaml');
    writeFileSync(manifest, CALLS);
    // Two bearer tokens, two callers: the server reads them from this variable (set here, not read).
    const tokensEnv = 'MCP_RUN_LIMITS_TOKENS';
    process.env[tokensEnv] = 'alice-token,bob-token';
    served = await serveJson(manifest, ['--metrics', '--auth-token-env', tokensEnv]);
    alice = await connect('alice-token');
    bob = await connect('bob-token');
  });
  after(async () => {
    for (const client of clients) await client.close();
    await served?.stop();
  });

  test("a tool's rate: 3 of 4 calls pass, the 4th is -32041 naming the rule; another caller still has its own 3", async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await call(alice, 'hello'));
    assert.deepEqual(answers, ['hello', 'hello', 'hello', 'refused: tools.hello.limits.calls 3/minute']);
    assert.equal(await call(bob, 'hello'), 'hello');
  });

  test("a toolset's rate counts every tool of it, whichever endpoint the call came to", async () => {
    // Bob used 1 of greet's 5 with hello: 4 byes pass, the 5th call of the toolset is refused.
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await call(bob, 'bye'));
    assert.deepEqual(answers, ['bye', 'bye', 'bye', 'bye', 'refused: toolsets.greet.limits.calls 5/minute']);
    // Alice's refused 4th hello took nothing of greet: she has 2 left of it.
    assert.deepEqual(
      [await call(alice, 'bye'), await call(alice, 'bye'), await call(alice, 'bye')],
      ['bye', 'bye', 'refused: toolsets.greet.limits.calls 5/minute'],
    );
  });

  test('a cap on calls at once: refused while one runs, given back on cancel, error and timeout', async () => {
    const cancel = new AbortController();
    const running = call(alice, 'slow', cancel.signal).catch((err: Error) => `cancelled: ${err.name}`);
    let probe = '';
    await eventually(async () => {
      probe = await call(alice, 'probe');
      return probe !== 'free';
    }, 'the slow call holding the slot');
    assert.equal(probe, 'refused: server.limits.concurrent 1');
    assert.equal(await call(bob, 'probe'), 'free', "the cap is per caller: bob's slot is free");
    cancel.abort();
    assert.match(await running, /^cancelled/);
    await eventually(async () => (await call(alice, 'probe')) === 'free', 'the slot given back after cancel');
    assert.match(await call(alice, 'fails'), /^error: /);
    assert.equal(await call(alice, 'probe'), 'free', 'given back after an error');
    assert.match(await call(alice, 'times_out'), /^error: /);
    assert.equal(await call(alice, 'probe'), 'free', 'given back after a timeout');
  });

  test("a resource entry's and a prompt's limits: its mirrored tool and its reads count as one", async () => {
    const read = () =>
      outcome(async () => {
        const { contents } = await bob.readResource({ uri: 'docs://faq' });
        return (contents[0] as { text: string }).text;
      });
    assert.equal(await read(), 'Ask away.');
    assert.equal(await call(bob, 'read_faq'), 'Ask away.');
    assert.equal(await read(), 'refused: resources.faq.limits.calls 2/minute');
    assert.equal(await call(bob, 'read_faq'), 'refused: resources.faq.limits.calls 2/minute');
    const get = () =>
      outcome(async () => {
        const { messages } = await bob.getPrompt({ name: 'review' });
        return (messages[0]?.content as { text?: string } | undefined)?.text ?? '';
      });
    assert.equal(await get(), 'Review it.');
    assert.equal(await get(), 'refused: prompts.review.limits.calls 1/minute');
  });

  test('/metrics counts each refusal once, by rule', async () => {
    const counted = await refusals(served.base);
    assert.deepEqual(
      new Map([...counted].sort()),
      new Map([...seen].sort()),
      'what the clients were refused, rule by rule',
    );
    assert.equal(counted.get('tools.hello.limits.calls 3/minute'), 1);
    assert.equal(counted.get('toolsets.greet.limits.calls 5/minute'), 2);
  });
});

describe('server.limits.requests: HTTP 429 with Retry-After', () => {
  let served: Served;
  before(async () => {
    const manifest = join(dir, 'requests.yaml');
    writeFileSync(manifest, REQUESTS);
    served = await serveJson(manifest, ['--metrics']);
  });
  after(() => served?.stop());

  test('3 requests pass, the 4th is 429 with Retry-After and the rule, before its body is read; counted on /metrics', async () => {
    const url = `${served.base}/mcp`;
    for (let i = 1; i <= 3; i++) assert.equal((await postModern(url, i, 'tools/list')).status, 200);
    const refused = await postModern(url, 4, 'tools/call', { name: 'hello', arguments: {} });
    assert.equal(refused.status, 429);
    const retryAfter = Number(refused.headers['retry-after']);
    // A call counts until its bucket (1/60 of the window) has left the window: at most 61 s here.
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 61,
      `Retry-After ${retryAfter}`,
    );
    const body = refused.json();
    assert.equal(body.error.code, -32041);
    assert.equal(body.error.data.rule, 'server.limits.requests 3/minute');
    assert.equal(body.error.data.retryAfter, retryAfter);
    // Refused before the body is read: a body that is not JSON gets 429 too, not 400.
    const unread = await send(url, { body: '{not json' });
    assert.equal(unread.status, 429);
    assert.equal((await refusals(served.base)).get('server.limits.requests 3/minute'), 2);
  });
});

describe('2026 rounds: a call that asks (input_required) counts once', () => {
  let served: ServedCli;
  before(async () => {
    const manifest = join(dir, 'rounds.yaml');
    writeFileSync(manifest, ROUNDS);
    served = await spawnHttpCli([manifest, '--no-watch']);
  });
  after(() => served?.stop());

  test('the retry carrying the answer is the same call; the next call is refused', async () => {
    const client = new ClientV2(
      { name: 'limits-rounds', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: {} } },
    );
    let asked = 0;
    client.setRequestHandler('elicitation/create', async () => {
      asked++;
      return { action: 'accept', content: { title: 'Bug' } } as never;
    });
    await client.connect(new HttpV2(new URL(served.url)));
    try {
      const first = await client.callTool({ name: 'file_ticket', arguments: {} });
      assert.deepEqual(first.content, [{ type: 'text', text: 'Filed Bug.' }]);
      assert.equal(asked, 1, 'one question, answered on a second round');
      await assert.rejects(client.callTool({ name: 'file_ticket', arguments: {} }), (err: Error) => {
        const { code, data } = err as Error & { code?: number; data?: { rule?: string } };
        assert.equal(code, -32041);
        assert.equal(data?.rule, 'tools.file_ticket.limits.calls 1/minute');
        return true;
      });
    } finally {
      await client.close();
    }
  });
});
