/**
 * `npm run bench [-- <scenario>…] [--smoke] [--duration s] [--rounds n] [--warmup s] [--runs n]
 * [--out dir] [--profile] [--render]`: runs the benchmark scenarios (all by default) and writes the raw figures
 * to bench/results.json and the tables to docs/benchmarks.md. A partial run replaces only the
 * scenarios it ran. `--duration` is one measurement's length (default 2 s), and the length of each
 * load run of `soak` (default 20 s). `--smoke` is a tiny run (1 round, short measurements, small
 * manifests); tests use it. `--profile` writes CPU profiles of the mcp-run processes (see
 * bench/profile.ts). Both write their figures to a temp folder unless `--out` says where. Not a test: figures vary by
 * machine and load. Needs the built CLI (`npm run bench` builds first). `--render` runs nothing: it
 * writes docs/benchmarks.md again from bench/results.json and bench/misses.md (the goals not met).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atEnd, machine } from './lib/machine.js';
import { CLI, REPO } from './lib/proc.js';
import { type Results, renderMarkdown } from './lib/report.js';
import type { BenchOptions, Scenario } from './lib/types.js';
import { coldStartScenario } from './scenarios/cold-start.js';
import { duckdbScenario } from './scenarios/duckdb.js';
import { httpScenario } from './scenarios/http.js';
import { importScenario } from './scenarios/import.js';
import { loadScenario } from './scenarios/load.js';
import { mcpProxyScenario } from './scenarios/mcp-proxy.js';
import { proxyScenario } from './scenarios/proxy.js';
import { reloadScenario } from './scenarios/reload.js';
import { replicasScenario } from './scenarios/replicas.js';
import { scaleScenario } from './scenarios/scale.js';
import { soakScenario } from './scenarios/soak.js';
import { sqlScenario } from './scenarios/sql.js';
import { stdioScenario } from './scenarios/stdio.js';
import { toolSearchScenario } from './scenarios/tool-search.js';
import { toolboxScenario } from './scenarios/toolbox.js';

/** Where the time of each goal not met goes, written by hand from `--profile` runs (report.ts). */
const MISSES = join(REPO, 'bench/misses.md');

const SCENARIOS: readonly Scenario[] = [
  httpScenario,
  proxyScenario,
  mcpProxyScenario,
  sqlScenario,
  duckdbScenario,
  stdioScenario,
  coldStartScenario,
  loadScenario,
  importScenario,
  toolSearchScenario,
  scaleScenario,
  reloadScenario,
  toolboxScenario,
  replicasScenario,
  soakScenario,
];

function parseArgs(argv: readonly string[]) {
  const names: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--smoke' || arg === '--profile' || arg === '--render') flags.set(arg, 'true');
    else if (arg.startsWith('--')) flags.set(arg, argv[++i] ?? '');
    else names.push(arg);
  }
  const unknown = names.filter((n) => !SCENARIOS.some((s) => s.name === n));
  if (unknown.length > 0) {
    throw new Error(
      `unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`,
    );
  }
  const smoke = flags.has('--smoke');
  const number = (flag: string, normal: number, tiny: number) => {
    const value = flags.has(flag) ? Number(flags.get(flag)) : smoke ? tiny : normal;
    if (!Number.isFinite(value) || value < 0) throw new Error(`${flag} wants a number`);
    return value;
  };
  // Smoke and profiled figures are not results: they go to a temp folder unless --out says otherwise.
  const scratch = smoke || flags.has('--profile');
  const out = flags.get('--out') ?? (scratch ? mkdtempSync(join(tmpdir(), 'mcp-run-bench-out-')) : undefined);
  const options: BenchOptions = {
    smoke,
    duration: number('--duration', 2, 0.2),
    warmup: number('--warmup', 1, 0.05),
    rounds: Math.max(1, Math.round(number('--rounds', 3, 1))),
    // The soak run is one long measurement, not rounds of short ones: its own default length.
    soak: number('--duration', 20, 2),
    runs: Math.max(1, Math.round(number('--runs', 10, 1))),
    ...(flags.has('--profile') && { profileDir: mkdtempSync(join(tmpdir(), 'mcp-run-profile-')) }),
  };
  const selected = names.length > 0 ? SCENARIOS.filter((s) => names.includes(s.name)) : SCENARIOS;
  return { options, selected, out, render: flags.has('--render') };
}

const markdown = (results: Results) =>
  renderMarkdown(
    results,
    SCENARIOS.map((s) => s.name),
    existsSync(MISSES) ? readFileSync(MISSES, 'utf8') : undefined,
  );

async function main(): Promise<number> {
  const { options, selected, out, render } = parseArgs(process.argv.slice(2));
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const resultsFile = out ? join(out, 'results.json') : join(REPO, 'bench/results.json');
  const markdownFile = out ? join(out, 'benchmarks.md') : join(REPO, 'docs/benchmarks.md');
  const previous: Results | undefined =
    !options.smoke && existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : undefined;
  if (render) {
    if (!previous) throw new Error(`--render: no ${resultsFile} to render`);
    writeFileSync(markdownFile, markdown(previous));
    console.error(`rendered ${markdownFile} from ${resultsFile}`);
    return 0;
  }

  const date = new Date().toISOString();
  const host = machine();
  const scenarios: Results['scenarios'] = { ...previous?.scenarios };
  const begun = Date.now();
  let failures = 0;
  for (const scenario of selected) {
    const work = mkdtempSync(join(tmpdir(), `mcp-run-bench-${scenario.name}-`));
    const started = Date.now();
    console.error(`${scenario.name}: ${scenario.title}`);
    try {
      const result = await scenario.run(options, work);
      scenarios[scenario.name] = { ...result, date, machine: atEnd(host) };
    } catch (err) {
      failures++;
      console.error(`${scenario.name} failed: ${(err as Error).stack}`);
      scenarios[scenario.name] = {
        name: scenario.name,
        title: scenario.title,
        error: (err as Error).message,
        date,
      };
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    console.error(`${scenario.name}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const results: Results = { machine: atEnd(host), date, options, scenarios };
  if (out) mkdirSync(out, { recursive: true });
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(markdownFile, markdown(results));
  console.error(`wrote ${resultsFile} and ${markdownFile} in ${((Date.now() - begun) / 1000).toFixed(0)} s`);
  if (options.profileDir)
    console.error(`CPU profiles in ${options.profileDir}: npx tsx bench/profile.ts <file>`);
  return failures === 0 ? 0 : 1;
}

process.exitCode = await main();
