// CI step: the user install the README shows. `npm pack` of this checkout, installed into an empty
// folder with only the runtime dependencies (`--omit=dev`, from the local npm cache where it can),
// must print its version and serve the demo shipped in the package over stdio: initialize,
// tools/list and one SQL tool call answered, nothing but JSON-RPC on stdout, and none of the build's
// tools installed. A step here and not a unit test: it packs and installs 100-odd packages.
// The install runs with --ignore-scripts: the one runtime dependency with an install script is
// better-sqlite3, whose script compiles SQLite from source here (no prebuilt binary can be fetched;
// two to five minutes of CI for a compile the Node 24 run's `npm ci` already proves). Its binary is
// taken from this checkout instead, built by the same Node from the same locked version.
// test/deploy/package.test.ts checks the packed file list and dist/'s imports in a second.
// Usage: node .ci/user-install.mjs (after a build); exits non-zero with the reason on a failure.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'mcp-run-user-install-'));
const fail = (why) => {
  console.error(`user install: ${why}`);
  process.exitCode = 1;
};

function run(command, args, options = {}) {
  const started = Date.now();
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited ${result.status}:\n${result.stdout}\n${result.stderr}`,
    );
  }
  return { ...result, seconds: ((Date.now() - started) / 1000).toFixed(1) };
}

try {
  const pack = run('npm', ['pack', '--json', '--pack-destination', work], { cwd: REPO });
  const tarball = join(work, JSON.parse(pack.stdout)[0].filename);
  const home = join(work, 'home');
  mkdirSync(home);
  const install = run(
    'npm',
    [
      'install',
      '--omit=dev',
      '--ignore-scripts',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--prefix',
      home,
      tarball,
    ],
    { cwd: work },
  );
  const modules = join(home, 'node_modules');
  const sqliteBuild = 'better-sqlite3/build/Release/better_sqlite3.node';
  cpSync(join(REPO, 'node_modules', sqliteBuild), join(modules, sqliteBuild));
  const installed = readdirSync(modules)
    .filter((d) => !d.startsWith('.'))
    .flatMap((d) => (d.startsWith('@') ? readdirSync(join(modules, d)).map((s) => `${d}/${s}`) : [d]));
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
  // The build's tools must not come along (a devDependency a runtime package needs, such as
  // @types/node, a peer of mysql2, may).
  const tools = ['typescript', 'tsx', 'esbuild', '@biomejs/biome'].filter((d) =>
    existsSync(join(modules, d)),
  );
  if (tools.length > 0) fail(`the build's tools were installed: ${tools.join(', ')}`);
  console.error(`user install: ${installed.length} packages in ${install.seconds} s`);

  const bin = join(modules, '.bin/mcp-run');
  const version = run(bin, ['--version']).stdout.trim();
  if (version !== pkg.version) fail(`mcp-run --version printed "${version}", not ${pkg.version}`);

  // The demo as the package ships it, served from a folder of the user's (it writes its database).
  const demo = join(work, 'demo');
  mkdirSync(join(demo, 'recipes'), { recursive: true });
  cpSync(join(modules, 'mcp-run/mcp.yaml.example'), join(demo, 'mcp.yaml'));
  cpSync(join(modules, 'mcp-run/recipes/shop'), join(demo, 'recipes/shop'), { recursive: true });
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
  const serve = run(bin, ['mcp.yaml'], {
    cwd: demo,
    input: requests.map((r) => `${JSON.stringify({ jsonrpc: '2.0', ...r })}\n`).join(''),
    timeout: 60_000,
  });
  const lines = serve.stdout.split('\n').filter(Boolean);
  const replies = lines.map((line) => {
    try {
      return JSON.parse(line);
    } catch {
      fail(`stdout carries a line that is not JSON-RPC: ${line}`);
      return {};
    }
  });
  const ids = replies.map((r) => r.id).join(',');
  if (ids !== '1,2,3' || replies.some((r) => r.jsonrpc !== '2.0' || !r.result)) {
    fail(`the demo did not answer initialize, tools/list and tools/call:\n${serve.stdout}\n${serve.stderr}`);
  } else {
    const tools = replies[1].result.tools.length;
    const call = replies[2].result;
    if (call.isError) fail(`find_orders failed: ${JSON.stringify(call.content)}`);
    console.error(`user install: mcp-run ${version} served the demo (${tools} tools; find_orders answered)`);
  }
} catch (error) {
  fail(error.message);
} finally {
  rmSync(work, { recursive: true, force: true });
}
