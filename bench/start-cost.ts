/**
 * `npx tsx bench/start-cost.ts [--tools n] [--runs n] [--cli path] [--manifest file] [--until-list]`:
 * the instructions a stdio cold
 * start costs, spawn to exit, counted by callgrind over every thread of the process: mcp-run serving
 * the cold-start scenario's manifest (`n` content tools, 10 by default, watching as by default)
 * against the bare node script that answers the same bytes (bench/servers/bare-stdio-bytes.mjs,
 * given the answers mcp-run sent). Both read `initialize`, `notifications/initialized` and
 * `tools/list` from stdin, answer, and exit at its end. Needs valgrind and the built CLI.
 * `--manifest` counts a manifest of one's own instead (the GitHub import). `--until-list` ends each
 * process right after its `tools/list` answer (a preload): what a start sets going for later (ajv's
 * preload 250 ms after the first answer, the watcher) then counts for neither, where spawn to exit
 * counts it only when the machine is slow enough that its timer fires before stdin's end is read.
 *
 * Why: the cold-start goals compare starts of about 100 ms, where whatever else the machine runs
 * moves the medians by a fifth or more (the bare echo has been measured slower than the bare
 * server answering more bytes). callgrind counts the same work the same, loaded or not; what it
 * cannot count is the kernel's share (exec, page faults, file reads), the same for both. Not a test:
 * a measurement.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manyToolsText } from './lib/fixtures.js';
import { INITIALIZED, initialize, request } from './lib/mcp.js';
import { CLI, SERVERS } from './lib/proc.js';

const argv = process.argv.slice(2);
const flag = (name: string) => {
  const at = argv.indexOf(`--${name}`);
  return at < 0 ? undefined : argv[at + 1];
};
const tools = Number(flag('tools') ?? 10);
const runs = Number(flag('runs') ?? 2);
const cli = flag('cli') ?? CLI;
const ownManifest = flag('manifest');
const untilList = argv.includes('--until-list');

/** Ends the process once its second line (the `tools/list` answer) is written, after the write. */
const EXIT_AT_LIST = [
  'let lines = 0;',
  'const write = process.stdout.write.bind(process.stdout);',
  'process.stdout.write = function (chunk, ...rest) {',
  '  const result = write(chunk, ...rest);',
  "  const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('latin1');",
  "  for (const c of text) if (c === '\\n' && ++lines === 2) setImmediate(() => process.reallyExit(0));",
  '  return result;',
  '};',
  '',
].join('\n');

const INPUT = [initialize(1), INITIALIZED, request('legacy', 2, 'tools/list')]
  .map((m) => `${JSON.stringify(m)}\n`)
  .join('');

const dir = mkdtempSync(join(tmpdir(), 'mcp-run-start-cost-'));
try {
  const manifest = join(dir, 'mcp.yaml');
  writeFileSync(manifest, ownManifest ? readFileSync(ownManifest, 'utf8') : manyToolsText(tools));
  const preload = join(dir, 'exit-at-list.cjs');
  writeFileSync(preload, EXIT_AT_LIST);
  const node = untilList ? ['--require', preload] : [];
  // mcp-run's answers, for the bare server to send byte for byte.
  const out = execFileSync(process.execPath, [cli, manifest], {
    cwd: dir,
    input: INPUT,
    encoding: 'utf8',
    maxBuffer: 2 ** 30,
  });
  const answers = Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; result: unknown })
      .map((m) => [m.id === 1 ? 'initialize' : 'tools/list', JSON.stringify(m.result)]),
  );
  const answersFile = join(dir, 'answers.json');
  writeFileSync(answersFile, JSON.stringify(answers));

  const contenders = [
    { label: ownManifest ? 'mcp-run, that manifest' : `mcp-run, ${tools} tools`, args: [cli, manifest] },
    {
      label: 'bare node answering the same bytes',
      args: [join(SERVERS, 'bare-stdio-bytes.mjs'), answersFile],
    },
  ];
  const counts = contenders.map(() => [] as number[]);
  for (let run = 0; run < runs; run++) {
    for (const [i, c] of contenders.entries()) {
      const dumps = mkdtempSync(join(dir, 'cg-'));
      const answer = execFileSync(
        'valgrind',
        [
          '--tool=callgrind',
          '--smc-check=all',
          `--callgrind-out-file=${join(dumps, 'cg.%p')}`,
          process.execPath,
          ...node,
          ...c.args,
        ],
        { cwd: dir, input: INPUT, encoding: 'utf8', stdio: ['pipe', 'pipe', 'ignore'], maxBuffer: 2 ** 30 },
      );
      // Ended at its answer, a process may leave the end of it unwritten to the pipe.
      const same = untilList ? answer.includes('\n') && out.startsWith(answer) : answer === out;
      if (!same) throw new Error(`${c.label} answered other bytes than mcp-run:\n${answer.slice(0, 500)}`);
      counts[i]!.push(totalOf(dumps));
      rmSync(dumps, { recursive: true, force: true });
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const base = median(counts[1]!);
  console.log(`instructions, spawn to exit, every thread (median of ${runs}):`);
  for (const [i, c] of contenders.entries()) {
    const n = median(counts[i]!);
    console.log(`  ${c.label.padEnd(40)} ${(n / 1e6).toFixed(1).padStart(8)} M  ${(n / base).toFixed(2)}×`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** The instructions of every dump in `dumps` (one per process; a summary line each). */
function totalOf(dumps: string): number {
  let total = 0;
  for (const file of readdirSync(dumps)) {
    const found = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dumps, file), 'utf8'));
    total += Number(found?.[1] ?? 0);
  }
  return total;
}
