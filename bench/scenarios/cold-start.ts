/**
 * Scenario `cold-start`: from spawning the process to the first answered request on stdio (the
 * `initialize` answer), to the first `tools/list` answer and to the first answered `tools/call`,
 * for 10- and 1,000-tool manifests, against the SDK stdio servers with the same tools, a bare stdio
 * echo (node's own start-up) and a bare node answering the bytes mcp-run answers (captured once).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { manyToolsText, writeManifest } from '../lib/fixtures.js';
import { goal } from '../lib/goals.js';
import { INITIALIZED, initialize, request, toolCall } from '../lib/mcp.js';
import { benchServer, mcpRun } from '../lib/proc.js';
import { fmt, median, times } from '../lib/stats.js';
import { StdioPeer, stdioAnswered } from '../lib/stdio-peer.js';
import type { BenchOptions, Scenario, Table } from '../lib/types.js';

interface Start {
  readonly firstAnswerMs: number;
  readonly firstListMs: number;
  readonly firstCallMs: number;
}

/** What a start answered to `initialize` and `tools/list` (result JSON text), for the bytes ceiling. */
interface Answers {
  initialize?: string;
  'tools/list'?: string;
}

async function coldStart(
  label: string,
  args: readonly string[],
  keep?: Answers,
  canned = false,
): Promise<Start> {
  const peer = new StdioPeer(label, args);
  try {
    // Written at once: the request waits in the pipe until the server reads it.
    const init = await peer.request(initialize(0));
    const firstAnswerMs = performance.now() - peer.spawnedAt;
    if (!init.result) throw new Error(`${label}: ${JSON.stringify(init)}`);
    peer.notify(INITIALIZED);
    const list = await peer.request(request('legacy', 0, 'tools/list'));
    const firstListMs = performance.now() - peer.spawnedAt;
    const tools = (list.result as { tools?: { name: string }[] } | undefined)?.tools;
    // The bare echo answers every request with the same canned result.
    if (!canned && !tools?.some((t) => t.name === 'tool_0'))
      throw new Error(`${label}: ${JSON.stringify(list).slice(0, 300)}`);
    const call = await peer.request(toolCall('legacy', 0, 'tool_0', { q: 'x' }));
    const firstCallMs = performance.now() - peer.spawnedAt;
    if (!stdioAnswered(call)) throw new Error(`${label}: ${JSON.stringify(call)}`);
    if (keep) {
      keep.initialize = JSON.stringify(init.result);
      keep['tools/list'] = JSON.stringify(list.result);
    }
    return { firstAnswerMs, firstListMs, firstCallMs };
  } finally {
    await peer.close();
  }
}

