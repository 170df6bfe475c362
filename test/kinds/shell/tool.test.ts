// The shell tool with real processes: node scripts (through a wrapper in the manifest folder that
// execs process.execPath) and standard programs found on PATH.
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { CallContext, LogLevel, ToolResult } from '../../../src/catalog/types.js';
import type { ToolCommon } from '../../../src/kinds/contract/kinds.js';
import { type ShellToolConfig, shellTool } from '../../../src/kinds/shell/tool.js';
import { tempDir, testContext } from '../context.js';

const dir = realpathSync(tempDir('mcp-run-shell-'));
mkdirSync(join(dir, 'bin'));
mkdirSync(join(dir, 'sub'));
writeFileSync(join(dir, 'bin/node'), `#!/bin/sh\nexec '${process.execPath}' "$@"\n`);
chmodSync(join(dir, 'bin/node'), 0o755);
writeFileSync(join(dir, 'bin/not-executable'), '#!/bin/sh\n');
symlinkSync('/bin/sh', join(dir, 'bin/escape'));

type Config = Omit<ShellToolConfig, 'kind'> & Partial<ToolCommon>;

function compile(config: Config) {
  const ctx = testContext({ baseDir: dir, name: 'tool' });
  return { ctx, tool: shellTool.compile({ kind: 'shell', ...config }, ctx) };
}

function recorder(signal = new AbortController().signal) {
  const logs: [LogLevel, unknown, string | undefined][] = [];
  const progress: [number, number | undefined, string | undefined][] = [];
  const ctx: CallContext = {
    signal,
    progress: (p, total, message) => progress.push([p, total, message]),
    log: (level, data, logger) => logs.push([level, data, logger]),
  };
  return { ctx, logs, progress };
}

/** Runs `node -e script -- ...args` as a shell tool. */
async function node(script: string, args: string[] = [], extra: Partial<Config> = {}, call = recorder()) {
  const { ctx, tool } = compile({ command: ['./bin/node', '-e', script, '--', ...args], ...extra });
  assert.ok(tool, JSON.stringify(ctx.errors));
  return tool.run({}, call.ctx);
}

async function run(config: Config, args: Record<string, unknown> = {}, call = recorder()) {
  const { ctx, tool } = compile(config);
  assert.ok(tool, JSON.stringify(ctx.errors));
  return tool.run(args, call.ctx);
}

const text = (r: ToolResult) => (r.content[0] as { text: string }).text;

