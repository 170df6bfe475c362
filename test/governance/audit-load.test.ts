/**
 * The audit trail under load, on the built CLI over HTTP: a soak of 10,000 calls from 16 clients at
 * once loses no record (counted, and the chain verified across its rotated files); and a sink that
 * cannot keep up (a named pipe nobody reads yet: real writes that really block) makes the configured
 * choice, `refuse` (-32041, rule `audit`) or `block` (calls wait), counts it in the metrics and
 * the log, and still accounts for every call once the pipe is read.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assertRefusalsAccounted, readPipe } from '../helpers/audit-backpressure.js';
import { CLI } from '../helpers/demo.js';
import { postModern, type ServedCli, send, spawnHttpCli } from '../transports/http-harness.js';

type Json = any;

function project(audit: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-audit-load-'));
  writeFileSync(
    join(dir, 'mcp.yaml'),
    [
      'server:',
      '  name: audited',
      '  audit:',
      ...audit.map((line) => `    ${line}`),
      'sources:',
      '  db: { kind: sqlite, path: ":memory:" }',
      'tools:',
      '  echo:',
      '    kind: sql',
      '    source: db',
      '    description: Echoes its number.',
      '    sql: SELECT :n AS n',
      '    input:',
      '      n: { type: integer }',
      '',
    ].join('\n'),
  );
  return dir;
}

/** `total` calls of `echo`, `concurrency` at a time; resolves with each response's JSON. */
async function callMany(url: string, total: number, concurrency: number): Promise<Json[]> {
  const answers: Json[] = new Array(total);
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const n = next++;
      const res = await postModern(url, n + 1, 'tools/call', { name: 'echo', arguments: { n } });
      answers[n] = res.headers['content-type']?.includes('text/event-stream')
        ? res.events().at(-1)
        : res.json();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return answers;
}

