/**
 * Every command that reads a manifest takes it as its argument or as -m/--manifest (the built CLI
 * as a child process); two different ones are bad usage.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { demoCopy, tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';
import { FRICTION_MANIFEST } from './friction-fixture.js';

const demo = demoCopy();
after(() => demo.cleanup());

const SHELL = tempFiles({ 'mcp.yaml': FRICTION_MANIFEST });
after(() => SHELL.cleanup());
const M = join(SHELL.dir, 'mcp.yaml');

describe('the manifest, as an argument or as -m/--manifest', () => {
  for (const [name, before] of [
    ['validate', ['validate']],
    ['list', ['list']],
    ['lint', ['lint']],
    ['test', ['test']],
    ['call', ['call', 'tagged', '--arg', 'tags=x']],
    ['prompt', ['prompt', 'hello']],
  ] as const) {
    test(`${name}: both forms work, and two different manifests are bad usage`, () => {
      const positional = runCli([...before, M]);
      const option = runCli([...before, '-m', M]);
      assert.equal(positional.code, 0, positional.stderr);
      assert.equal(option.code, 0, option.stderr);
      if (name !== 'test') assert.equal(option.stdout, positional.stdout);
      else assert.match(option.stdout, /1 passed, 0 failed/);
      // test takes many paths: -m adds one; the other commands serve one manifest.
      if (name === 'test') return;
      const both = runCli([...before, M, '--manifest', demo.manifest]);
      assert.equal(both.code, 2);
      assert.match(both.stderr, /two manifests given/);
    });
  }
  test('read: both forms', () => {
    const a = runCli(['read', 'shop://docs/handbook.md', demo.manifest]);
    const b = runCli(['read', 'shop://docs/handbook.md', '-m', demo.manifest]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(a.stdout, b.stdout);
  });
  test('serve: both forms (stdin closed: it stops with 0)', () => {
    const a = runCli([M, '--no-watch', '--log-level', 'debug']);
    const b = runCli(['-m', M, '--no-watch', '--log-level', 'debug']);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.match(b.stderr, /serving .*mcp\.yaml on stdio/);
    assert.equal(runCli([M, '-m', demo.manifest]).code, 2);
  });
  test('serve --demo: the demo shipped in the package; with a manifest besides, bad usage', () => {
    const both = runCli(['--demo', M]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--demo serves the demo shipped with mcp-run; give it or the manifest/);
    assert.equal(runCli(['--demo', '-m', M]).code, 2);
    const dev = runCli(['dev', '--demo', M]);
    assert.equal(dev.code, 2);
    assert.match(dev.stderr, /--demo serves the demo shipped with mcp-run/);
  });
});
