// Issue 13, "programs are not fully contained", with real processes: secrets redacted everywhere,
// bounded output and log messages, concurrency limits, and process trees that die with the call
// (also descendants that called setsid or were orphaned). Linux: liveness is read from /proc.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { CallContext, LogLevel, ToolResult } from '../../../src/catalog/types.js';
import type { ToolCommon } from '../../../src/kinds/contract/kinds.js';
import { MAX_LOG_BYTES, MAX_LOG_LINES } from '../../../src/kinds/shell/tool.info.js';
import { type ShellToolConfig, shellTool } from '../../../src/kinds/shell/tool.js';
import { tempDir, testContext } from '../context.js';

const dir = realpathSync(tempDir('mcp-run-contain-'));
let n = 0;
const fresh = (name: string) => join(dir, `${name}-${++n}`);

type Config = Omit<ShellToolConfig, 'kind'> & Partial<ToolCommon>;

function compile(config: Config) {
  const ctx = testContext({ baseDir: dir, name: 'tool' });
  const tool = shellTool.compile({ kind: 'shell', ...config }, ctx);
  assert.ok(tool, JSON.stringify(ctx.errors));
  return tool;
}

function recorder(signal = new AbortController().signal) {
  const logs: [LogLevel, unknown, string | undefined][] = [];
  const ctx: CallContext = {
    signal,
    progress: () => {},
    log: (level, data, logger) => logs.push([level, data, logger]),
  };
  return { ctx, logs };
}

/** `sh -c script sh ...args`. */
const sh = (script: string, args: string[] = [], extra: Partial<Config> = {}): Config => ({
  command: ['sh', '-c', script, 'sh', ...args],
  ...extra,
});

const text = (r: ToolResult) => (r.content[0] as { text: string }).text;

/** Alive: /proc/<pid> exists and is not a zombie. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Waits (bounded) for a process to be gone; the result is what the assertion checks. */
async function eventuallyGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20));
  return !alive(pid);
}

function sessionOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
}

