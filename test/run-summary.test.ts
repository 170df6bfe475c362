/**
 * `npm test` ends with what was skipped and why (test/run.mjs, helpers/skip-reporter.mjs and
 * helpers/skip-summary.ts): checked on a small test file run by the real runner, through run.mjs,
 * against the same file run by node directly, so the runner's own output is shown unchanged. Piped,
 * the runner prints TAP on Node 20 and spec on Node 24; under a terminal (script(1)) it prints spec.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { formatSummary, type SkipRecord, summarise } from './helpers/skip-summary.js';

const REPO = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'mcp-run-skips-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SAMPLE = join(dir, 'sample.test.ts');
writeFileSync(
  SAMPLE,
  `import { describe, test } from 'node:test';
test('runs', () => {});
test('needs redis', { skip: 'MCP_RUN_TEST_REDIS_URL is not set' }, () => {});
test('needs redis too', (t) => { t.skip('  MCP_RUN_TEST_REDIS_URL   is not set. '); });
test('says nothing', { skip: true }, () => {});
describe('a group', () => {
  test('needs a #1 browser', { skip: 'no chromium #1' }, () => {});
  test('runs too', () => {});
});
describe('a skipped group', { skip: 'MCP_RUN_TEST_REDIS_URL is not set' }, () => {
  test('not run', () => {});
});
`,
);

const EXPECTED = [
  'Skipped, by reason (a skipped suite counts once; the tests in it are not run or counted):',
  '  2 tests, 1 suite: MCP_RUN_TEST_REDIS_URL is not set',
  '            1 test: (no reason given)',
  '            1 test: no chromium #1',
];

/** The text with what changes from run to run (durations, a terminal's colours and CRs) taken out. */
const steady = (text: string) =>
  text
    .replace(/\r/g, '')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a terminal's colour codes
    .replace(/\x1b\[[0-9;]*m/g, '')
    .replace(/duration_ms:? [\d.]+/g, 'duration_ms')
    .replace(/\([\d.]+ms\)/g, '(ms)');

const runner = ['--import', 'tsx', '--test', '--test-concurrency=3', '--test-timeout=120000'];

// Without the variable that marks this process as a test file's, so the child runs its files itself.
const { NODE_TEST_CONTEXT: _, ...env } = process.env;

/** Runs argv from the repository, under a terminal when asked (script(1) gives it a pty). */
function run(argv: string[], terminal = false): string {
  const quoted = argv.map((a) => `'${a}'`).join(' ');
  const options = { cwd: REPO, encoding: 'utf8', env } as const;
  const r = terminal
    ? spawnSync('script', ['-qec', quoted, '/dev/null'], options)
    : spawnSync(argv[0]!, argv.slice(1), options);
  assert.equal(r.status, 0, r.stderr);
  return steady(r.stdout);
}

const noScript =
  spawnSync('script', ['--version']).status === 0
    ? false
    : 'script(1) is not installed (apt-get install util-linux)';

for (const terminal of [false, true]) {
  describe(terminal ? 'under a terminal' : 'piped', { skip: terminal && noScript }, () => {
    test('the runner prints what it always printed, then the skips grouped by reason', () => {
      const plain = run([process.execPath, ...runner, SAMPLE], terminal);
      const ours = run([process.execPath, 'test/run.mjs', SAMPLE], terminal);
      const at = ours.indexOf('\nSkipped');
      assert.ok(at > 0, ours);
      assert.equal(ours.slice(0, at), plain);
      assert.deepEqual(
        ours
          .slice(at + 1)
          .trimEnd()
          .split('\n'),
        EXPECTED,
      );
      // The runner's "pass N" and "skipped N" stay the last lines of their kind (.ci/run greps them).
      assert.match(plain, /^(# |ℹ )skipped 4$/m);
      assert.doesNotMatch(ours.slice(at), /^(# |ℹ )/m);
    });
  });
}

test('a run with no skip says so', () => {
  const file = join(dir, 'none.test.ts');
  writeFileSync(file, "import { test } from 'node:test';\ntest('runs', () => {});\n");
  const out = run([process.execPath, 'test/run.mjs', file]);
  assert.equal(out.trimEnd().split('\n').at(-1), 'Skipped: nothing.');
});

test('reasons are grouped after spacing and a final period are evened out, the largest first', () => {
  const records: SkipRecord[] = [
    { skip: 'B is not set', type: 'test' },
    { skip: 'A is not set', type: 'test' },
    { skip: ' B  is not set.', type: 'test' },
    { skip: true, type: 'test' },
    { skip: '   ', type: 'test' },
    { skip: 'A is not set', type: 'suite' },
  ];
  assert.deepEqual(summarise(records), [
    { reason: '(no reason given)', tests: 2, suites: 0 },
    { reason: 'A is not set', tests: 1, suites: 1 },
    { reason: 'B is not set', tests: 2, suites: 0 },
  ]);
  assert.deepEqual(formatSummary(summarise(records.filter((r) => r.type === 'test')), 'Skipped on Node 20'), [
    'Skipped on Node 20, by reason:',
    '  2 tests: (no reason given)',
    '  2 tests: B is not set',
    '   1 test: A is not set',
  ]);
});

test('the command adds up the files of several runs; a run that left no file adds nothing', () => {
  const line = (skip: unknown, type = 'test') => `${JSON.stringify({ skip, type, name: 'x' })}\n`;
  writeFileSync(join(dir, 'node20.jsonl'), line('A is not set') + line('B is not set'));
  writeFileSync(join(dir, 'node24.jsonl'), line('A is not set') + line('A is not set', 'suite'));
  const out = run([
    process.execPath,
    '--import',
    'tsx',
    'test/helpers/skip-summary.ts',
    'Skipped on Node 20 and Node 24',
    join(dir, 'node20.jsonl'),
    join(dir, 'node24.jsonl'),
    join(dir, 'never-written.jsonl'),
  ]);
  assert.deepEqual(out.trimEnd().split('\n'), [
    'Skipped on Node 20 and Node 24, by reason (a skipped suite counts once; the tests in it are not run or counted):',
    '  2 tests, 1 suite: A is not set',
    '            1 test: B is not set',
  ]);
});

test('every skip in test/ and bench/ gives its reason', () => {
  const reasonless = /\bskip:\s*(true\b|!)|\.skip\(\s*\)/;
  const found: string[] = [];
  for (const root of ['test', 'bench']) {
    for (const file of readdirSync(join(REPO, root), { recursive: true }).map(String)) {
      if (!/\.(ts|mjs)$/.test(file) || /node_modules|fixtures|run-summary/.test(file)) continue;
      readFileSync(join(REPO, root, file), 'utf8')
        .split('\n')
        .forEach((text, i) => {
          if (reasonless.test(text)) found.push(`${root}/${file}:${i + 1}`);
        });
    }
  }
  assert.deepEqual(found, []);
});
