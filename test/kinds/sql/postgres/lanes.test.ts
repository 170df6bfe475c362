/**
 * The postgres source's read lanes (lanes.ts) against a real PostgreSQL: reads in flight at once are
 * written on one connection, and what one read meets there (an error, a cancel, a slow statement, a
 * schema change) costs the reads written behind it nothing. Each source here has a pool of 2: one
 * lane, one pool connection.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import type { SqlCapability } from '../../../../src/kinds/contract/kinds.js';
import {
  activeStatements,
  createDatabase,
  PG_SKIP,
  PG_URL,
  runSql as run,
  type TestDatabase,
  until,
} from '../../../helpers/databases.js';

const skip = PG_SKIP;
let db: TestDatabase;
const closers: (() => Promise<void>)[] = [];

before(async () => {
  if (skip) return;
  db = await createDatabase('postgres', 'pglanes');
});
after(async () => {
  for (const close of closers) await close();
  await db?.drop();
});

/** A source with one lane, whose connections carry their own application_name; its lane open. */
async function oneLane(extra: Record<string, unknown> = {}) {
  const name = `mcp_run_lanes_${randomBytes(4).toString('hex')}`;
  const url = new URL(PG_URL!);
  url.searchParams.set('application_name', name);
  const { sql, opened } = await db.open({
    url: url.toString(),
    poolSize: 2,
    maxRows: 10,
    timeoutMs: 10_000,
    ...extra,
  });
  closers.push(() => opened.dispose());
  const lane = await pidOf(sql);
  const running = () => activeStatements(db, name);
  return { sql, lane, running };
}

