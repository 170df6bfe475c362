/**
 * An install without DuckDB (issue 48): `@duckdb/node-api` is an optional peer, so npm leaves it out,
 * and a manifest with a `kind: duckdb` source gets one error at that line with the command that adds
 * it, from `validate` and from serving: not the worker's raw "Cannot find package", nor a source that
 * "stopped". The real package, as an install lays it out: `npm pack`'s files copied into a
 * `node_modules` whose other packages are this checkout's (linked one by one, @duckdb left out),
 * nothing on the way up from it that holds @duckdb; the built CLI runs from it, and so does its real
 * DuckDB worker. Three layouts: a project's (`<project>/node_modules/mcp-run`), a global install's
 * (`<prefix>/lib/node_modules/mcp-run`, `<prefix>/bin/mcp-run`) and npx's
 * (`<cache>/_npx/<hash>/node_modules/mcp-run`). Needs the build (dist/).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { packedFiles, REPO } from '../../../helpers/demo.js';

const RANGE = (
  JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
    peerDependencies: Record<string, string>;
  }
).peerDependencies['@duckdb/node-api'];

/** The golden case's manifest and data (fixtures/invalid/cli/source-engine-not-installed). */
const CASE = join(REPO, 'test/fixtures/invalid/cli/source-engine-not-installed');

let packed: string[] = [];
const roots: string[] = [];

/** mcp-run's packed files at `modules/mcp-run`, beside links to every package of the checkout but DuckDB's. */
function install(modules: string): string {
  const pkg = join(modules, 'mcp-run');
  for (const file of packed) {
    mkdirSync(dirname(join(pkg, file)), { recursive: true });
    cpSync(join(REPO, file), join(pkg, file));
  }
  for (const name of readdirSync(join(REPO, 'node_modules'))) {
    if (name === '@duckdb' || name.startsWith('.')) continue;
    symlinkSync(join(REPO, 'node_modules', name), join(modules, name));
  }
  return pkg;
}

/** Runs `mcp-run <args> mcp.yaml` in a fresh project folder; its stderr and exit code. */
function mcpRun(pkg: string, args: string[]) {
  const cwd = mkdtempSync(join(tmpdir(), 'mcp-run-no-duckdb-project-'));
  roots.push(cwd);
  cpSync(join(CASE, 'data'), join(cwd, 'data'), { recursive: true });
  cpSync(join(CASE, 'mcp.yaml'), join(cwd, 'mcp.yaml'));
  const result = spawnSync(process.execPath, [join(pkg, 'dist/cli/bin.cjs'), ...args, 'mcp.yaml'], {
    cwd,
    encoding: 'utf8',
    input: '',
    timeout: 60_000,
  });
  assert.equal(result.signal, null, `mcp-run ${args.join(' ')} did not end:\n${result.stderr}`);
  return result;
}

/** The one error a user sees, at the source's `kind: duckdb`, with `hint`. */
function assertNotInstalled(stderr: string, hint: string): void {
  assert.match(
    stderr,
    /error\[SOURCE_ENGINE_NOT_INSTALLED\] mcp\.yaml:3:11 sources\.people\.kind\n {2}source "people" \(kind duckdb\) needs @duckdb\/node-api, which is not installed/,
  );
  assert.ok(stderr.includes(`  hint: ${hint}`), stderr);
  assert.equal(stderr.match(/error\[/g)?.length, 1, stderr);
  assert.doesNotMatch(stderr, /Cannot find|stopped|SOURCE_OPEN_FAILED/);
}

describe('a manifest with a duckdb source, in an install without DuckDB', () => {
  before(() => {
    packed = packedFiles();
  });
  after(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  it("in a project: validate and serve say to install it in the project's folder", () => {
    const project = mkdtempSync(join(tmpdir(), 'mcp-run-no-duckdb-'));
    roots.push(project);
    const pkg = install(join(project, 'node_modules'));
    const hint = `install it beside mcp-run, in the project that holds it: \`cd ${project} && npm install @duckdb/node-api@${RANGE}\``;

    const validate = mcpRun(pkg, ['validate']);
    assert.equal(validate.status, 1, validate.stderr);
    assertNotInstalled(validate.stderr, hint);

    const serve = mcpRun(pkg, ['--no-watch']);
    assert.notEqual(serve.status, 0, serve.stderr);
    assertNotInstalled(serve.stderr, hint);
  });

  it('installed globally: validate says to install it globally, into the same prefix', () => {
    const prefix = mkdtempSync(join(tmpdir(), 'mcp-run-no-duckdb-global-'));
    roots.push(prefix);
    const pkg = install(join(prefix, 'lib', 'node_modules'));
    mkdirSync(join(prefix, 'bin'));
    symlinkSync(join(pkg, 'dist/cli/bin.cjs'), join(prefix, 'bin', 'mcp-run'));

    const validate = mcpRun(pkg, ['validate']);
    assert.equal(validate.status, 1, validate.stderr);
    assertNotInstalled(
      validate.stderr,
      `mcp-run is installed globally: \`npm install --global --prefix ${prefix} @duckdb/node-api@${RANGE}\` puts DuckDB beside it`,
    );
  });

  it("through npx: validate says to name DuckDB's package in the same npx command", () => {
    const cache = mkdtempSync(join(tmpdir(), 'mcp-run-no-duckdb-npm-cache-'));
    roots.push(cache);
    const pkg = install(join(cache, '_npx', '0123456789abcdef', 'node_modules'));

    const validate = mcpRun(pkg, ['validate']);
    assert.equal(validate.status, 1, validate.stderr);
    assertNotInstalled(
      validate.stderr,
      `npx installs every --package of one command together: \`npx --package=mcp-run --package=@duckdb/node-api@${RANGE} mcp-run …\``,
    );
  });
});