function audit(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, 'audit', ...args], {
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

async function waitFor(what: string, cond: () => boolean, cli: ServedCli): Promise<void> {
  for (let i = 0; i < 1500 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(cond(), `${what}; stderr:\n${cli.stderr()}`);
}

describe('audit trail under load (mcp-run --http)', () => {
  it('a soak of 10,000 calls, 16 at a time, loses no record; the chain verifies across rotations', async () => {
    const dir = project(['file: audit.jsonl', 'rotate: 1MB', 'keep: 100']);
    const cli = await spawnHttpCli([join(dir, 'mcp.yaml'), '--no-watch']);
    try {
      const answers = await callMany(cli.url, 10_000, 16);
      const ok = answers.filter((a) => a?.result?.structuredContent?.rows?.[0]?.n !== undefined);
      assert.equal(ok.length, 10_000);
      assert.equal(await cli.stop(), 0, cli.stderr());
      const files = readdirSync(dir)
        .filter((f) => f.startsWith('audit.jsonl'))
        .map((f) => join(dir, f));
      assert.ok(files.length >= 3, `rotated at 1MB: ${files.length} file(s)`);
      const verified = audit([...files, '--verify']);
      assert.equal(verified.status, 0, verified.stderr);
      assert.match(verified.stderr, /10000 record\(s\) from 1 writer\(s\)/);
      // Every call's own record: the numbers 0…9999, each once.
      const listed = audit([...files, '--json']);
      const numbers = listed.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).arguments.n as number);
      assert.equal(new Set(numbers).size, 10_000);
    } finally {
      await cli.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /** A server whose audit file is a named pipe: its writes block until the test reads the pipe. */
  async function pipeServer(choice: 'block' | 'refuse') {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-run-audit-pipe-'));
    const fifo = join(dir, 'audit.pipe');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
    const manifestDir = project([`file: ${fifo}`, 'buffer: 2KB', `onBackpressure: ${choice}`]);
    const cli = await spawnHttpCli([join(manifestDir, 'mcp.yaml'), '--no-watch', '--metrics']);
    const drain = () => readPipe(fifo);
    const cleanup = () => {
      rmSync(dir, { recursive: true, force: true });
      rmSync(manifestDir, { recursive: true, force: true });
    };
    return { cli, dir, drain, cleanup };
  }

  /** The records read from the pipe, and the chain verified by `mcp-run audit`. */
  function readBack(dir: string, text: string): Json[] {
    const copy = join(dir, 'audit.jsonl');
    writeFileSync(copy, text);
    const verified = audit([copy, '--verify']);
    assert.equal(verified.status, 0, verified.stderr);
    return readFileSync(copy, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
  }

  it('onBackpressure: refuse answers -32041 (rule audit), counts and reports it, and accounts for every call', async () => {
    const { cli, dir, drain, cleanup } = await pipeServer('refuse');
    try {
      const total = 600;
      const answers = await callMany(cli.url, total, 16);
      const refused = answers.filter((a) => a.error !== undefined);
      assert.ok(refused.length > 0, 'the pipe filled and calls were refused');
      for (const a of refused) {
        assert.equal(a.error.code, -32041);
        assert.equal(a.error.data.rule, 'audit');
        assert.equal(a.error.data.retryAfterMs, 1000);
      }
      assert.match(cli.stderr(), /audit: .*audit\.pipe is not keeping up .*new requests are refused/);
      const metrics = await send(cli.url.replace(/\/mcp$/, '/metrics'), { method: 'GET' });
      assert.match(
        metrics.body,
        new RegExp(`mcp_run_audit_backpressure_total\\{choice="refuse"\\} ${refused.length}\\b`),
      );
      const read = drain();
      assert.equal(await cli.stop(), 0, cli.stderr());
      assertRefusalsAccounted(readBack(dir, await read), refused.length, total);
      assert.match(cli.stderr(), /caught up after \d+ ms; 0 request\(s\) waited, \d+ were refused/);
    } finally {
      await cli.stop();
      cleanup();
    }
  });

  it('a sink that does not take its writes at shutdown: after 10 s the records left go to stderr', async () => {
    const { cli, dir, drain, cleanup } = await pipeServer('refuse');
    try {
      const total = 300;
      const answers = await callMany(cli.url, total, 16);
      assert.ok(
        answers.some((a) => a.error?.code === -32041),
        'the pipe is full',
      );
      const stopped = cli.stop();
      const message =
        /audit: (\d+) record\(s\) could not be written to .*audit\.pipe within 10000 ms of shutdown/;
      await waitFor('the records left were spilled', () => message.test(cli.stderr()), cli);
      // The write stuck in the pipe holds a thread the process waits for as it exits: read the
      // pipe so that it can end.
      const read = drain();
      assert.equal(await stopped, 0, cli.stderr());
      const spilled = cli
        .stderr()
        .split('\n')
        .filter((l) => l.startsWith('{"v":1,'))
        .map((l) => JSON.parse(l));
      assert.equal(spilled.length, Number(message.exec(cli.stderr())?.[1]));
      assert.ok(
        spilled.some((r) => r.type === 'close'),
        'the close record is among them',
      );
      // No call is lost: each is in the pipe, on stderr, or counted in an episode.
      const piped = (await read).split('\n').filter((l) => l !== '');
      writeFileSync(join(dir, 'piped.jsonl'), piped.join('\n'));
      const all = [...piped.map((l) => JSON.parse(l)), ...spilled];
      const seen = new Set(all.filter((r) => r.type === 'request').map((r) => r.arguments.n));
      const unrecorded = all
        .filter((r) => r.type === 'backpressure')
        .reduce((sum, r) => sum + r.unrecorded, 0);
      assert.ok(seen.size + unrecorded >= total, `${seen.size} recorded + ${unrecorded} counted of ${total}`);
    } finally {
      await cli.stop();
      cleanup();
    }
  });

  it('onBackpressure: block makes calls wait until the sink catches up; none is refused or lost', async () => {
    const { cli, dir, drain, cleanup } = await pipeServer('block');
    try {
      const total = 400;
      const calls = callMany(cli.url, total, 16);
      await waitFor('the pipe filled', () => /is not keeping up/.test(cli.stderr()), cli);
      const metrics = await send(cli.url.replace(/\/mcp$/, '/metrics'), { method: 'GET' });
      assert.match(metrics.body, /mcp_run_audit_backpressure_total\{choice="block"\} [1-9]/);
      const read = drain();
      const answers = await calls;
      assert.equal(answers.filter((a) => a.error !== undefined).length, 0);
      assert.equal(await cli.stop(), 0, cli.stderr());
      const records = readBack(dir, await read);
      const requests = records.filter((r) => r.type === 'request');
      assert.equal(requests.length, total);
      assert.equal(new Set(requests.map((r) => r.arguments.n)).size, total);
      const waited = records.filter((r) => r.type === 'backpressure').reduce((sum, r) => sum + r.blocked, 0);
      assert.ok(waited > 0, 'the waits are recorded');
    } finally {
      await cli.stop();
      cleanup();
    }
  });
});