const pidOf = async (sql: SqlCapability) => (await run(sql, 'SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
const numbered = (sql: SqlCapability, i: number) =>
  run(sql, 'SELECT pg_backend_pid() AS pid, CAST(:i AS int) AS i', [i]);

test('reads written while a read runs go on its lane, and each gets its own answer', { skip }, async () => {
  const { sql, lane } = await oneLane();
  // On the pool (one connection besides the lane) they could not all run on the lane's backend.
  const slow = run(sql, 'SELECT pg_backend_pid() AS pid, 0 AS i FROM pg_sleep(0.2)');
  const answers = await Promise.all([slow, ...Array.from({ length: 5 }, (_, i) => numbered(sql, i + 1))]);
  assert.deepEqual(
    answers.map((a) => a.rows[0]),
    answers.map((_, i) => ({ pid: lane, i })),
  );
});

test('a lane carries 8 reads at once: the ninth runs on the pool', { skip }, async () => {
  const { sql, lane } = await oneLane();
  const answers = await Promise.all(Array.from({ length: 9 }, (_, i) => numbered(sql, i)));
  const pids = answers.map((a) => a.rows[0]!.pid);
  assert.equal(pids.filter((pid) => pid === lane).length, 8);
  assert.notEqual(pids[8], lane);
});

test('a read that fails on a lane fails alone: the reads behind it run again on the pool', {
  skip,
}, async () => {
  const { sql, lane } = await oneLane();
  const [first, failed, ...behind] = await Promise.allSettled([
    numbered(sql, 0),
    run(sql, 'SELECT 1 / CAST(:zero AS int) AS x', [0]),
    numbered(sql, 2),
    numbered(sql, 3),
  ]);
  assert.deepEqual(first.status === 'fulfilled' && first.value.rows, [{ pid: lane, i: 0 }]);
  assert.match(failed.status === 'rejected' ? String(failed.reason) : 'answered', /division by zero/);
  // Written on the lane behind the failed read, refused there, and read again on the pool.
  assert.deepEqual(
    behind.map((b) => (b.status === 'fulfilled' ? b.value.rows[0]!.i : String(b.reason))),
    [2, 3],
  );
  for (const b of behind) assert.notEqual(b.status === 'fulfilled' && b.value.rows[0]!.pid, lane);
  // The failed lane was closed; the next read opens another.
  const next = await pidOf(sql);
  assert.notEqual(next, lane);
  assert.deepEqual((await numbered(sql, 4)).rows, [{ pid: next, i: 4 }]);
});

test('a cancelled read on a lane stops on the server, and the read behind it still answers', {
  skip,
}, async () => {
  const { sql, running } = await oneLane();
  const controller = new AbortController();
  // Its time limit far past the test's: only the cancel can stop it in time.
  const slow = run(sql, 'SELECT pg_sleep(30)', [], { signal: controller.signal, timeoutMs: 60_000 });
  const behind = numbered(sql, 7);
  await until(async () => (await running()) === 1);
  controller.abort();
  await assert.rejects(slow, /the query was cancelled/);
  assert.equal((await behind).rows[0]!.i, 7);
  await until(async () => (await running()) === 0);
});

test('a read past its time limit on a lane is stopped by the server, and the read behind it answers', {
  skip,
}, async () => {
  const { sql } = await oneLane();
  const slow = run(sql, 'SELECT pg_sleep(30)', [], { timeoutMs: 300 });
  const behind = numbered(sql, 8);
  await assert.rejects(slow, /took longer than 300 ms and was stopped/);
  assert.equal((await behind).rows[0]!.i, 8);
});

test('a lane held up by a slow read takes no more reads: they run on the pool', { skip }, async () => {
  const { sql, lane, running } = await oneLane();
  const slow = run(sql, 'SELECT pg_backend_pid() AS pid, pg_sleep(0.5) AS slept');
  await until(async () => (await running()) === 1);
  await setTimeout(100); // past the lane's 20 ms
  const quick = await pidOf(sql);
  assert.notEqual(quick, lane);
  assert.equal((await slow).rows[0]!.pid, lane);
});

test('a read on a lane whose prepared statement a schema change altered is prepared anew', {
  skip,
}, async () => {
  const { sql, lane } = await oneLane();
  await db.admin('CREATE TABLE lane_plan (a integer)');
  await db.admin('INSERT INTO lane_plan VALUES (1)');
  for (let i = 0; i < 3; i++) {
    const { rows } = await run(sql, 'SELECT *, pg_backend_pid() AS pid FROM lane_plan');
    assert.deepEqual(rows, [{ a: 1, pid: lane }]);
  }
  await db.admin("ALTER TABLE lane_plan ADD COLUMN b text DEFAULT 'x'");
  for (let i = 0; i < 2; i++) {
    const { rows } = await run(sql, 'SELECT *, pg_backend_pid() AS pid FROM lane_plan');
    assert.deepEqual(
      rows.map(({ pid: _, ...row }) => row),
      [{ a: 1, b: 'x' }],
    );
  }
});

test('a read cancelled while it waits behind a slow one lets it be, and is stopped when its turn comes', {
  skip,
}, async () => {
  const { sql, lane, running } = await oneLane();
  const controller = new AbortController();
  const slow = run(sql, 'SELECT pg_backend_pid() AS pid FROM pg_sleep(0.5)');
  const waiting = run(sql, 'SELECT pg_sleep(30)', [], { signal: controller.signal, timeoutMs: 60_000 });
  await until(async () => (await running()) === 1);
  controller.abort();
  await assert.rejects(waiting, /the query was cancelled/);
  // The slow read ran to its end on the lane: the cancel was not sent to it.
  assert.deepEqual((await slow).rows, [{ pid: lane }]);
  await until(async () => (await running()) === 0);
});

test('a row far past the budget on a lane ends its read, and the read behind it answers', {
  skip,
}, async () => {
  const { sql } = await oneLane({ maxBytes: 1000 });
  const [big, behind] = await Promise.all([
    run(
      sql,
      "SELECT i, CASE WHEN i = 2 THEN repeat('z', 200000) ELSE 'a' END AS v FROM generate_series(1, 3) s(i) ORDER BY i",
    ),
    numbered(sql, 9),
  ]);
  assert.deepEqual(big.rows, [{ i: 1, v: 'a' }]);
  assert.match(big.note ?? '', /cut at 1 because the next row is far larger than/);
  assert.equal(behind.rows[0]!.i, 9);
});

test('a disposed source opens no lane', { skip }, async () => {
  const { sql, opened } = await db.open({ poolSize: 2 });
  await opened.dispose();
  await assert.rejects(numbered(sql, 1), /cannot reach the database/);
});

test('a lane whose server process ends fails the read it ran, and the reads behind it answer', {
  skip,
}, async () => {
  const { sql, lane, running } = await oneLane();
  const slow = run(sql, 'SELECT pg_sleep(30)');
  const behind = [numbered(sql, 1), numbered(sql, 2)];
  await until(async () => (await running()) === 1);
  // Heard before the server ends it (the rejection must not go unhandled while the admin call runs).
  const ended = assert.rejects(slow, /terminating connection due to administrator command/);
  await db.admin(`SELECT pg_terminate_backend(${Number(lane)})`);
  await ended;
  const answers = await Promise.all(behind);
  assert.deepEqual(
    answers.map((a) => a.rows[0]!.i),
    [1, 2],
  );
});

test('a source disposed under a read on a lane stops the read on the server', { skip }, async () => {
  const name = `mcp_run_lanes_${randomBytes(4).toString('hex')}`;
  const url = new URL(PG_URL!);
  url.searchParams.set('application_name', name);
  const { sql, opened } = await db.open({ url: url.toString(), poolSize: 2 });
  await pidOf(sql);
  const slow = run(sql, 'SELECT pg_sleep(30)', [], { timeoutMs: 60_000 }).then(
    () => 'answered',
    (err: Error) => err.message,
  );
  await until(async () => (await activeStatements(db, name)) === 1);
  await opened.dispose();
  assert.match(await slow, /Connection terminated/);
  await until(async () => (await activeStatements(db, name)) === 0);
});
