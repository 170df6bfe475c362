/**
 * `--workers 2` with `server.audit` to a file: the built CLI, a primary and two workers on one port,
 * and one writer (the primary's) keeping one hash chain. Every request goes out on a connection of
 * its own, so node:cluster's round-robin hands them to both workers; X-Mcp-Run-Replica says which.
 *
 * - calls on both workers, then SIGTERM: the file holds one chain (one writer name, one `start`
 *   record written by the primary, one `close` record, last), every call is recorded exactly once
 *   with its entry and arguments, and `mcp-run audit --verify` passes;
 * - a worker SIGKILLed: it is started again, writes to the same chain, and the chain still verifies;
 * - `onBackpressure: refuse` with a sink that cannot keep up (a named pipe nobody reads yet): the
 *   primary's queue is the server's budget, so both workers refuse (-32041, rule `audit`), each
 *   refusal is counted in the primary's `backpressure` record, and every call is a record or
 *   counted once the pipe is read;
 * - `onBackpressure: block` with the same sink: calls on both workers wait until the pipe is read,
 *   then every one is answered and recorded once, the waits counted in the primary's record.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { assertRefusalsAccounted, readPipe } from '../helpers/audit-backpressure.js';
import { CLI, tempFiles } from '../helpers/demo.js';
import { eventually } from '../state/replicas-harness.js';
import { postModern, type ServedCli, send, spawnHttpCli } from '../transports/http-harness.js';

/** A JSON record read back from the file. */
type Json = any;

const MANIFEST = `
server:
  name: audited-workers
  version: 1.0.0
  audit:
    file: logs/audit.jsonl
sources:
  mem: { kind: sqlite, path: ":memory:" }
tools:
  echo:
    kind: sql
    source: mem
    description: Echoes its text.
    sql: SELECT :text AS text
    input:
      text: { type: string }
  pid:
    kind: shell
    description: The process id of the worker that runs it.
    command: [sh, -c, 'echo "$PPID"']
`;

interface Call {
  readonly text: string;
  readonly replica: string;
}

let ids = 0;

/** One call of `echo` on a connection of its own; which worker answered. */
async function echo(url: string, text: string): Promise<Call> {
  const res = await postModern(url, ++ids, 'tools/call', { name: 'echo', arguments: { text } });
  assert.equal(res.status, 200, res.body);
  const answer = res.headers['content-type']?.includes('event-stream') ? res.events().at(-1) : res.json();
  assert.deepEqual(answer.result.structuredContent.rows, [{ text }], res.body);
  return { text, replica: String(res.headers['x-mcp-run-replica']) };
}

/** Calls until both workers answered at least `each` (at most 60 calls), every text unique. */
async function onBoth(url: string, prefix: string, each = 3): Promise<Call[]> {
  const calls: Call[] = [];
  const counts = () => {
    const by = new Map<string, number>();
    for (const { replica } of calls) by.set(replica, (by.get(replica) ?? 0) + 1);
    return [...by.values()];
  };
  for (let i = 0; i < 60 && (counts().length < 2 || Math.min(...counts()) < each); i++)
    calls.push(await echo(url, `${prefix}-${i}`));
  assert.equal(new Set(calls.map((c) => c.replica)).size, 2, 'the calls went to both workers');
  return calls;
}

/** The pid of the worker that answers the next request. */
async function workerPid(url: string): Promise<number> {
  const res = await postModern(url, ++ids, 'tools/call', { name: 'pid', arguments: {} });
  const answer = res.headers['content-type']?.includes('event-stream') ? res.events().at(-1) : res.json();
  return Number(answer.result.content[0].text.trim());
}

async function ready(url: string): Promise<boolean> {
  const res = await send(new URL('/readyz', url).href, { method: 'GET' }).catch(() => undefined);
  return res?.status === 200;
}

function lines(file: string): Json[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

function verify(file: string): { status: number | null; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, 'audit', file, '--verify'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: run.status, stderr: run.stderr };
}

