/**
 * The CLI keeps V8's young generation at its initial size (young-generation.ts): a load that keeps
 * most of what it allocates no longer grows the semi-spaces, unless the user sized them on node's
 * command line. Each case runs in a fresh node process, since the setting is process-wide.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { test } from 'node:test';

const MODULE = resolve(import.meta.dirname, '../../src/cli/young-generation.ts');

/** Keeps a tenth of 3 million small objects (as a manifest load keeps what it parses) and reports the young generation's size before and after. */
const CHILD = `
const { getHeapSpaceStatistics } = await import('node:v8');
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
const applied = process.argv[1] === 'call' ? (await import(process.argv[2])).keepYoungGenerationSmall() : undefined;
const before = newSpace();
const kept = [];
for (let i = 0; i < 3e6; i++) { const o = { i, s: 'x' + i }; if (i % 10 === 0) kept.push(o); }
console.log(JSON.stringify({ applied, before, after: newSpace(), kept: kept.length }));
`;

function run(mode: 'call' | 'none', nodeFlags: string[] = [], env: NodeJS.ProcessEnv = process.env) {
  const child = spawnSync(
    process.execPath,
    [...nodeFlags, '--import', 'tsx', '--input-type=module', '-e', CHILD, mode, MODULE],
    { encoding: 'utf8', env },
  );
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as { applied?: boolean; before: number; after: number };
}

const withoutNodeOptions = { ...process.env, NODE_OPTIONS: '' };

test('without the setting, a load that keeps its objects grows the young generation', () => {
  const r = run('none', [], withoutNodeOptions);
  assert.ok(r.after > r.before, `new space ${r.before} → ${r.after}`);
});

test('with it, the young generation stays at its initial size', () => {
  const r = run('call', [], withoutNodeOptions);
  assert.equal(r.applied, true);
  assert.equal(r.after, r.before);
});

test("a user's own semi-space size on node's command line is kept", () => {
  const r = run('call', ['--max-semi-space-size=8'], withoutNodeOptions);
  assert.equal(r.applied, false);
  assert.ok(r.after > r.before, `new space ${r.before} → ${r.after}`);
});

test('and one given in NODE_OPTIONS too', () => {
  const r = run('call', [], { ...process.env, NODE_OPTIONS: '--max-semi-space-size=8' });
  assert.equal(r.applied, false);
  assert.ok(r.after > r.before, `new space ${r.before} → ${r.after}`);
});
