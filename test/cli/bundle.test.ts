/**
 * The command line runs from one bundle (scripts/bundle-cli.mjs) with the V8 code cache the build
 * wrote beside it (src/cli/main.ts). A cache V8 refuses costs nothing but the time it was to save:
 * these check that the build's cache is one V8 takes from the command line's own start.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPO } from '../helpers/demo.js';

const BUNDLE = join(REPO, 'dist/cli/mcp-run.cjs');

test('the build wrote the bundle and a code cache of it', () => {
  assert.ok(existsSync(BUNDLE), 'run npm run build');
  // Made after a start served requests: it holds the functions compiled then, not only the top level.
  assert.ok(statSync(`${BUNDLE}.v8-cache`).size > 100_000, 'a code cache of the started command line');
});

test('the ES module entry of older client configs, dist/cli/main.js, still runs the command line', () => {
  const run = spawnSync(process.execPath, [join(REPO, 'dist/cli/main.js'), '--version'], {
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version);
});

test('the bundle and the precompiled validators are ASCII, so V8 holds their sources as one-byte strings', () => {
  const precompiled = join(REPO, 'dist/manifest/precompiled');
  const sources = readdirSync(precompiled)
    .filter((f) => f.endsWith('.cjs'))
    .map((f) => join(precompiled, f));
  assert.ok(sources.length > 5, 'the build wrote the precompiled validators');
  for (const file of [BUNDLE, ...sources]) {
    const text = readFileSync(file, 'latin1');
    const at = text.search(/[^\t\n\r -~]/);
    assert.equal(
      at,
      -1,
      `${file}: a byte past ASCII at ${at}: ${JSON.stringify(text.slice(at - 40, at + 10))}`,
    );
  }
});

test('V8 takes the code cache under the flags the command line runs with', () => {
  // A child node process with V8's own flags, as bin.cts starts with them.
  const module = (path: string) => JSON.stringify(pathToFileURL(join(REPO, path)).href);
  const child = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { codeCacheRejected } = await import(${module('dist/util/code-cache.cjs')});
       console.log(JSON.stringify(codeCacheRejected(${JSON.stringify(BUNDLE)})));`,
    ],
    { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  assert.equal(child.status, 0, child.stderr);
  assert.equal(JSON.parse(child.stdout), false);
});