/** One chain, one writer: the primary's `start` first, one `close` last; returns the request records. */
function oneChain(file: string, primary: number): Json[] {
  const all = lines(file);
  assert.deepEqual(new Set(all.map((r) => r.writer)).size, 1, 'one writer name in the whole file');
  const starts = all.filter((r) => r.type === 'start');
  assert.equal(starts.length, 1, 'one start record');
  assert.equal(all[0].type, 'start');
  assert.equal(starts[0].pid, primary, 'the primary opened the writer');
  assert.equal(all.filter((r) => r.type === 'close').length, 1, 'one close record');
  assert.equal(all.at(-1).type, 'close', 'the close record is the last line');
  assert.equal(all.at(-1).records, all.length - 1, 'the close record counts every line before it');
  assert.deepEqual(
    all.map((r) => r.seq),
    all.map((_, i) => i),
    'one sequence, no gaps',
  );
  const verified = verify(file);
  assert.equal(verified.status, 0, verified.stderr);
  assert.match(verified.stderr, /from 1 writer\(s\) in 1 file\(s\); chain intact/);
  return all.filter((r) => r.type === 'request');
}

/** Each call's record, exactly once, with its entry and arguments. */
function recordedOnce(requests: readonly Json[], calls: readonly Call[]): void {
  const echoes = requests.filter((r) => r.entry === 'echo');
  for (const call of calls) {
    const found = echoes.filter((r) => r.arguments?.text === call.text);
    assert.equal(found.length, 1, `${call.text} is recorded exactly once`);
    assert.equal(found[0].method, 'tools/call');
    assert.equal(found[0].outcome, 'ok');
    assert.equal(found[0].decision, 'allow');
  }
  assert.equal(echoes.length, calls.length, 'no record other than the calls made');
}

async function serve(dir: string, ...more: string[]): Promise<ServedCli> {
  return spawnHttpCli([join(dir, 'mcp.yaml'), '--workers', '2', '--log-level', 'debug', ...more], {
    env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '', MCP_RUN_STATE_KEY: '' },
  });
}

/**
 * The server on a sink that cannot keep up: its trail a named pipe nobody reads until `readPipe`,
 * a queue of 2 KB, and `choice` once it is full. Runs `fn`, then kills what is left and cleans up.
 */
async function onPipe(
  choice: 'refuse' | 'block',
  fn: (server: ServedCli, fifo: string, dir: string) => Promise<void>,
): Promise<void> {
  const files = tempFiles({
    'mcp.yaml': MANIFEST.replace(
      '    file: logs/audit.jsonl',
      `    file: audit.pipe\n    buffer: 2KB\n    onBackpressure: ${choice}`,
    ),
  });
  const fifo = join(files.dir, 'audit.pipe');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
  let server: ServedCli | undefined;
  try {
    server = await serve(files.dir, '--no-watch');
    await fn(server, fifo, files.dir);
  } finally {
    if (server?.child.exitCode === null) await server.stop('SIGKILL');
    files.cleanup();
  }
}

describe('--workers 2 with server.audit: the primary keeps one writer and one chain', () => {
  test('calls on both workers, then SIGTERM: one chain, every call recorded once, and it verifies', async () => {
    const files = tempFiles({ 'mcp.yaml': MANIFEST });
    const file = join(files.dir, 'logs', 'audit.jsonl');
    let server: ServedCli | undefined;
    try {
      server = await serve(files.dir);
      const calls = await onBoth(server.url, 'both');
      assert.equal(await server.stop(), 0, 'the primary drains both workers and exits 0');
      assert.doesNotMatch(
        server.stderr(),
        /may not reach the trail|no trail open|after the trail was closed/,
      );
      recordedOnce(oneChain(file, server.child.pid as number), calls);
    } finally {
      if (server?.child.exitCode === null) await server.stop('SIGKILL');
      files.cleanup();
    }
  });

  test('a worker SIGKILLed: it is started again, writes to the same chain (even if server.audit was removed meanwhile), and the chain verifies', async () => {
    const files = tempFiles({ 'mcp.yaml': MANIFEST });
    const file = join(files.dir, 'logs', 'audit.jsonl');
    let server: ServedCli | undefined;
    try {
      server = await serve(files.dir, '--no-watch');
      const url = server.url;
      const before = await onBoth(url, 'before');
      // Every record of the calls answered so far is in the file before the kill.
      await eventually(
        () => before.every((c) => lines(file).some((r) => r.arguments?.text === c.text)),
        'the first calls written',
      );
      const victim = await workerPid(url);
      assert.notEqual(victim, server.child.pid, 'the call ran in a worker');
      // server.audit is read once, at the start: the worker started again keeps to it, whatever
      // its manifest says now.
      writeFileSync(
        join(files.dir, 'mcp.yaml'),
        MANIFEST.replace('  audit:\n    file: logs/audit.jsonl\n', ''),
      );
      process.kill(victim, 'SIGKILL');
      await eventually(
        () => server?.stderr().includes(`(pid ${victim}) exited (SIGKILL)`) ?? false,
        'the exit',
      );
      await eventually(() => ready(url), 'both workers up again');
      const afterKill = await onBoth(url, 'after');
      assert.match(server.stderr(), /server\.audit changed since the server started/);
      assert.equal(await server.stop(), 0);
      const requests = oneChain(file, server.child.pid as number);
      recordedOnce(requests, [...before, ...afterKill]);
      assert.equal(
        new Set(requests.map((r) => r.writer)).size,
        1,
        'the new worker wrote under the same writer name',
      );
    } finally {
      if (server?.child.exitCode === null) await server.stop('SIGKILL');
      files.cleanup();
    }
  });
});