/** Gone, or dead and waiting to be reaped (a zombie is no longer running). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? false;
  } catch {
    return true;
  }
}

async function eventuallyGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && !gone(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return gone(pid);
}

describe('running', () => {
  test('stdout is the result; a program from PATH works', async () => {
    const r = await run(
      { command: ['printf', '%s-%s', 'a b', '{{x}}'], input: { x: { type: 'integer' } } },
      { x: 5 },
    );
    assert.deepEqual(r, { content: [{ type: 'text', text: 'a b-5' }] });
    const empty = await run({ command: ['./bin/node', '-e', ''] });
    assert.equal(text(empty), './bin/node finished with no output.');
  });

  test('a non-zero exit is an error result with the code and the last lines of stderr', async () => {
    const script = `for (let i = 1; i <= 30; i++) console.error('line ' + i); process.exit(3)`;
    const r = await node(script);
    assert.equal(r.isError, true);
    const lines = text(r).split('\n');
    assert.equal(lines[0], './bin/node exited with code 3.');
    assert.equal(lines[1], '…');
    assert.deepEqual(
      lines.slice(2),
      Array.from({ length: 20 }, (_, i) => `line ${i + 11}`),
    );
    const killed = await node('process.kill(process.pid, "SIGKILL")');
    assert.equal(text(killed), './bin/node was killed by SIGKILL.');
  });

  test('stderr lines become info log messages, unless logStderr is false', async () => {
    const script = `console.error('first'); console.error('second\\r'); console.log('out')`;
    const call = recorder();
    const r = await node(script, [], {}, call);
    assert.equal(text(r), 'out\n');
    assert.deepEqual(call.logs, [
      ['info', 'first', 'tool'],
      ['info', 'second', 'tool'],
    ]);
    const quiet = recorder();
    await node(script, [], { logStderr: false }, quiet);
    assert.deepEqual(quiet.logs, []);
  });

  test('stdout lines matching progress.pattern become progress notifications', async () => {
    const script = `console.log('1/3 first'); console.log('noise'); console.log('2/3 second'); console.log('50%')`;
    const call = recorder();
    const r = await node(
      script,
      [],
      { progress: { pattern: '^(?<progress>\\d+)/(?<total>\\d+) (?<message>.*)$' } },
      call,
    );
    assert.equal(text(r), '1/3 first\nnoise\n2/3 second\n50%\n');
    assert.deepEqual(call.progress, [
      [1, 3, 'first'],
      [2, 3, 'second'],
    ]);
    const bare = recorder();
    await node(script, [], { progress: { pattern: '^(?<progress>\\d+)%$' } }, bare);
    assert.deepEqual(bare.progress, [[50, undefined, undefined]]);
  });

  test('structured result: stdout as a JSON object when an outputSchema is declared', async () => {
    const withSchema = await node('console.log(JSON.stringify({ n: 1 }))', [], {
      outputSchema: { type: 'object' },
    });
    assert.deepEqual(withSchema.structuredContent, { n: 1 });
    const without = await node('console.log(JSON.stringify({ n: 1 }))');
    assert.equal(without.structuredContent, undefined);
    const array = await node('console.log("[1]")', [], { outputSchema: { type: 'object' } });
    assert.equal(array.structuredContent, undefined);
  });

  test('output caps: collecting stops at maxOutputBytes and the result says so', async () => {
    const r = await node(
      `process.stdout.write('x'.repeat(5000)); process.stderr.write('e'.repeat(5000))`,
      [],
      {
        maxOutputBytes: 1000,
        logStderr: false,
      },
    );
    assert.equal(r.isError, undefined);
    assert.equal(
      text(r),
      `${'x'.repeat(1000)}\n\n[output cut at 1000 bytes: ./bin/node wrote 5000 bytes; the rest was read and dropped (maxOutputBytes)]`,
    );
    const failed = await node(`process.stderr.write('e'.repeat(5000)); process.exit(1)`, [], {
      maxOutputBytes: 100,
      logStderr: false,
    });
    assert.equal(
      text(failed),
      `./bin/node exited with code 1.\n${'e'.repeat(100)}\n[output cut at 100 bytes: it wrote 5000 bytes; the rest was read and dropped (maxOutputBytes)]`,
    );
  });

  test('environment: only the allow-list passes through, plus declared variables', async () => {
    process.env.MCP_RUN_TEST_SECRET = 'do-not-leak';
    try {
      const script = 'console.log(JSON.stringify(process.env))';
      const plain = JSON.parse(text(await node(script)));
      assert.equal(plain.MCP_RUN_TEST_SECRET, undefined);
      assert.equal(plain.PATH, process.env.PATH);
      const { ctx, tool } = compile({
        command: ['./bin/node', '-e', script],
        envPassthrough: ['MCP_RUN_TEST_SECRET'],
        env: { GREETING: 'hi {{name}}', OPTIONAL: '{{missing}}' },
        input: { name: { type: 'string' }, missing: { type: 'string', required: false } },
      });
      assert.ok(tool, JSON.stringify(ctx.errors));
      const env = JSON.parse(text(await tool.run({ name: 'Ann' }, recorder().ctx)));
      assert.equal(env.MCP_RUN_TEST_SECRET, 'do-not-leak');
      assert.equal(env.GREETING, 'hi Ann');
      assert.equal(env.PATH, undefined);
      assert.ok(!('OPTIONAL' in env));
    } finally {
      delete process.env.MCP_RUN_TEST_SECRET;
    }
  });

  test('stdin is a template; cwd is relative to the manifest folder', async () => {
    const r = await run(
      {
        command: ['./bin/node', '-e', 'process.stdin.pipe(process.stdout)'],
        stdin: 'Hello {{name}};\n$(rm -rf /)',
        input: { name: { type: 'string' } },
      },
      { name: 'Ann' },
    );
    assert.equal(text(r), 'Hello Ann;\n$(rm -rf /)');
    const cwd = await run({ command: ['./bin/node', '-e', 'console.log(process.cwd())'], cwd: 'sub' });
    assert.equal(text(cwd), `${join(dir, 'sub')}\n`);
  });
});

describe('stopping', () => {
  test('timeout: SIGTERM to the group, then SIGKILL for a child that ignores SIGTERM', async () => {
    const pids = join(dir, 'pids-timeout.json');
    const script = `
      const { spawn } = require('node:child_process');
      const child = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)"], { stdio: ['ignore', 'pipe', 'ignore'] });
      child.stdout.once('data', () => require('node:fs').writeFileSync(${JSON.stringify(pids)}, JSON.stringify({ parent: process.pid, child: child.pid })));
      setInterval(() => {}, 1000);`;
    const { ctx, tool } = compile({ command: ['./bin/node', '-e', script], timeoutMs: 1500 });
    assert.ok(tool, JSON.stringify(ctx.errors));
    const r = await tool.run({}, recorder().ctx);
    assert.equal(r.isError, true);
    assert.equal(
      text(r),
      './bin/node did not finish within 1500 ms and was stopped. Ask for less, or raise timeoutMs.',
    );
    const { parent, child } = JSON.parse(readFileSync(pids, 'utf8')) as { parent: number; child: number };
    assert.ok(await eventuallyGone(parent), `parent ${parent} still runs`);
    assert.ok(await eventuallyGone(child), `child ${child} still runs`);
  });

  test('cancellation stops the whole process group', async () => {
    const pids = join(dir, 'pids-cancel.json');
    const script = `
      const { spawn } = require('node:child_process');
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      require('node:fs').writeFileSync(${JSON.stringify(pids)}, JSON.stringify({ parent: process.pid, child: child.pid }));
      setInterval(() => {}, 1000);`;
    const controller = new AbortController();
    const pending = node(script, [], {}, recorder(controller.signal));
    while (!existsSync(pids)) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    const r = await pending;
    assert.equal(r.isError, true);
    assert.equal(text(r), './bin/node was cancelled and stopped.');
    const { parent, child } = JSON.parse(readFileSync(pids, 'utf8')) as { parent: number; child: number };
    assert.ok(await eventuallyGone(parent));
    assert.ok(await eventuallyGone(child));
  });
});

describe('compile', () => {
  test('programs: bare names on PATH or executables inside the root, resolved at load', () => {
    const cases: [program: string, reason: RegExp][] = [
      ['no-such-program-mcp-run', /not found on PATH/],
      ['/bin/sh', /lies outside/],
      ['./bin/escape', /lies outside/],
      ['./bin/not-executable', /not an executable file/],
      ['./bin/missing', /no file at/],
      ['{{prog}}', /must be written out/],
    ];
    for (const [program, reason] of cases) {
      const { ctx, tool } = compile({ command: [program], input: { prog: { type: 'string' } } });
      assert.equal(tool, undefined, program);
      assert.equal(ctx.errors[0]?.problem.code, 'SHELL_PROGRAM_NOT_FOUND', program);
      assert.deepEqual(ctx.errors[0]?.at, ['command', 0]);
      assert.match(ctx.errors[0]!.problem.message, reason);
    }
  });

  test('cwd stays inside the root; root can be widened explicitly', () => {
    const outside = compile({ command: ['printf', 'x'], cwd: '..' });
    assert.deepEqual(outside.ctx.codes(), ['PATH_OUTSIDE_ROOT']);
    const missing = compile({ command: ['printf', 'x'], cwd: 'nope' });
    assert.deepEqual(missing.ctx.codes(), ['PATH_NOT_FOUND']);
    const widened = compile({ command: ['printf', 'x'], cwd: '..', root: '..' });
    assert.ok(widened.tool, JSON.stringify(widened.ctx.errors));
  });

  test('templates and the progress pattern are checked, every problem reported', () => {
    const { ctx, tool } = compile({
      command: ['printf', '%s', '{{cuont}}', '{{#if}}'],
      progress: { pattern: '^(?<done>\\d+)$' },
      input: { count: { type: 'integer' } },
    });
    assert.equal(tool, undefined);
    assert.deepEqual(
      ctx.errors.map((e) => [e.at.join('.'), e.problem.code]),
      [
        ['command.2', 'TEMPLATE_UNKNOWN_VARIABLE'],
        ['command.3', 'TEMPLATE_SYNTAX'],
        ['progress.pattern', 'MANIFEST_INVALID_VALUE'],
      ],
    );
    assert.match(ctx.errors[0]!.problem.message, /did you mean "count"/);
  });

  test('implied annotations: not the open world, nothing else', () => {
    assert.deepEqual(compile({ command: ['printf', 'x'] }).tool?.annotations, { openWorldHint: false });
  });
});
