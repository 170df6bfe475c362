/**
 * The `duckdb` source's hard bounds, against the real engine: DuckDB's memory_limit bounds its buffer
 * manager only, and a string function allocates outside it (`repeat('x', n)` builds its n bytes, and
 * more, whatever memoryLimit says), nor does it stop at an interrupt. The server and the process it
 * runs DuckDB in must stay within memoryLimit, the result budgets and a stated slack; a call that
 * passes the bound, or its time limit and the grace, fails with a sentence that says so, and the
 * source serves the next call. Memory is read from /proc (VmHWM, VmRSS) of this process, which is
 * the server here, and of its child processes.
 *
 * A file of its own: this process's peak memory must be its own, not another test's.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { SqlCapability } from '../../../../src/kinds/contract/kinds.js';
import { type DuckdbConfig, openDuckdb } from '../../../../src/kinds/sql/duckdb/source.js';
import { sqlQueryTool } from '../../../../src/kinds/sql/query-tool.js';
import { runSql } from '../../../helpers/databases.js';
import { callContext, tempDir, testContext } from '../../context.js';

const MIB = 1024 * 1024;
/** The source's memoryLimit: DuckDB reads 128MB as 128 × 1000². */
const MEMORY_LIMIT = 128e6;
/** One call's result budget (maxBytes, the default). */
const RESULT_BUDGET = 4 * MIB;
/**
 * What the server and its DuckDB process may grow by besides: the result budgets of the two
 * queries that may run at once, the process's own slack (its heap, DuckDB's bookkeeping), and the
 * growth of the 10 ms between two reads of its memory.
 */
const SLACK = 160 * MIB;
/** A string DuckDB builds outside its buffer manager: 300 MB, and twice that while it grows. */
const HOG = "SELECT length(repeat('x', 300000000)) AS n";
/** A call of a function that does not look at the interrupt: seconds of work in little memory. */
const SLOW = (n: number) => `SELECT levenshtein(repeat('a', ${n}), repeat('b', ${n})) AS d`;
const linux = process.platform === 'linux' ? false : 'reads memory from /proc (Linux)';

const dir = tempDir('mcp-run-duckdb-memory-');
mkdirSync(join(dir, 'data'));
writeFileSync(join(dir, 'data', 'sales.csv'), 'region,amount\nnorth,10\nsouth,20\n');
const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers) await close();
});

/** A source of the data folder; the process DuckDB runs in, when there is one (`pid`). */
async function open(config: Partial<DuckdbConfig>): Promise<{ sql: SqlCapability; pid: () => string }> {
  const ctx = testContext({ baseDir: dir, name: 'files' });
  const result = await openDuckdb({ files: ['./data'], ...config }, ctx);
  assert.ok(result, JSON.stringify(ctx.errors));
  closers.push(() => result.opened.dispose());
  const { host } = result as { host?: { pid: number | undefined } };
  return { sql: result.opened.capabilities.sql!, pid: () => String(host?.pid ?? '') };
}

/** A field of /proc/<pid>/status in bytes, or 0 when the process is gone. */
function status(pid: number | string, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'latin1');
    const at = text.indexOf(`${field}:`);
    // A process that has exited and was not yet reaped has no memory fields.
    return at < 0 ? 0 : Number.parseInt(text.slice(at + field.length + 1), 10) * 1024;
  } catch {
    return 0;
  }
}

