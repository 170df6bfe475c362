// CI step: the installs the README shows, from `npm pack` of this checkout (docs/install.md), run as a
// user would, from an empty folder:
// - a global install (`npm install -g <tgz>`, into a prefix of its own here): the runtime dependencies
//   alone, none of the build's tools; `mcp-run --version`, and `mcp-run --demo` served over stdio;
// - `npx --package=<tgz> mcp-run`: `--version`, and the demo again.
// The demo's answers are checked (initialize, tools/list and one SQL tool call; nothing but JSON-RPC
// on stdout), its database must be made in the data folder ($XDG_DATA_HOME/mcp-run/shop-assistant),
// and nothing may be written into the installed package (a listing before and after).
// Both installs come from the local npm cache where they can (--prefer-offline), and run with
// --ignore-scripts: the one runtime dependency with an install script is better-sqlite3, whose script
// compiles SQLite from source here (no prebuilt binary can be fetched; two to five minutes of CI for a
// compile the Node 24 run's `npm ci` already proves). Its binary is taken from this checkout instead,
// built by the same Node from the same locked version. `--version` needs no binary: SQLite loads on use.
// The global install's node_modules is held to a budget (BUDGET_BYTES, the README's "Install"
// figures): its bytes on disk and its package count are printed, and the step fails past it. DuckDB
// (70 MB) is an optional peer and is not in it: a duckdb source is refused with the command that
// adds it, and that command, run as printed, makes the source open.
// A step here and not a unit test: it packs and installs 100-odd packages, twice.
// test/deploy/package.test.ts checks the packed file list and dist/'s imports in a second.
// Usage: node .ci/user-install.mjs (after a build); exits non-zero with the reason on a failure.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
const work = mkdtempSync(join(tmpdir(), 'mcp-run-user-install-'));
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
const SQLITE_BINARY = 'better-sqlite3/build/Release/better_sqlite3.node';
/** At most this much node_modules for the use-only install (issue 48; the README states it). */
const BUDGET_BYTES = 100 * 1000 * 1000;
const fail = (why) => {
  console.error(`user install: ${why}`);
  process.exitCode = 1;
};
// The npm settings of both installs, as environment (npx takes them so too).
const npmEnv = {
  ...process.env,
  npm_config_ignore_scripts: 'true',
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  npm_config_yes: 'true',
};

