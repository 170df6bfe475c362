/**
 * The SQLite source runs its queries in worker processes: a runaway query ends at its timeout or
 * when its call is cancelled (its worker is killed and replaced), the next query runs, workers start
 * only on the first query, a :memory: source keeps to one worker, and the byte budget cuts rows.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import type { SqlCapability } from '../../../../src/kinds/contract/kinds.js';
import { parseSqlParams } from '../../../../src/kinds/sql/params.js';
import { tempDir } from '../../context.js';
import { openSeeded } from './harness.js';

const RUNAWAY = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c';
const SEED = 'CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3);';
/** A read that always goes to a worker: a scan (a bounded read may run in this process: inline.ts). */
const SCAN = 'SELECT count(*) AS n FROM t';

const open = (config: Parameters<typeof openSeeded>[1] = {}) => openSeeded(SEED, config);

const run = (sql: SqlCapability, text: string, timeoutMs = 30_000, signal = new AbortController().signal) =>
  sql.query(parseSqlParams(text), [], { maxRows: 100, timeoutMs, signal });

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/State:\s+Z/.test(readStatus(pid));
function readStatus(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return 'State: Z';
  }
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  return !alive(pid);
}

test('workers start on the first query, not at open', async () => {
  const { opened, sql, pool } = await open({});
  assert.equal(pool.running, 0);
  assert.deepEqual((await run(sql, 'SELECT count(*) AS n FROM t')).rows, [{ n: 3 }]);
  assert.equal(pool.running, 1);
  await opened.dispose();
  assert.equal(pool.running, 0);
});

test('a runaway query ends at its timeout: its worker is killed, and the next query runs', async () => {
  const { opened, sql, pool } = await open({});
  await run(sql, SCAN);
  const [before] = pool.pids;
  const started = Date.now();
  await assert.rejects(run(sql, RUNAWAY, 500), /took longer than 500 ms and was stopped/);
  const took = Date.now() - started;
  assert.ok(took < 5000, `the timeout took ${took} ms`);
  assert.ok(await gone(before!), 'the runaway worker is still running');
  assert.deepEqual((await run(sql, 'SELECT count(*) AS n FROM t')).rows, [{ n: 3 }]);
  assert.notEqual(pool.pids[0], before);
  await opened.dispose();
});

test('a cancelled call ends its query the same way', async () => {
  const { opened, sql, pool } = await open({});
  const controller = new AbortController();
  const call = run(sql, RUNAWAY, 60_000, controller.signal);
  await new Promise((r) => setTimeout(r, 300));
  const [worker] = pool.pids;
  controller.abort();
  await assert.rejects(call, /the query was cancelled/);
  assert.ok(await gone(worker!), 'the cancelled worker is still running');
  assert.deepEqual((await run(sql, 'SELECT max(x) AS m FROM t')).rows, [{ m: 3 }]);
  await opened.dispose();
});

test('a cancelled read that ends soon after keeps its worker: cancelling is no way to make the server start processes', async () => {
  const { opened, sql, pool } = await open({ path: ':memory:' });
  // A read of some tens of milliseconds: cancelled while it runs, it still ends within the grace.
  const slow =
    'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 200000) SELECT count(*) AS n FROM c';
  const started = performance.now();
  assert.deepEqual((await run(sql, slow)).rows, [{ n: 200_000 }]);
  const took = performance.now() - started;
  const [worker] = pool.pids;
  const controller = new AbortController();
  const call = run(sql, slow, 60_000, controller.signal);
  await new Promise((r) => setTimeout(r, Math.min(5, took / 4)));
  controller.abort();
  await assert.rejects(call, /the query was cancelled/);
  assert.deepEqual((await run(sql, 'SELECT count(*) AS n FROM t')).rows, [{ n: 3 }]);
  assert.deepEqual(pool.pids, [worker], 'the worker was replaced');
  await opened.dispose();
  // On a writable source a statement is not known to be a read until its worker prepares it, so a
  // cancelled one is not let finish (a write must not commit after its caller was told otherwise).
  const writable = await open({ path: ':memory:', readOnly: false });
  await run(writable.sql, SCAN);
  const [writer] = writable.pool.pids;
  const stopWrite = new AbortController();
  const write = run(
    writable.sql,
    `INSERT INTO t ${slow.replace('count(*) AS n', 'x')}`,
    60_000,
    stopWrite.signal,
  );
  await new Promise((r) => setTimeout(r, Math.min(5, took / 4)));
  stopWrite.abort();
  await assert.rejects(write, /the query was cancelled/);
  assert.ok(await gone(writer!), 'the worker running the cancelled write is still running');
  await writable.opened.dispose();
});

test('while one worker runs away, the other answers', async () => {
  const { opened, sql } = await open({});
  const controller = new AbortController();
  const runaway = run(sql, RUNAWAY, 60_000, controller.signal);
  assert.deepEqual((await run(sql, 'SELECT count(*) AS n FROM t')).rows, [{ n: 3 }]);
  controller.abort();
  await assert.rejects(runaway, /the query was cancelled/);
  await opened.dispose();
});

