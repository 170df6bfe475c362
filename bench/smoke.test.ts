/**
 * `npm run bench:smoke`: the benchmark harness starts and measures. One tiny `--smoke` run of every
 * scenario (one round, 0.5 s measurements, small manifests) into a temp folder, then its output is
 * checked: every contender of every table measured something (positive throughput, no failed
 * request), every goal got a verdict, and the page shows each of them. Figures themselves are never
 * compared with targets (no timing assertions). Not part of `npm test` (tens of seconds of load);
 * .ci/run runs it as a step of its own.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { REPO } from './lib/proc.js';
import { type Results, type ScenarioError, verdict } from './lib/report.js';
import type { ScenarioResult, Table } from './lib/types.js';

const SCENARIOS = [
  'http',
  'proxy',
  'mcp-proxy',
  'sql',
  'duckdb',
  'stdio',
  'cold-start',
  'load',
  'import',
  'tool-search',
  'scale',
  'reload',
  'toolbox',
  'replicas',
  'soak',
];

/**
 * 0.2 s (the `--smoke` default) is short enough that one contender may complete nothing on a loaded
 * machine (seen once: the 1,000-row SQL query at 32 connections, while other suites ran); 0.5 s
 * leaves every contender time to answer, so each one must.
 */
const DURATION = '0.5';