function run(command, args, options = {}) {
  const begun = Date.now();
  const result = spawnSync(command, args, { encoding: 'utf8', env: npmEnv, ...options });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited ${result.status}:\n${result.stdout}\n${result.stderr}`,
    );
  }
  return { ...result, seconds: ((Date.now() - begun) / 1000).toFixed(1) };
}

/** Every path under `dir` with its size and time: what a write into the package would change. */
function listing(dir) {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .sort()
    .map((path) => {
      const s = lstatSync(join(dir, path));
      return `${path} ${s.size} ${s.mtimeMs}`;
    });
}

/** The bytes on disk of every file under `dir` (as `du -sb` counts them: file sizes, links not followed). */
function bytesUnder(dir) {
  return readdirSync(dir, { recursive: true })
    .map((path) => lstatSync(join(dir, String(path))))
    .filter((s) => s.isFile())
    .reduce((sum, s) => sum + s.size, 0);
}

/** Every package in a node_modules tree, nested ones included (each folder holding a package.json). */
function packagesUnder(modules) {
  let count = 0;
  for (const name of readdirSync(modules)) {
    if (name.startsWith('.')) continue;
    const dirs = name.startsWith('@')
      ? readdirSync(join(modules, name)).map((s) => join(modules, name, s))
      : [join(modules, name)];
    for (const dir of dirs) {
      if (!existsSync(join(dir, 'package.json'))) continue;
      count += 1;
      if (existsSync(join(dir, 'node_modules'))) count += packagesUnder(join(dir, 'node_modules'));
    }
  }
  return count;
}

/** An empty folder to run from, and an empty data folder for the demo's database. */
function emptyFolders(name) {
  const cwd = join(work, `${name}-cwd`);
  const data = join(work, `${name}-data`);
  mkdirSync(cwd);
  return { cwd, data };
}

/** Serves the demo with `command args` from an empty folder; checks its answers and where its data went. */
function serveDemo(name, command, args, packageDir) {
  const { cwd, data } = emptyFolders(name);
  const before = listing(packageDir);
  const requests = [
    {
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ci', version: '1' } },
    },
    { method: 'notifications/initialized' },
    { id: 2, method: 'tools/list' },
    { id: 3, method: 'tools/call', params: { name: 'find_orders', arguments: { email: 'ada@example.com' } } },
  ];
  const serve = run(command, args, {
    cwd,
    env: { ...npmEnv, XDG_DATA_HOME: data },
    input: requests.map((r) => `${JSON.stringify({ jsonrpc: '2.0', ...r })}\n`).join(''),
    timeout: 60_000,
  });
  const replies = serve.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      try {
        return JSON.parse(line);
      } catch {
        fail(`${name}: stdout carries a line that is not JSON-RPC: ${line}`);
        return {};
      }
    });
  const ids = replies.map((r) => r.id).join(',');
  if (ids !== '1,2,3' || replies.some((r) => r.jsonrpc !== '2.0' || !r.result)) {
    fail(
      `${name}: the demo did not answer initialize, tools/list and tools/call:\n${serve.stdout}\n${serve.stderr}`,
    );
    return;
  }
  if (replies[2].result.isError)
    fail(`${name}: find_orders failed: ${JSON.stringify(replies[2].result.content)}`);
  if (!existsSync(join(data, 'mcp-run/shop-assistant/shop.db')))
    fail(`${name}: the demo's database is not in the data folder ${data}:\n${serve.stderr}`);
  if (readdirSync(cwd).length > 0)
    fail(`${name}: the demo wrote into the folder it ran from: ${readdirSync(cwd)}`);
  const after = listing(packageDir);
  const written = after.filter((line) => !before.includes(line));
  if (written.length > 0) fail(`${name}: the demo wrote into the installed package: ${written.join(', ')}`);
  console.error(
    `user install: ${name} served the demo in ${serve.seconds} s (${replies[1].result.tools.length} tools; find_orders answered; its database in the data folder)`,
  );
}

/**
 * A duckdb source in the global install, which lacks DuckDB: validate refuses it with the command
 * that adds DuckDB, and that command, run as printed, makes the manifest valid (docs/install.md).
 */
function addDuckdb(bin) {
  const { cwd } = emptyFolders('global-duckdb');
  const fixture = join(REPO, 'test/fixtures/invalid/cli/source-engine-not-installed');
  for (const file of ['mcp.yaml', 'data']) cpSync(join(fixture, file), join(cwd, file), { recursive: true });
  const refused = spawnSync(bin, ['validate', 'mcp.yaml'], { cwd, encoding: 'utf8', env: npmEnv });
  const command = /hint: .*`(npm install [^`]+)`/.exec(refused.stderr)?.[1];
  if (refused.status === 0 || !refused.stderr.includes('SOURCE_ENGINE_NOT_INSTALLED') || !command) {
    fail(`a duckdb source without DuckDB was not refused with the command that adds it:\n${refused.stderr}`);
    return;
  }
  const added = run('npm', command.split(' ').slice(1), { cwd });
  run(bin, ['validate', 'mcp.yaml'], { cwd });
  console.error(
    `user install: a duckdb source: refused, then valid after \`${command}\` (${added.seconds} s)`,
  );
}

function checkVersion(name, printed) {
  if (printed.trim() !== pkg.version)
    fail(`${name}: mcp-run --version printed "${printed.trim()}", not ${pkg.version}`);
}