test('a :memory: source keeps to one worker, which holds the seeded database', async () => {
  const { opened, sql, pool } = await open({ path: ':memory:' });
  const results = await Promise.all([1, 2, 3].map(() => run(sql, 'SELECT count(*) AS n FROM t')));
  assert.deepEqual(
    results.map((r) => r.rows),
    [[{ n: 3 }], [{ n: 3 }], [{ n: 3 }]],
  );
  assert.equal(pool.running, 1);
  // After a timeout the replacement worker is seeded again.
  await assert.rejects(run(sql, RUNAWAY, 300), /took longer/);
  assert.deepEqual((await run(sql, 'SELECT count(*) AS n FROM t')).rows, [{ n: 3 }]);
  await opened.dispose();
});

test('the byte budget cuts rows before it is passed, with a note', async () => {
  const { opened, sql } = await open({ maxBytes: 3500 });
  const text =
    'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 10) SELECT randomblob(1000) AS b FROM c';
  const result = await run(sql, text);
  assert.equal(result.rows.length, 3);
  assert.equal(result.truncated, true);
  assert.match(
    result.note ?? '',
    /cut at 3 because the next row would pass the source's byte budget \(maxBytes: 3500\)/,
  );
  // Under the budget nothing is cut, and no note is added.
  const small = await run(sql, 'SELECT x FROM t');
  assert.equal(small.truncated, false);
  assert.equal(small.note, undefined);
  await opened.dispose();
});

test('the read-only checks still hold in the worker', async () => {
  const { opened, sql } = await open({});
  await assert.rejects(run(sql, 'INSERT INTO t VALUES (4)'), /the source is read-only/);
  await assert.rejects(run(sql, 'SELECT * FROM nope'), /no such table: nope/);
  await opened.dispose();
});

test('reads queued behind a busy worker go as one batch; one that runs away does not take the others with it', async () => {
  // One worker (:memory:), so the reads asked while it runs the first one queue up and go together.
  const { opened, sql, pool } = await open({ path: ':memory:' });
  await run(sql, SCAN); // the worker is up, so the runaway is sent before its time is out
  const [worker] = pool.pids;
  const first = run(sql, 'SELECT count(*) AS n FROM t');
  const runaway = assert.rejects(run(sql, RUNAWAY, 400), /took longer than 400 ms and was stopped/);
  const others = [1, 2, 3].map((x) => run(sql, `SELECT x FROM t WHERE x = ${x}`));
  assert.deepEqual((await first).rows, [{ n: 3 }]);
  await runaway;
  assert.ok(await gone(worker!), 'the runaway worker is still running');
  // Cut off with the runaway's worker, they ran again on the next one.
  assert.deepEqual(
    (await Promise.all(others)).map((r) => r.rows),
    [[{ x: 1 }], [{ x: 2 }], [{ x: 3 }]],
  );
  assert.equal(pool.running, 1);
  await opened.dispose();
});

test('many reads at once all get their own rows, whatever batches they share', async () => {
  const { opened, sql } = await open({});
  const results = await Promise.all(
    Array.from({ length: 100 }, (_, i) => run(sql, `SELECT x, ${i} AS i FROM t WHERE x = ${(i % 3) + 1}`)),
  );
  assert.deepEqual(
    results.map((r) => r.rows),
    results.map((_, i) => [{ x: (i % 3) + 1, i }]),
  );
  await opened.dispose();
});

test('reads asked in one turn go out together, shared among the idle workers', async () => {
  // One worker (:memory:): the ten reads asked at once go as one batch.
  const memory = await open({ path: ':memory:' });
  await run(memory.sql, 'SELECT 1');
  const before = memory.pool.sent;
  const rows = await Promise.all(Array.from({ length: 10 }, (_, i) => run(memory.sql, `SELECT ${i} AS i`)));
  assert.deepEqual(
    rows.map((r) => r.rows),
    rows.map((_, i) => [{ i }]),
  );
  assert.equal(memory.pool.sent - before, 1);
  await memory.opened.dispose();
  // Two workers (a file): two reads asked at once run on one each, neither waits for the other.
  const file = await open({});
  await Promise.all([run(file.sql, SCAN), run(file.sql, 'SELECT x FROM t WHERE x = 2')]);
  assert.equal(file.pool.running, 2);
  assert.equal(file.pool.sent, 2);
  await file.opened.dispose();
});