export const coldStartScenario: Scenario = {
  name: 'cold-start',
  title: 'Cold start on stdio',

  async run(options: BenchOptions, work: string) {
    const sizes = options.smoke ? [10, 50] : [10, 1000];
    const tables: Table[] = [];
    const raw: Record<number, Record<string, Start[]>> = {};
    const goalPoints: [string, number][] = [];
    // Contenders 0 (mcp-run), 1 (SDK v1) and 3 (bare echo): the medians' ratios, per size.
    const ratios: { vsSdkV1: number; vsBare: number; listVsBytes: number }[] = [];
    for (const n of sizes) {
      const manifest = writeManifest(work, `tools-${n}.yaml`, manyToolsText(n));
      // mcp-run's own answers, for a bare node that answers the same bytes.
      const answers: Answers = {};
      await coldStart('mcp-run (capture)', mcpRun(manifest, []), answers);
      const answersFile = join(work, `answers-${n}.json`);
      writeFileSync(answersFile, JSON.stringify(answers));
      const contenders = [
        { label: 'mcp-run (watching, the default)', args: mcpRun(manifest, [], options.profileDir) },
        {
          label: 'SDK v1 (StdioServerTransport)',
          args: benchServer('sdk-v1-stdio.mjs', ['--many', String(n)]),
        },
        { label: 'SDK v2 (serveStdio)', args: benchServer('sdk-v2-stdio.mjs', ['--many', String(n)]) },
        { label: 'bare stdio echo (node start-up)', args: benchServer('bare-stdio.mjs', []), canned: true },
        {
          label: 'bare node answering mcp-run’s bytes',
          args: benchServer('bare-stdio-bytes.mjs', [answersFile]),
        },
      ];
      const runs: Start[][] = contenders.map(() => []);
      // One discarded start each (file cache), then runs interleaved A, B, C, A, B, C…
      if (!options.smoke) for (const c of contenders) await coldStart(c.label, c.args, undefined, c.canned);
      for (let run = 0; run < options.runs; run++) {
        for (const [i, c] of contenders.entries())
          runs[i]!.push(await coldStart(c.label, c.args, undefined, c.canned));
        console.error(`  cold-start: ${n} tools, run ${run + 1}/${options.runs}`);
      }
      raw[n] = Object.fromEntries(contenders.map((c, i) => [c.label, runs[i]!]));
      const row = (i: number) => {
        const first = runs[i]!.map((r) => r.firstAnswerMs);
        const call = runs[i]!.map((r) => r.firstCallMs);
        const list = runs[i]!.map((r) => r.firstListMs);
        return { first: median(first), worst: Math.max(...first), list: median(list), call: median(call) };
      };
      tables.push({
        caption: `${n.toLocaleString('en-US')} tools (median of ${options.runs} starts; the bare servers have no tools: their answers are canned)`,
        columns: [
          'server',
          'spawn → first answer, ms',
          'worst, ms',
          'spawn → first tools/list answer, ms',
          'spawn → first tools/call answer, ms',
        ],
        rows: contenders.map((c, i) => {
          const r = row(i);
          return [c.label, fmt(r.first), fmt(r.worst), fmt(r.list), fmt(r.call)];
        }),
      });
      goalPoints.push([`${n.toLocaleString('en-US')} tools`, row(0).first]);
      ratios.push({
        vsSdkV1: row(0).first / row(1).first,
        vsBare: row(0).first / row(3).first,
        listVsBytes: row(0).list / row(4).list,
      });
    }
    return {
      name: this.name,
      title: this.title,
      setup: [
        'Each start: spawn `node <server>` with piped stdio, write `initialize` at once, time its answer (the first answered request), then send `notifications/initialized`, a `tools/list` and a `tools/call` of `tool_0` and time their answers; then close stdin.',
        '`bare node answering mcp-run’s bytes` (bench/servers/bare-stdio-bytes.mjs) answers `initialize` and `tools/list` with the result text mcp-run answered them with (captured by one start first), after the request’s id: the same bytes, with no MCP work.',
        'Tools: `tool_0` … `tool_<n-1>`, one string argument each (mcp-run: `content` tools in a generated YAML manifest; SDKs: `registerTool` with zod schemas built in a loop, which spares them reading a file).',
        'One discarded start per contender first; then starts interleaved across contenders.',
      ],
      tables,
      goals: [
        goal(
          'Cold start, spawn → first answer, vs a hand-written SDK v1 stdio server',
          '≤ 1.2× (10 tools)',
          [['10 tools', ratios[0]!.vsSdkV1]],
          (v) => v <= 1.2,
          times,
        ),
        goal(
          'Cold start, spawn → first answer, vs a bare node stdio echo',
          '≤ 1.2× (10 tools)',
          [['10 tools', ratios[0]!.vsBare]],
          (v) => v <= 1.2,
          times,
        ),
        goal(
          'Cold start, spawn → first tools/list answer, vs a bare node answering the same bytes',
          '≤ 1.2× (10 tools)',
          [['10 tools', ratios[0]!.listVsBytes]],
          (v) => v <= 1.2,
          times,
        ),
        goal(
          'Cold start, spawn → first answer, with many tools',
          '≤ 1 s',
          goalPoints.slice(1),
          (v) => v <= 1000,
          (v) => `${fmt(v)} ms`,
        ),
      ],
      raw,
    };
  },
};