async function waitForFile(path: string): Promise<number> {
  for (let i = 0; i < 500 && (!existsSync(path) || readFileSync(path, 'utf8').trim() === ''); i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.ok(existsSync(path), `${path} was never written`);
  return Number(readFileSync(path, 'utf8').trim());
}

const SECRET = 'tok-4f9a1c2e-secret';

describe('secrets in env never leave', () => {
  // The manifest has already resolved `${env:API_TOKEN}`: the kind sees the value.
  const env = { API_TOKEN: SECRET, SHORT: 'abc' };

  test('stdout, stderr log messages and the error text show *** instead', async () => {
    const call = recorder();
    const failed = await compile(
      sh('echo "out $API_TOKEN"; echo "err $API_TOKEN $SHORT" >&2; exit 3', [], { env }),
    ).run({}, call.ctx);
    assert.equal(failed.isError, true);
    assert.equal(text(failed), 'sh exited with code 3.\nerr *** abc');
    assert.deepEqual(call.logs, [['info', 'err *** abc', 'tool']]);

    const ok = await compile(
      sh('echo "out $API_TOKEN"; echo "{\\"t\\": \\"$API_TOKEN\\"}"', [], { env }),
    ).run({}, recorder().ctx);
    assert.equal(text(ok), 'out ***\n{"t": "***"}\n');
    assert.ok(!JSON.stringify(ok).includes(SECRET));
  });

  test('a secret cut by maxOutputBytes shows no prefix of it', async () => {
    const r = await compile(sh('printf "abc%s" "$API_TOKEN"', [], { env, maxOutputBytes: 10 })).run(
      {},
      recorder().ctx,
    );
    assert.ok(!text(r).includes(SECRET.slice(0, 4)), text(r));
    assert.match(text(r), /^abc\n\n\[output cut at 10 bytes/);
  });
});

describe('output budgets', () => {
  test('100k stderr lines: at most 100 log messages, then one notice', async () => {
    const call = recorder();
    const r = await compile(sh('seq 1 100000 >&2; echo done')).run({}, call.ctx);
    assert.equal(text(r), 'done\n');
    assert.equal(call.logs.length, MAX_LOG_LINES + 1);
    assert.deepEqual(call.logs[0], ['info', '1', 'tool']);
    assert.equal(call.logs[MAX_LOG_LINES - 1]![1], String(MAX_LOG_LINES));
    assert.match(String(call.logs[MAX_LOG_LINES]![1]), /further stderr lines of sh are not sent/);
  });

  test('long stderr lines: the log messages stay within 64 KiB', async () => {
    const call = recorder();
    await compile(sh('line=$(printf "%02000d" 0); for i in $(seq 1 100); do echo "$line" >&2; done')).run(
      {},
      call.ctx,
    );
    const lines = call.logs.slice(0, -1).map(([, data]) => String(data));
    const bytes = lines.reduce((sum, l) => sum + Buffer.byteLength(l), 0);
    assert.ok(bytes <= MAX_LOG_BYTES, `${bytes} bytes sent`);
    assert.ok(lines.length < 100 && lines.length > 0, `${lines.length} lines`);
    assert.match(String(call.logs.at(-1)![1]), /not sent: at most 100 lines and 65536 bytes/);
  });

  test('stdout past the cap is read to the end (the program does not block) and noted', async () => {
    const r = await compile(sh('seq 1 1000000; echo finished >&2', [], { maxOutputBytes: 1000 })).run(
      {},
      recorder().ctx,
    );
    assert.equal(r.isError, undefined);
    assert.match(
      text(r),
      /\n\n\[output cut at 1000 bytes: sh wrote 6888896 bytes; the rest was read and dropped/,
    );
  });
});

// The per-tool limit (`maxConcurrency`, 4 by default for shell tools) is the catalog's, for every
// kind: test/catalog/tool.test.ts. The kind itself bounds the programs of all shell tools.
describe('concurrency', () => {
  /** Each run records itself in `folder` while it runs and prints how many runs it saw. */
  const counting = 'echo $$ > "$1/$$"; ls "$1" | wc -l; sleep 0.3; rm "$1/$$"';

  test('all shell tools together: at most 16 programs', async () => {
    const folder = fresh('running');
    mkdirSync(folder);
    const tools = [1, 2, 3].map(() => compile(sh(counting, [folder])));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => tools[i % 3]!.run({}, recorder().ctx)),
    );
    const ran = results.filter((r) => !r.isError).map((r) => Number(text(r).trim()));
    assert.equal(ran.length, 20, JSON.stringify(results.filter((r) => r.isError).map(text)));
    assert.ok(Math.max(...ran) <= 16, `saw ${Math.max(...ran)} at once`);
  });
});

describe('process trees die with the call', () => {
  test('a descendant that called setsid is killed at the timeout', async () => {
    const pidFile = fresh('pid');
    const pending = compile(
      sh('setsid sleep 30 & echo $! > "$1"; sleep 30', [pidFile], { timeoutMs: 500 }),
    ).run({}, recorder().ctx);
    const pid = await waitForFile(pidFile);
    // Once setsid has run, the sleep leads its own session.
    while (alive(pid) && readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'sleep') {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(sessionOf(pid), pid, 'the sleep leads its own session');
    const r = await pending;
    assert.match(text(r), /did not finish within 500 ms/);
    assert.ok(await eventuallyGone(pid), `setsid sleep ${pid} still runs`);
  });

  test('setsid as the program: the forked, orphaned sleep dies when setsid exits', async () => {
    // setsid, a group leader here, forks: the child starts a new session and execs sleep, the
    // parent exits at once (the call ends), leaving an orphan outside the group.
    const seconds = `30.${process.pid}`;
    const sleeping = () =>
      readdirSync('/proc')
        .filter((name) => /^\d+$/.test(name))
        .filter((pid) => {
          try {
            return (
              alive(Number(pid)) && readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${seconds}\0`
            );
          } catch {
            return false;
          }
        });
    assert.deepEqual(sleeping(), []);
    const r = await compile({ command: ['setsid', 'sleep', seconds] }).run({}, recorder().ctx);
    assert.equal(r.isError, undefined, text(r));
    for (let i = 0; i < 100 && sleeping().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(sleeping(), []);
  });

  test('(sleep 30 &) of a program that exits 0 is killed when the call ends', async () => {
    const pidFile = fresh('pid');
    const r = await compile(sh('(sleep 30 & echo $! > "$1"); exit 0', [pidFile])).run({}, recorder().ctx);
    assert.equal(r.isError, undefined, text(r));
    const pid = await waitForFile(pidFile);
    assert.ok(await eventuallyGone(pid), `sleep ${pid} still runs`);
  });

  test('an orphan without the marker and in its own session is killed if a scan saw it', async () => {
    const pidFile = fresh('pid');
    const script = 'env -i setsid sleep 30 & echo $! > "$1"; sleep 1; exit 0';
    const r = await compile(sh(script, [pidFile])).run({}, recorder().ctx);
    assert.equal(r.isError, undefined, text(r));
    const pid = await waitForFile(pidFile);
    assert.ok(await eventuallyGone(pid), `sleep ${pid} still runs`);
  });

  test('cancelled: the setsid descendant goes with the rest', async () => {
    const pidFile = fresh('pid');
    const controller = new AbortController();
    const pending = compile(sh('setsid sleep 30 & echo $! > "$1"; sleep 30', [pidFile])).run(
      {},
      recorder(controller.signal).ctx,
    );
    const pid = await waitForFile(pidFile);
    controller.abort();
    assert.equal(text(await pending), 'sh was cancelled and stopped.');
    assert.ok(await eventuallyGone(pid), `setsid sleep ${pid} still runs`);
  });
});