test('big requests and results cross the channel whole, in many pieces, UTF-8 intact', async () => {
  const { opened, sql } = await open({});
  const text = 'é€𝄞x'.repeat(50_000); // 500 KB of UTF-8, multi-byte characters across every piece boundary
  const echoed = await sql.query(parseSqlParams('SELECT :t AS t, length(:t) AS n'), [text, text], {
    maxRows: 10,
    timeoutMs: 30_000,
    signal: new AbortController().signal,
  });
  // SQLite counts characters, not UTF-16 units.
  assert.deepEqual(echoed.rows, [{ t: text, n: [...text].length }]);
  const many = await run(
    sql,
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 300) SELECT x, printf('%.2000c', 'é') AS s FROM c",
  );
  assert.equal(many.rows.length, 100);
  assert.ok(many.rows.every((r, i) => r.x === i + 1 && r.s === 'é'.repeat(2000)));
  await opened.dispose();
});

/** How many times a process's main thread went to sleep (blocked) so far, from /proc (Linux). */
function sleeps(pid: number): number {
  return Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(readStatus(pid))?.[1]);
}

test('a worker sleeps once per request it answers: the server reading its answer does not wake it', async () => {
  // A worker waits for its next request in a blocking read. Over one socket both ways, the server
  // reading an answer woke the worker waiting there (Linux tells a socket's waiters there is room
  // to write), and it went to sleep a second time: two sleeps per request. One socket each way
  // leaves the one. This server reads each answer only once the worker is back asleep: it sends
  // the request, then holds its own thread (sleeping, not spinning) for a few milliseconds.
  const { opened, sql, pool } = await open({});
  const text = 'SELECT x FROM t WHERE x = 2';
  await run(sql, text);
  const [worker] = pool.pids;
  const hold = new Int32Array(new SharedArrayBuffer(4));
  const calls = 100;
  const before = sleeps(worker!);
  for (let i = 0; i < calls; i++) {
    const call = run(sql, text);
    // The pool sends on the next turn: this one comes after it.
    await new Promise((r) => setImmediate(r));
    Atomics.wait(hold, 0, 0, 5);
    assert.deepEqual((await call).rows, [{ x: 2 }]);
  }
  const perCall = (sleeps(worker!) - before) / calls;
  assert.deepEqual(pool.pids, [worker]);
  assert.ok(perCall < 1.5, `the worker slept ${perCall.toFixed(2)} times per request`);
  await opened.dispose();
});

test('a worker does not outlive a server that is killed outright', async () => {
  // A server process that opens the source, runs a query, prints its worker's pid and waits.
  const dir = tempDir();
  writeFileSync(join(dir, 'seed.sql'), SEED);
  const script = `
    import { sqliteSource } from ${JSON.stringify(new URL('../../../../src/kinds/sql/sqlite/source.ts', import.meta.url).href)};
    import { parseSqlParams } from ${JSON.stringify(new URL('../../../../src/kinds/sql/params.ts', import.meta.url).href)};
    const ctx = { name: 'db', baseDir: ${JSON.stringify(dir)}, error: (at, p) => { throw new Error(p.message); },
      log: { debug() {}, info() {}, warn() {}, error() {} } };
    const opened = await sqliteSource.open({ path: 'db.sqlite', seed: 'seed.sql' }, ctx);
    const sql = opened.capabilities.sql;
    await sql.query(parseSqlParams(${JSON.stringify(SCAN)}), [], { maxRows: 1, timeoutMs: 30000, signal: new AbortController().signal });
    console.log(sql.pool.pids[0]);
    setInterval(() => {}, 1000);
  `;
  const server = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(server.stdout!.setEncoding('utf8'), 'data')) as [string];
  const worker = Number(line.trim());
  assert.ok(alive(worker), 'the worker is not running');
  // SIGKILL: no exit hook of the server runs; the worker sees its channel close.
  server.kill('SIGKILL');
  await once(server, 'exit');
  assert.ok(await gone(worker), 'the worker outlived its server');
});

test('a batch of reads shares one read transaction and leaves no lock behind', async () => {
  const { opened, sql, pool, dir } = await open({});
  await run(sql, SCAN);
  const sent = pool.sent;
  // Each reads the table (a read that touches none takes no lock).
  const texts = Array.from({ length: 12 }, (_, i) =>
    i === 5 ? 'SELECT * FROM nope' : `SELECT x, ${i} AS i FROM t WHERE x = 1`,
  );
  const results = await Promise.allSettled(texts.map((t) => run(sql, t)));
  assert.ok(pool.sent - sent < texts.length, 'the reads did not go in batches');
  results.forEach((r, i) => {
    if (r.status === 'rejected') assert.match(String(r.reason), i === 5 ? /no such table: nope/ : /^$/);
    else assert.deepEqual(r.value.rows, [{ x: 1, i }]);
  });
  // Another connection writes at once (no busy wait): no worker still holds a shared lock.
  const other = new Database(join(dir, 'db.sqlite'), { timeout: 0 });
  other.exec('INSERT INTO t VALUES (4)');
  other.close();
  assert.deepEqual((await run(sql, 'SELECT count(*) AS n FROM t')).rows, [{ n: 4 }]);
  await opened.dispose();
});