let npxDir;
try {
  const pack = run('npm', ['pack', '--json', '--pack-destination', work], { cwd: REPO });
  const tarball = join(work, JSON.parse(pack.stdout)[0].filename);
  console.error(`user install: packed ${tarball} in ${pack.seconds} s`);

  // 1. npm install -g <tgz>, into a global prefix of its own.
  const global = join(work, 'global');
  const install = run('npm', ['install', '--global', '--prefix', global, tarball], { cwd: work });
  const installed = join(global, 'lib/node_modules/mcp-run');
  const modules = join(installed, 'node_modules');
  cpSync(join(REPO, 'node_modules', SQLITE_BINARY), join(modules, SQLITE_BINARY));
  const packages = readdirSync(modules)
    .filter((d) => !d.startsWith('.'))
    .flatMap((d) => (d.startsWith('@') ? readdirSync(join(modules, d)).map((s) => `${d}/${s}`) : [d]));
  // The build's tools must not come along (a devDependency a runtime package needs, such as
  // @types/node, a peer of mysql2, may).
  const tools = ['typescript', 'tsx', 'esbuild', '@biomejs/biome'].filter((d) =>
    existsSync(join(modules, d)),
  );
  if (tools.length > 0) fail(`the build's tools were installed: ${tools.join(', ')}`);
  console.error(`user install: npm install -g: ${packages.length} packages in ${install.seconds} s`);
  // Measured with better-sqlite3's binary in place, as a user's install has it.
  const bytes = bytesUnder(modules);
  const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;
  console.error(
    `user install: node_modules of the global install: ${mb(bytes)} in ${packagesUnder(modules)} packages (budget ${mb(BUDGET_BYTES)})`,
  );
  if (bytes > BUDGET_BYTES)
    fail(`the use-only install's node_modules is ${mb(bytes)}, over its budget of ${mb(BUDGET_BYTES)}`);
  if (existsSync(join(modules, '@duckdb')))
    fail('DuckDB (@duckdb) was installed: it is an optional peer, left out of the default install');
  const bin = join(global, 'bin/mcp-run');
  checkVersion('npm install -g', run(bin, ['--version'], { cwd: emptyFolders('global-version').cwd }).stdout);
  serveDemo('mcp-run --demo (npm install -g)', bin, ['--demo'], installed);
  addDuckdb(bin);

  // 2. npx --package=<tgz> mcp-run: npx installs into the npm cache's _npx folder once, then reuses it.
  const npx = ['--package', tarball, 'mcp-run'];
  const version = run('npx', [...npx, '--version'], { cwd: emptyFolders('npx-version').cwd });
  checkVersion('npx', version.stdout);
  console.error(
    `user install: npx --package=<tgz> mcp-run --version in ${version.seconds} s (its install included)`,
  );
  // Where npx put it: the _npx folder whose package.json asks for this tarball.
  const npxRoot = join(run('npm', ['config', 'get', 'cache']).stdout.trim(), '_npx');
  npxDir = readdirSync(npxRoot)
    .map((hash) => join(npxRoot, hash))
    .find((dir) => {
      // A folder an interrupted npx left without its package.json is someone else's: skip it.
      const manifest = join(dir, 'package.json');
      return existsSync(manifest) && readFileSync(manifest, 'utf8').includes(tarball);
    });
  if (npxDir === undefined) throw new Error(`npx installed the tarball in no folder of ${npxRoot}`);
  cpSync(join(REPO, 'node_modules', SQLITE_BINARY), join(npxDir, 'node_modules', SQLITE_BINARY));
  serveDemo(
    'npx --package=<tgz> mcp-run --demo',
    'npx',
    [...npx, '--demo'],
    join(npxDir, 'node_modules/mcp-run'),
  );
} catch (error) {
  fail(error.message);
} finally {
  // npx's folder names a tarball that is gone after this run: nothing would reuse it.
  if (npxDir !== undefined) rmSync(npxDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
  console.error(
    `user install: ${process.exitCode ? 'failed' : 'done'} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
}