function runBench(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'bench/run.ts'), ...args], {
    cwd: REPO,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => {
    stderr += s;
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

/** A table cell that holds a measured number, e.g. "12,345", "0.412" or "3.16×"; NaN otherwise. */
const measured = (cell: unknown): number =>
  typeof cell === 'number' || typeof cell === 'string'
    ? Number(String(cell).replaceAll(',', '').replace(/×$/, ''))
    : Number.NaN;

/** The columns that hold measured figures: throughput, latency, time, memory, walks completed. */
const isFigure = (column: string): boolean => / ms$| MB$|\/s$/.test(column) || column === 'walks';

/** Differences of two measurements (the proxy's "B − A"): they may be negative. */
const isDifference = (table: Table): boolean => table.columns[0] === 'difference';

function finished(scenario: Results['scenarios'][string] | undefined): ScenarioResult {
  assert.ok(scenario, 'the scenario is in results.json');
  assert.equal((scenario as ScenarioError).error, undefined, (scenario as ScenarioError).error);
  return scenario as ScenarioResult;
}

describe('npm run bench -- --smoke', () => {
  const out = mkdtempSync(join(tmpdir(), 'mcp-run-bench-smoke-'));
  let run: { code: number | null; stderr: string };
  let results: Results;
  let markdown: string;

  // Run on first use, not in a before hook: a --test-name-pattern that picks only the soak pass
  // below must not pay for the whole smoke run (hooks run even when every test is filtered out).
  let started: Promise<void> | undefined;
  const ran = () =>
    (started ??= (async () => {
      run = await runBench(['--smoke', '--duration', DURATION, '--out', out]);
      results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
      markdown = readFileSync(join(out, 'benchmarks.md'), 'utf8');
    })());
  after(() => rmSync(out, { recursive: true, force: true }));

  test('exits 0 and records the machine, the date, the options and every scenario', async () => {
    await ran();
    assert.equal(run.code, 0, run.stderr);
    assert.ok(results.machine.cores >= 1);
    assert.match(results.machine.node, /^v\d+/);
    assert.ok(!Number.isNaN(Date.parse(results.date)));
    assert.equal(results.options.smoke, true);
    assert.equal(results.options.duration, Number(DURATION));
    assert.deepEqual(Object.keys(results.scenarios).sort(), [...SCENARIOS].sort());
    assert.match(markdown, /^# Benchmarks/);
    assert.ok(markdown.includes(`Measured ${results.date} on `), 'the page says when it was measured');
  });

  for (const name of SCENARIOS) {
    test(`${name}: every contender measured something, with no failed request`, async (t) => {
      await ran();
      const scenario = finished(results.scenarios[name]);
      // A contender that is not installed here (the Toolbox binary) skips its scenario, with the reason.
      const skipped = (scenario.raw as { skipped?: string } | undefined)?.skipped;
      if (skipped) return t.skip(skipped);
      assert.ok(scenario.tables.length > 0);
      for (const table of scenario.tables) {
        assert.ok(table.rows.length > 0, table.caption);
        const figures = table.columns.flatMap((c, i) => (isFigure(c) ? [i] : []));
        assert.ok(figures.length > 0, `${table.caption}: a column of figures`);
        const failed = table.columns.indexOf('failed');
        for (const row of table.rows) {
          const where = `${table.caption}: ${row.join(' | ')}`;
          assert.equal(row.length, table.columns.length, where);
          for (const i of figures) {
            const figure = measured(row[i]);
            assert.ok(Number.isFinite(figure), `${table.columns[i]} of ${where}`);
            // A throughput of 0 is a contender that completed nothing; a latency or size of 0 was
            // never measured.
            if (!isDifference(table)) assert.ok(figure > 0, `${table.columns[i]} of ${where}`);
          }
          if (failed >= 0) assert.equal(row[failed], 0, where);
        }
      }
    });

    test(`${name}: the page shows its section, its tables and a verdict on each goal`, async () => {
      await ran();
      const scenario = finished(results.scenarios[name]);
      assert.ok(
        markdown.includes(`## ${scenario.title} (\`${name}\`)`),
        `the page has a section for ${name}`,
      );
      for (const table of scenario.tables) {
        assert.ok(markdown.includes(`**${table.caption}**`), table.caption);
        assert.ok(markdown.includes(`| ${table.columns.join(' | ')} |`), `${table.caption}: the header`);
      }
      for (const goal of scenario.goals) {
        // A smoke run measures every point a goal needs: "not measured" (null) means a figure is
        // missing or not a number, so each goal must come out met or missed.
        assert.equal(typeof goal.met, 'boolean', `${goal.goal}: ${goal.measured}`);
        assert.ok(goal.measured.length > 0, goal.goal);
        const line = markdown.split('\n').find((l) => l.startsWith(`| ${name} | ${goal.goal} |`));
        assert.ok(line, `the Goals table lists ${goal.goal}`);
        assert.ok(line.endsWith(`| ${verdict(goal)} |`), `${line} should end with ${verdict(goal)}`);
      }
    });
  }

  test('refuses an unknown scenario by name', async () => {
    const { code, stderr } = await runBench(['--smoke', '--out', out, 'nope']);
    assert.notEqual(code, 0);
    assert.match(stderr, /unknown scenario nope; known: http, proxy, mcp-proxy, sql, duckdb/);
  });
});

/**
 * The soak scenario alone, as its own `--smoke` pass (2 clients, 2 s per run: its smoke length when
 * no `--duration` is given): every call was answered and checked, the steady run had no error, the
 * kill happened and the replica came back, and nothing was lost. Answers, not timing.
 * `npm run bench:smoke -- --test-name-pattern='smoke soak'` runs only this.
 */
describe('npm run bench -- --smoke soak', () => {
  const out = mkdtempSync(join(tmpdir(), 'mcp-run-bench-soak-'));
  let run: { code: number | null; stderr: string };
  let soak: ScenarioResult;
  interface SoakRun {
    label: string;
    kill?: { at: number; inFlight: number; restartMs: number };
    figures: { calls: number; errors: number; lost: number; errorsOutside: number };
    samples: { t: number; rssMb: (number | null)[] }[];
    failures: unknown[];
  }
  let runs: SoakRun[];

  before(async () => {
    run = await runBench(['--smoke', '--out', out, 'soak']);
    soak = finished((JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as Results).scenarios.soak);
    runs = (soak.raw as { runs: SoakRun[] }).runs;
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  test('2 clients, 2 s runs: every call answered right when nothing fails', () => {
    assert.equal(run.code, 0, run.stderr);
    assert.equal((soak.raw as { clients: number }).clients, 2);
    assert.equal((soak.raw as { seconds: number }).seconds, 2);
    const steady = runs[0]!;
    // Each client cycles through 4 kinds of call: a pass of each, at least.
    assert.ok(steady.figures.calls >= 8, `${steady.figures.calls} calls`);
    assert.deepEqual(steady.failures, []);
    assert.equal(steady.figures.errors, 0);
    // RSS was sampled at the start and the end of the run, for both replicas.
    assert.ok(steady.samples.length >= 2);
    for (const s of steady.samples)
      assert.ok(
        s.rssMb.every((v) => v !== null && v > 0),
        JSON.stringify(s),
      );
  });

  test('a replica SIGKILLed midway: it comes back, no call is lost, errors only at the kill', () => {
    const fault = runs[1]!;
    assert.ok(fault.kill, 'the replica was killed');
    assert.ok(Number.isFinite(fault.kill.restartMs), 'and started again');
    assert.ok(fault.figures.calls >= 8, `${fault.figures.calls} calls`);
    assert.equal(fault.figures.lost, 0, JSON.stringify(fault.failures));
    assert.equal(fault.figures.errorsOutside, 0, JSON.stringify(fault.failures));
    // The killed replica was seen down, and up again by the last sample.
    assert.ok(
      fault.samples.some((s) => s.rssMb[0] === null),
      'a sample while it was down',
    );
    assert.notEqual(fault.samples.at(-1)?.rssMb[0], null);
    const goals = soak.goals.map((g) => [g.goal, g.met]);
    assert.ok(goals.length === 2 && goals.every(([, met]) => met === true), JSON.stringify(soak.goals));
  });
});