describe('--workers 2 with server.audit, onBackpressure: refuse, a sink that cannot keep up', () => {
  test("the primary's queue is the server's budget: both workers refuse, and every call is accounted for", async () => {
    await onPipe('refuse', async (server, fifo, dir) => {
      const total = 400;
      const answers: { answer: Json; replica: string }[] = [];
      let next = 0;
      const client = async () => {
        while (next < total) {
          const text = `r-${next++}`;
          const res = await postModern(server.url, ++ids, 'tools/call', {
            name: 'echo',
            arguments: { text },
          });
          const answer = res.headers['content-type']?.includes('event-stream')
            ? res.events().at(-1)
            : res.json();
          answers.push({ answer, replica: String(res.headers['x-mcp-run-replica']) });
        }
      };
      await Promise.all(Array.from({ length: 16 }, client));
      const refused = answers.filter((a) => a.answer.error !== undefined);
      assert.ok(refused.length > 0, 'the pipe filled and calls were refused');
      for (const { answer } of refused) {
        assert.equal(answer.error.code, -32041);
        assert.equal(answer.error.data.rule, 'audit');
      }
      assert.equal(new Set(refused.map((a) => a.replica)).size, 2, 'both workers refused');
      assert.match(server.stderr(), /audit: .*audit\.pipe is not keeping up .*new requests are refused/);
      const read = readPipe(fifo);
      assert.equal(await server.stop(), 0, server.stderr());
      const copy = join(dir, 'audit.jsonl');
      writeFileSync(copy, await read);
      oneChain(copy, server.child.pid as number);
      assertRefusalsAccounted(lines(copy), refused.length, total);
    });
  });
});

describe('--workers 2 with server.audit, onBackpressure: block, a sink that cannot keep up', () => {
  test('calls on both workers wait for the primary to catch up, then every one is answered and recorded', async () => {
    await onPipe('block', async (server, fifo, dir) => {
      // More records than the pipe's own buffer (64 KB) holds.
      const total = 400;
      const calls: Call[] = [];
      let next = 0;
      const client = async () => {
        while (next < total) calls.push(await echo(server.url, `b-${next++}`));
      };
      const clients = Promise.all(Array.from({ length: 16 }, client));
      await eventually(
        () => /audit: .*audit\.pipe is not keeping up .*new requests wait/.test(server.stderr()),
        'the primary saying its queue is over the budget',
        30_000,
      );
      // Nothing reads the pipe: the calls wait rather than run unrecorded.
      assert.ok(calls.length < total, `${calls.length} of ${total} calls answered with the pipe unread`);
      const read = readPipe(fifo);
      await clients;
      assert.equal(calls.length, total);
      assert.equal(new Set(calls.map((c) => c.replica)).size, 2, 'both workers answered');
      assert.equal(await server.stop(), 0, server.stderr());
      const copy = join(dir, 'audit.jsonl');
      writeFileSync(copy, await read);
      recordedOnce(oneChain(copy, server.child.pid as number), calls);
      const episodes = lines(copy).filter((r) => r.type === 'backpressure');
      assert.ok(episodes.length >= 1, 'the episode is recorded');
      assert.ok(episodes.reduce((sum: number, r: Json) => sum + r.blocked, 0) >= 1, 'calls were held');
      assert.equal(
        episodes.reduce((sum: number, r: Json) => sum + r.refused, 0),
        0,
        'none was refused',
      );
    });
  });
});
