// Hostile argument values against real processes: each arrives as one literal argv element, no
// second command ever runs, and option-looking values are refused unless the manifest allows them.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ToolResult } from '../../../src/catalog/types.js';
import { type ShellToolConfig, shellTool } from '../../../src/kinds/shell/tool.js';
import { callContext, tempDir, testContext } from '../context.js';

const dir = realpathSync(tempDir('mcp-run-shell-inj-'));
writeFileSync(join(dir, 'node'), `#!/bin/sh\nexec '${process.execPath}' "$@"\n`);
chmodSync(join(dir, 'node'), 0o755);
const marker = join(dir, 'PWNED');
const PRINT_ARGV = 'console.log(JSON.stringify(process.argv.slice(1)))';

async function run(command: string[], args: Record<string, unknown>, extra: Partial<ShellToolConfig> = {}) {
  const ctx = testContext({ baseDir: dir, name: 'tool' });
  const input = Object.fromEntries(Object.keys(args).map((k) => [k, { type: 'string', required: false }]));
  const tool = shellTool.compile({ kind: 'shell', command, input, ...extra }, ctx);
  assert.ok(tool, JSON.stringify(ctx.errors));
  return tool.run(args, callContext());
}

const text = (r: ToolResult) => (r.content[0] as { text: string }).text;
const argv = (r: ToolResult) => {
  assert.equal(r.isError, undefined, text(r));
  return JSON.parse(text(r)) as string[];
};

const ATTACKS = [
  `x; touch ${marker}`,
  `x | touch ${marker}`,
  `x && touch ${marker}`,
  `x || touch ${marker}`,
  `$(touch ${marker})`,
  `\`touch ${marker}\``,
  `x\ntouch ${marker}`,
  `x\r\ntouch ${marker}`,
  `x > ${marker}`,
  '*',
  '/*/*',
  '~',
  '$HOME',
  '\'quoted\' "double"',
  '  spaced  ',
  '',
];

test('metacharacters, newlines and globs arrive as one literal element; nothing else runs', async () => {
  for (const attack of ATTACKS) {
    const r = await run(['./node', '-e', PRINT_ARGV, '--', '{{a}}', 'literal', 'pre-{{a}}'], { a: attack });
    assert.deepEqual(argv(r), [attack, 'literal', `pre-${attack}`], JSON.stringify(attack));
    const printed = await run(['printf', '[%s]', '{{a}}'], { a: attack });
    assert.equal(text(printed), `[${attack}]`);
  }
  assert.ok(!existsSync(marker), 'a second command ran');
});

test('a rendered argument starting with "-" is refused: no option injection', async () => {
  for (const attack of ['-rf', '--output=/tmp/x', '-', '--', `--exec=touch ${marker}`]) {
    const r = await run(
      ['./node', '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`, '{{a}}'],
      {
        a: attack,
      },
    );
    assert.equal(r.isError, true, attack);
    assert.equal(
      text(r),
      `Refused to run ./node: the argument ${JSON.stringify(attack)} starts with "-" and would be read as an option; pass a value that does not start with "-".`,
    );
  }
  assert.ok(!existsSync(marker), 'the program ran although its argument was refused');
});

test('a dash is fine where the manifest wrote it, or after a literal "--"', async () => {
  assert.deepEqual(argv(await run(['./node', '-e', PRINT_ARGV, '--', '--author={{a}}'], { a: '-x' })), [
    '--author=-x',
  ]);
  assert.deepEqual(argv(await run(['./node', '-e', PRINT_ARGV, '--', '{{a}}'], { a: '-rf' })), ['-rf']);
});

test('an element whose arguments were all left out is dropped, not passed as ""', async () => {
  const command = ['./node', '-e', PRINT_ARGV, '--', '{{from}}', '{{to}}', '--path={{path}}', 'end'];
  const optional = { type: 'string', required: false };
  const input = { input: { from: { type: 'string' }, to: optional, path: optional } };
  assert.deepEqual(argv(await run(command, { from: 'a' }, input)), ['a', 'end']);
  assert.deepEqual(argv(await run(command, { from: 'a', to: '', path: 'p' }, input)), [
    'a',
    '',
    '--path=p',
    'end',
  ]);
});

test('a NUL in an argument is refused', async () => {
  const r = await run(['printf', '%s', '{{a}}'], { a: 'a\0b' });
  assert.equal(r.isError, true);
  assert.equal(text(r), 'Refused to run printf: an argument contains a NUL character.');
});