function children(): string[] {
  try {
    return readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'latin1')
      .split(' ')
      .filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * The peak memory of this process (the server) plus its largest child (the DuckDB process) while
 * `work` runs: this process's VmHWM, reset first, and each child's VmHWM as last read (every 5 ms,
 * until it is gone).
 */
async function peakWhile<T>(
  work: () => Promise<T>,
): Promise<{ peak: number; outcome: PromiseSettledResult<T> }> {
  writeFileSync(`/proc/${process.pid}/clear_refs`, '5');
  let child = 0;
  const sample = () => {
    for (const pid of children()) child = Math.max(child, status(pid, 'VmHWM'));
  };
  const timer = setInterval(sample, 5);
  const [outcome] = await Promise.allSettled([work()]);
  clearInterval(timer);
  sample();
  return { peak: status(process.pid, 'VmHWM') + child, outcome: outcome! };
}

/** The ready-made `sql-query` tool on a capability, as a model calls it: its result's text. */
async function queryTool(sql: SqlCapability) {
  const ctx = testContext({ baseDir: dir, sources: { files: { sql } } });
  const compiled = sqlQueryTool.compile({ kind: 'sql-query', source: 'files' }, ctx);
  assert.ok(compiled, JSON.stringify(ctx.errors));
  return async (text: string) => {
    const result = await compiled.run({ sql: text }, callContext());
    return { isError: result.isError === true, text: (result.content[0] as { text: string }).text };
  };
}

/** Whether the process is gone, within 10 s. */
async function gone(pid: string): Promise<boolean> {
  for (let i = 0; i < 100 && children().includes(pid); i++) await new Promise((r) => setTimeout(r, 100));
  return !children().includes(pid);
}

/** This process and its children now. */
const atRest = () =>
  status(process.pid, 'VmRSS') + children().reduce((sum, pid) => sum + status(pid, 'VmRSS'), 0);

test('a string past memoryLimit stops at the bound with an error result that names it; the next call works', {
  skip: linux,
}, async () => {
  const { sql } = await open({ memoryLimit: '128MB', timeoutMs: 60_000 });
  const query = await queryTool(sql);
  assert.deepEqual((await runSql(sql, 'SELECT 1 AS one')).rows, [{ one: 1 }]);
  const rest = atRest();
  const { peak, outcome } = await peakWhile(() => query(HOG));
  const bound = rest + MEMORY_LIMIT + RESULT_BUDGET + SLACK;
  assert.ok(
    peak <= bound,
    `the server and its DuckDB process reached ${Math.round(peak / MIB)} MiB, past ${Math.round(bound / MIB)} MiB (${Math.round(rest / MIB)} MiB at rest + memoryLimit + one result budget + ${SLACK / MIB} MiB)`,
  );
  assert.equal(outcome.status, 'fulfilled', String((outcome as PromiseRejectedResult).reason));
  assert.equal(outcome.value.isError, true, `the query was not stopped: ${outcome.value.text}`);
  assert.match(outcome.value.text, /past its memory bound \(\d+ MiB: the source's memoryLimit of 122 MiB/);
  assert.match(outcome.value.text, /raise memoryLimit/);
  assert.deepEqual((await runSql(sql, `SELECT count(*) AS n FROM '${dir}/data/sales.csv'`)).rows, [{ n: 2 }]);
});

test('a query that does not stop at its interrupt ends at timeoutMs and the grace, with its process', {
  skip: linux,
}, async () => {
  const { sql, pid } = await open({ memoryLimit: '256MB' });
  assert.deepEqual((await runSql(sql, 'SELECT 1 AS one')).rows, [{ one: 1 }]);
  const worker = pid();
  assert.ok(worker, 'DuckDB runs in a process of its own');
  // Seconds of work in one call of a function that does not look at the interrupt, in little memory.
  await assert.rejects(runSql(sql, SLOW(100_000), [], { timeoutMs: 300 }), /took longer than 300 ms/);
  assert.ok(await gone(worker), 'the process running the query was ended');
  assert.deepEqual((await runSql(sql, 'SELECT 1 AS one')).rows, [{ one: 1 }]);
});

test('a cancelled call is answered at once; a query deaf to the interrupt is ended with its process', {
  skip: linux,
}, async () => {
  const { sql, pid } = await open({ memoryLimit: '256MB' });
  assert.deepEqual((await runSql(sql, 'SELECT 1 AS one')).rows, [{ one: 1 }]);
  const worker = pid();
  assert.ok(worker, 'DuckDB runs in a process of its own');
  const controller = new AbortController();
  const running = runSql(sql, SLOW(100_000), [], { timeoutMs: 60_000, signal: controller.signal });
  setTimeout(() => controller.abort(), 100);
  await assert.rejects(running, /cancelled/);
  assert.ok(await gone(worker), 'the process running the cancelled query was ended');
  assert.deepEqual((await runSql(sql, 'SELECT 1 AS one')).rows, [{ one: 1 }]);
});

test('a call waiting for a connection ends within its own time limit and the grace', {
  skip: linux,
}, async () => {
  const { sql } = await open({ poolSize: 1 });
  const busy = runSql(sql, SLOW(100_000), [], { timeoutMs: 60_000 });
  busy.catch(() => undefined);
  // Its time limit counts from its start, waiting included: it does not wait for the slow one.
  await assert.rejects(runSql(sql, 'SELECT 1 AS one', [], { timeoutMs: 200 }), /took longer than 200 ms/);
});

test('the other queries running when the bound is passed run again, and answer', {
  skip: linux,
}, async () => {
  const { sql, pid } = await open({ memoryLimit: '128MB', poolSize: 2 });
  assert.deepEqual((await runSql(sql, 'SELECT 1 AS one')).rows, [{ one: 1 }]);
  assert.ok(pid(), 'DuckDB runs in a process of its own');
  const workers = new Set<string>([pid()]);
  const timer = setInterval(() => workers.add(pid()), 5);
  const rest = status(pid(), 'VmRSS');
  const hogging = runSql(sql, HOG, [], { timeoutMs: 60_000 });
  // The other starts once the string grows, and runs on when it passes the bound: which one of the
  // two passed it is not known then.
  while (status(pid(), 'VmRSS') < rest + 64 * MIB) await new Promise((r) => setTimeout(r, 5));
  const [hog, other] = await Promise.allSettled([
    hogging,
    runSql(sql, SLOW(40_000), [], { timeoutMs: 60_000 }),
  ]);
  clearInterval(timer);
  assert.equal(other.status, 'fulfilled', String((other as PromiseRejectedResult).reason));
  assert.deepEqual(other.value.rows, [{ d: 40_000 }]);
  assert.equal(hog.status, 'rejected');
  assert.match((hog as PromiseRejectedResult).reason.message, /past its memory bound/);
  // The first, one after both were stopped together, one after the string was stopped alone.
  workers.delete('');
  assert.equal(workers.size, 3, `worker processes: ${[...workers].join(', ')}`);
});
