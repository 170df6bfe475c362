// Runs every test/**/*.test.ts with node's test runner (Node 20's --test takes no globs).
// Extra arguments are passed on: `npm test -- --test-name-pattern=stdio`, or file paths to run only those.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
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

const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=120000', ...flags, ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
