// Runs every test/**/*.test.ts with node's test runner (Node 20's --test takes no globs).
// Extra arguments are passed on: `npm test -- --test-name-pattern=stdio`, or file paths to run only those.
// It ends with what was skipped and why: test/helpers/skip-reporter.mjs runs beside the runner's usual
// reporter (whose output stays as it was) and skip-summary.ts groups what it wrote by reason.
// MCP_RUN_TEST_SKIP_LOG names the file it writes (kept; .ci/run adds up two runs' files).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
const named = args.filter((a) => a.endsWith('.test.ts'));
const flags = args.filter((a) => !a.endsWith('.test.ts'));
const files = named.length
  ? named
  : readdirSync('test', { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.test.ts') && !f.includes('node_modules'))
      .map((f) => join('test', f))
      .sort();

// Naming any reporter replaces the default one, so the runner's own choice is named again: spec on a
// terminal and TAP otherwise up to Node 22, spec always from Node 23. Reporters the caller names
// win, and then no summary is added.
const SKIP_REPORTER = new URL('./helpers/skip-reporter.mjs', import.meta.url);
const SKIP_SUMMARY = new URL('./helpers/skip-summary.ts', import.meta.url);
const ownReporters = flags.some((f) => f.startsWith('--test-reporter'));
const nodeMajor = Number(process.versions.node.split('.')[0]);
const visible = nodeMajor >= 23 || process.stdout.isTTY ? 'spec' : 'tap';
const tempDir = ownReporters ? undefined : mkdtempSync(join(tmpdir(), 'mcp-run-skips-'));
const skipLog = process.env.MCP_RUN_TEST_SKIP_LOG || (tempDir && join(tempDir, 'skips.jsonl'));
const reporters = ownReporters
  ? []
  : [
      `--test-reporter=${visible}`,
      '--test-reporter-destination=stdout',
      `--test-reporter=${SKIP_REPORTER.href}`,
      `--test-reporter-destination=${skipLog}`,
    ];

const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    // Three files at once: on 2 cores the suite waits on processes, sockets and timers about a third
    // of the time, and a third file fills it (16 min became 12.7, the CPU used 135% became 167%).
    '--test-concurrency=3',
    '--test-timeout=120000',
    ...reporters,
    ...flags,
    ...files,
  ],
  { stdio: 'inherit' },
);
if (!ownReporters) {
  const { tsImport } = await import('tsx/esm/api');
  const { formatSummary, readRecords, summarise } = await tsImport(SKIP_SUMMARY.href, import.meta.url);
  console.log(`\n${formatSummary(summarise(readRecords([skipLog]))).join('\n')}`);
}
if (tempDir) rmSync(tempDir, { recursive: true, force: true });
process.exit(result.status ?? 1);
