/**
 * A 2026 `requestState` is good for one retry across every process that accepts it. `--workers 2`
 * (the built CLI): a confirmed call's retry, with its answer and state, is replayed on fresh TCP
 * connections, so node:cluster hands the copies to both workers (each response says which in
 * X-Mcp-Run-Replica). The tool runs once: one copy gets its result, every other one is refused as
 * used, whichever worker it reached. Without the claim in the shared state, each worker took the
 * token once (the insert ran twice). Run with the state the primary holds (IPC) and with Redis.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { Agent, fetch as undiciFetch } from 'undici';
import { tempFiles } from '../helpers/demo.js';
import { REDIS_URL, stateUrl } from '../state/replicas-harness.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';

const MANIFEST = `
server: { name: replay, version: 1.0.0 }
sources:
  db: { kind: sqlite, path: ./log.db, seed: ./seed.sql, readOnly: false }
tools:
  record:
    kind: sql
    source: db
    readOnly: false
    description: Records one line, once the user confirms.
    input:
      what: { type: string, description: What to record }
    confirm: "Record {{what}}?"
    sql: INSERT INTO log (what) VALUES (:what)
`;

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

/** One 2026 tools/call on a connection of its own; the JSON answer and the worker that gave it. */
async function call(url: string, params: Record<string, unknown>) {
  const agent = new Agent();
  try {
    const res = await undiciFetch(url, {
      method: 'POST',
      dispatcher: agent,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'record',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'record', arguments: { what: 'once' }, ...params, _meta: ENVELOPE },
      }),
    });
    return { body: (await res.json()) as Record<string, any>, worker: res.headers.get('x-mcp-run-replica') };
  } finally {
    await agent.close();
  }
}

const MODES = [
  { name: 'the state the primary holds (IPC)', state: undefined as string | undefined, skip: undefined },
  {
    name: 'Redis (--state)',
    state: REDIS_URL && stateUrl(REDIS_URL),
    skip: REDIS_URL ? undefined : 'MCP_RUN_TEST_REDIS_URL is not set (redis://127.0.0.1:6379)',
  },
];

for (const mode of MODES)
  describe(`a requestState replayed to two workers, with ${mode.name}`, { skip: mode.skip }, () => {
    const files = tempFiles({
      'mcp.yaml': MANIFEST,
      'seed.sql': 'CREATE TABLE log (id INTEGER PRIMARY KEY, what TEXT);\n',
    });
    let server: ServedCli;
    before(async () => {
      server = await spawnHttpCli(
        [
          join(files.dir, 'mcp.yaml'),
          '--workers',
          '2',
          '--no-watch',
          ...(mode.state ? ['--state', mode.state] : []),
        ],
        { cwd: files.dir, env: { ...process.env, MCP_RUN_STATE_KEY: '' } },
      );
    });
    after(async () => {
      await server?.stop();
      files.cleanup();
    });

    test('runs the tool once: one copy is answered, every other is refused as used', async () => {
      const asked = await call(server.url, {});
      assert.equal(asked.body.result?.resultType, 'input_required', JSON.stringify(asked.body));
      const retry = {
        inputResponses: { confirm: { action: 'accept', content: {} } },
        requestState: asked.body.result.requestState,
      };
      const answers = [];
      const workers = new Set<string | null>();
      // Until both workers had a copy (round-robin; a busy machine may give one several in a row).
      for (let i = 0; i < 12 && (workers.size < 2 || answers.length < 4); i++) {
        const answer = await call(server.url, retry);
        answers.push(answer);
        workers.add(answer.worker);
      }
      assert.equal(workers.size, 2, 'both workers got a copy of the retry');
      const done = answers.filter((a) => a.body.result !== undefined);
      const refused = answers.filter((a) => a.body.error !== undefined);
      assert.equal(done.length, 1, JSON.stringify(answers.map((a) => a.body)));
      assert.equal(done[0]!.body.result.isError, undefined, JSON.stringify(done[0]!.body));
      assert.equal(refused.length, answers.length - 1);
      for (const r of refused) {
        assert.equal(r.body.error.code, -32602);
        assert.match(r.body.error.message, /requestState refused: it was already used/);
      }
      const db = new Database(join(files.dir, 'log.db'), { readonly: true });
      try {
        assert.deepEqual(db.prepare('SELECT what FROM log').all(), [{ what: 'once' }]);
      } finally {
        db.close();
      }
    });
  });
