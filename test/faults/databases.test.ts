/**
 * A database that goes away under a stream of calls: a PostgreSQL of the suite's own, really
 * restarted (pg_ctl restart -m fast), and the shared MariaDB behind the fault relay, every
 * connection cut and new ones refused for a second (the shared servers are never touched). mcp-run
 * runs as a real process on stdio with the official v1 client. Counted: calls in flight at the fault
 * get a clear error; no call is silent; once the server is back every call succeeds (the pool hands
 * out no dead connection, not even once) and a burst larger than the pool is served (no stuck pool).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MYSQL_URL } from '../helpers/databases.js';
import { tempFiles } from '../helpers/demo.js';
import { type Outcome, outcome, sleep, stdioServer } from './harness.js';
import { type OwnPostgres, ownPostgresSkip, startOwnPostgres } from './own-postgres.js';
import { type FaultRelay, startRelay } from './relay.js';

const pgSkip = ownPostgresSkip();
const mySkip = MYSQL_URL ? undefined : 'MCP_RUN_TEST_MYSQL_URL is not set';
/** An unanswered call is lost after this long (the slow tools sleep 1 s; timeoutMs is 5 s). */
const HARD_MS = 8000;

let pg: OwnPostgres | undefined;
let relay: FaultRelay | undefined;
let myUrl = '';
let files: { dir: string; cleanup: () => void } | undefined;
let server: Awaited<ReturnType<typeof stdioServer>> | undefined;

before(async () => {
  if (pgSkip && mySkip) return;
  if (!pgSkip) pg = await startOwnPostgres();
  if (!mySkip) {
    const target = new URL(MYSQL_URL as string);
    relay = await startRelay({ port: Number(target.port || 3306) });
    target.host = `127.0.0.1:${relay.port}`;
    myUrl = target.toString();
  }
  const lines = ['sources:'];
  if (pg) lines.push(`  pg: { kind: postgres, url: "${pg.url}", timeoutMs: 5000, poolSize: 3 }`);
  if (relay) lines.push(`  my: { kind: mysql, url: "${myUrl}", timeoutMs: 5000, poolSize: 3 }`);
  lines.push('tools:');
  for (const [source, slow] of [
    ['pg', 'SELECT 1 AS n FROM pg_sleep(1)'],
    ['my', 'SELECT SLEEP(1) AS n'],
  ] as const) {
    if ((source === 'pg' && !pg) || (source === 'my' && !relay)) continue;
    lines.push(
      `  ${source}_one: { kind: sql, source: ${source}, description: One row., sql: "SELECT 1 AS n" }`,
      `  ${source}_slow: { kind: sql, source: ${source}, description: One row after a second., sql: "${slow}" }`,
    );
  }
  files = tempFiles({ 'mcp.yaml': `${lines.join('\n')}\n` });
  server = await stdioServer(join(files.dir, 'mcp.yaml'), ['--no-watch']);
});

after(async () => {
  if (process.env.FAULTS_DEBUG) console.error(server?.stderr());
  await server?.close();
  await relay?.close();
  await pg?.remove();
  files?.cleanup();
});

const call = (name: string): Promise<Outcome> =>
  outcome(() => server!.client.callTool({ name, arguments: {} }) as never, HARD_MS);

interface Timed {
  readonly startedAt: number;
  readonly outcome: Outcome;
}

/**
 * One call after another (at most 20 ms apart) until `stop()` says so; two slow calls are started
 * first, so that they are in flight when the fault comes.
 */
function stream(prefix: string): { stop: () => Promise<Timed[]>; inFlight: Promise<Outcome[]> } {
  const inFlight = Promise.all([call(`${prefix}_slow`), call(`${prefix}_slow`)]);
  const seen: Timed[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const startedAt = Date.now();
      seen.push({ startedAt, outcome: await call(`${prefix}_one`) });
      await sleep(20);
    }
  })();
  return {
    inFlight,
    stop: async () => {
      running = false;
      await loop;
      return seen;
    },
  };
}

/** The figures every database case asserts: nothing silent, nothing failing once the server is back. */
async function judge(
  diagnostic: (message: string) => void,
  name: string,
  calls: { stop: () => Promise<Timed[]>; inFlight: Promise<Outcome[]> },
  backAt: number,
  prefix: string,
): Promise<void> {
  // Let the stream run on a while after the server is back.
  await sleep(1000);
  const seen = await calls.stop();
  const inFlight = await calls.inFlight;
  const errors = [...inFlight, ...seen.map((t) => t.outcome)].filter((o) => o.kind === 'error');
  diagnostic(
    `${name}: ${seen.length + inFlight.length} calls, ${errors.length} errors: ${[...new Set(errors.map((o) => (o.kind === 'error' ? o.text : '')))].join(' | ')}`,
  );
  for (const o of inFlight) {
    assert.equal(o.kind, 'error', `${name}: a call in flight at the fault: ${JSON.stringify(o)}`);
    assert.ok(o.kind === 'error' && o.text.length > 20, `${name}: a clear message: ${JSON.stringify(o)}`);
  }
  const silent = seen.filter((t) => t.outcome.kind === 'silent');
  assert.deepEqual(silent, [], `${name}: calls with no answer`);
  const late = seen.filter((t) => t.startedAt >= backAt && t.outcome.kind !== 'ok');
  assert.deepEqual(late, [], `${name}: calls that failed after the server was back`);
  assert.ok(seen.filter((t) => t.startedAt >= backAt).length >= 5, `${name}: too few calls after the fault`);
  // A burst larger than the pool (3): nothing is stuck waiting for a connection that died.
  const burst = await Promise.all(Array.from({ length: 8 }, () => call(`${prefix}_one`)));
  assert.ok(
    burst.every((o) => o.kind === 'ok'),
    `${name}: ${JSON.stringify(burst.find((o) => o.kind !== 'ok'))}`,
  );
}

describe('a database restarted under a stream of calls', () => {
  it('PostgreSQL, really restarted: in-flight calls get an error, every call after succeeds', {
    skip: pgSkip,
  }, async (t) => {
    assert.equal((await call('pg_one')).kind, 'ok');
    // Twice: a restart that lands between two statements of a call is what once crashed the process.
    for (const n of [1, 2]) {
      const calls = stream('pg');
      await sleep(300);
      await pg!.restart();
      await judge((m) => t.diagnostic(m), `PostgreSQL restart ${n}`, calls, Date.now(), 'pg');
    }
  });

  it('MariaDB, every connection cut and new ones refused for a second: the same', {
    skip: mySkip,
  }, async (t) => {
    assert.equal((await call('my_one')).kind, 'ok');
    const calls = stream('my');
    await sleep(300);
    relay!.fault = { kind: 'refuse' };
    relay!.cut();
    await sleep(1000);
    relay!.fault = { kind: 'none' };
    await judge((m) => t.diagnostic(m), 'MariaDB cut', calls, Date.now(), 'my');
  });
});
