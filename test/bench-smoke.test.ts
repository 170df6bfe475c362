/**
 * The benchmark harness starts and produces figures: one tiny `--smoke` run of every scenario (one
 * round, 0.2 s measurements, small manifests) into a temp folder, then each scenario's tables are
 * checked for real measurements. Figures themselves are never asserted (no timing assertions).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { REPO } from './helpers/demo.js';

const SCENARIOS = ['http', 'proxy', 'sql', 'stdio', 'cold-start', 'scale', 'reload'];

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

/** A table cell that holds a measured number, e.g. "12,345", "0.412" or "3.16×". */
const measured = (cell: unknown): number => Number(String(cell).replaceAll(',', '').replace(/×$/, ''));

describe('npm run bench -- --smoke', () => {
  const out = mkdtempSync(join(tmpdir(), 'mcp-run-bench-smoke-'));
  let run: { code: number | null; stderr: string };
  let results: any;
  let markdown: string;

  before(async () => {
    run = await runBench(['--smoke', '--out', out]);
    results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    markdown = readFileSync(join(out, 'benchmarks.md'), 'utf8');
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  test('exits 0 and records the machine, the date and every scenario', () => {
    assert.equal(run.code, 0, run.stderr);
    assert.ok(results.machine.cores >= 1);
    assert.match(results.machine.node, /^v\d+/);
    assert.ok(!Number.isNaN(Date.parse(results.date)));
    assert.deepEqual(Object.keys(results.scenarios).sort(), [...SCENARIOS].sort());
    assert.match(markdown, /^# Benchmarks/);
    assert.match(markdown, /## Goals/);
  });

  for (const name of SCENARIOS) {
    test(`${name}: produces tables of positive figures with no failed requests`, () => {
      const scenario = results.scenarios[name];
      assert.equal(scenario.error, undefined, scenario.error);
      assert.ok(scenario.tables.length > 0);
      assert.ok(markdown.includes(`(\`${name}\`)`), `the page has a section for ${name}`);
      for (const table of scenario.tables) {
        assert.ok(table.rows.length > 0, table.caption);
        let positive = 0;
        for (const row of table.rows) {
          assert.equal(row.length, table.columns.length, table.caption);
          // The third column is always a measured figure (req/s, latency or memory). One contender
          // may complete nothing within a 0.2 s smoke window on a loaded machine (a 1,000-row query
          // at 32 connections), so every figure must be a number and at least one must be positive.
          const figure = measured(row[table.columns.length > 2 ? 2 : 1]);
          assert.ok(Number.isFinite(figure), `${table.caption}: ${row}`);
          if (figure > 0) positive++;
          const failed = table.columns.indexOf('failed');
          if (failed >= 0) assert.equal(row[failed], 0, `${table.caption}: ${row}`);
        }
        if (!table.caption.startsWith('What the proxy adds')) assert.ok(positive > 0, table.caption);
      }
      for (const goal of scenario.goals) {
        assert.ok([true, false, null].includes(goal.met), goal.goal);
        assert.ok(goal.measured.length > 0, goal.goal);
      }
    });
  }

  test('refuses an unknown scenario by name', async () => {
    const { code, stderr } = await runBench(['--smoke', '--out', out, 'nope']);
    assert.notEqual(code, 0);
    assert.match(stderr, /unknown scenario nope; known: http, proxy, sql/);
  });
});
