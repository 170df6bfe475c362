/**
 * Scenario `import`: the GitHub REST description (bench/lib/github-description.ts), imported and
 * served as a new user would (issue 14's goals): `mcp-run import openapi` of the whole document,
 * `validate` of what it wrote, a stdio server on it from spawn to the first `tools/list` answer,
 * the whole list walked, and one tool called against an upstream on 127.0.0.1; then the
 * `--tags issues` import (58 tools) and its `validate`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { GITHUB_PACKAGE, githubDescription } from '../lib/github-description.js';
import { goal } from '../lib/goals.js';
import { request, toolCall } from '../lib/mcp.js';
import { CLI } from '../lib/proc.js';
import { fmt, median } from '../lib/stats.js';
import { StdioPeer } from '../lib/stdio-peer.js';
import type { BenchOptions, Scenario } from '../lib/types.js';

/** GNU time reports a command's peak RSS; without it the tables leave that column out. */
const GNU_TIME = '/usr/bin/time';
const ZEN = 'Design for failure.';
/** A tool of the GitHub description with no arguments and a plain-text answer. */
const CALLED = 'meta_get_zen';

interface Measure {
  readonly ms: number;
  /** Peak RSS in MB, when GNU time is there to tell. */
  readonly peakMb?: number;
}

interface Ran extends Measure {
  /** What `expect` matched in the command's output. */
  readonly matched: RegExpExecArray;
}

/** One `mcp-run <args>`, spawn to exit; throws unless it exits 0 with `expect` in its output. */
async function cli(
  args: readonly string[],
  expect: RegExp,
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<Ran> {
  const timed = existsSync(GNU_TIME);
  const t0 = performance.now();
  const options = { cwd, env: { ...process.env, ...env } };
  const child = timed
    ? spawn(GNU_TIME, ['-f', 'peak-kb %M', process.execPath, CLI, ...args], options)
    : spawn(process.execPath, [CLI, ...args], options);
  let out = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding('utf8').on('data', (s: string) => {
      out += s;
    });
  }
  const [code] = await once(child, 'exit');
  const ms = performance.now() - t0;
  const matched = expect.exec(out);
  if (code !== 0 || !matched) throw new Error(`mcp-run ${args.join(' ')} exited ${code}: ${out.slice(-500)}`);
  const kb = Number(/peak-kb (\d+)\s*$/.exec(out)?.[1]);
  return { ms, matched, ...(Number.isFinite(kb) && { peakMb: kb / 1024 }) };
}

interface Served {
  readonly firstListMs: number;
  /** The server's peak RSS (VmHWM) right after its first `tools/list` answer, MB. */
  readonly listPeakMb?: number;
  readonly walkMs: number;
  readonly callMs: number;
  readonly tools: number;
  readonly pages: number;
  readonly peakMb?: number;
}

/**
 * A stdio server on `manifest` (its source pointed at `upstream`): spawn → the first `tools/list`
 * answer (after the handshake, as clients do), the rest of the list, then one call of `CALLED`.
 */
async function serve(
  manifest: string,
  upstream: string,
  expectTools: number,
  cacheDir: string,
): Promise<Served> {
  const peer = new StdioPeer('mcp-run', [CLI, manifest], {
    GITHUB_BASE_URL: upstream,
    MCP_RUN_CACHE_DIR: cacheDir,
  });
  try {
    await peer.initialize();
    let page = await peer.request(request('legacy', 0, 'tools/list'));
    const firstListMs = performance.now() - peer.spawnedAt;
    const listPeakMb = peer.memory()?.peakMb;
    const names: string[] = [];
    let pages = 0;
    for (;;) {
      if (!page.result) throw new Error(`tools/list failed: ${JSON.stringify(page).slice(0, 500)}`);
      pages++;
      const { tools, nextCursor } = page.result as { tools: { name: string }[]; nextCursor?: string };
      names.push(...tools.map((t) => t.name));
      if (nextCursor === undefined) break;
      page = await peer.request(request('legacy', 0, 'tools/list', { cursor: nextCursor }));
    }
    const walkMs = performance.now() - peer.spawnedAt - firstListMs;
    if (names.length !== expectTools || !names.includes(CALLED)) {
      throw new Error(`tools/list walked ${names.length} tools, not the ${expectTools} imported`);
    }
    const t0 = performance.now();
    const call = await peer.request(toolCall('legacy', 0, CALLED));
    const callMs = performance.now() - t0;
    const text = (call.result?.content as { text?: string }[] | undefined)?.[0]?.text;
    if (call.result?.isError || text !== ZEN) {
      throw new Error(`${CALLED} answered ${JSON.stringify(call).slice(0, 500)}`);
    }
    const peakMb = peer.memory()?.peakMb;
    return {
      firstListMs,
      walkMs,
      callMs,
      tools: names.length,
      pages,
      ...(listPeakMb && { listPeakMb }),
      ...(peakMb && { peakMb }),
    };
  } finally {
    await peer.close();
  }
}

/** GitHub's `/zen` on 127.0.0.1: the one endpoint the scenario calls. */
async function zenUpstream(): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    const found = req.method === 'GET' && req.url === '/zen';
    res.writeHead(found ? 200 : 404, { 'content-type': 'text/plain' });
    res.end(found ? ZEN : 'not found');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
  };
}

const MIB = 2 ** 20;

export const importScenario: Scenario = {
  name: 'import',
  title: 'Import and serve the GitHub REST description',

  async run(options: BenchOptions, work: string) {
    const spec = githubDescription();
    const full = join(work, 'github.yaml');
    const issues = join(work, 'issues.yaml');
    const lean = join(work, 'github-lean.yaml');
    // The parse cache (docs/install.md) of the scenario's own: `validate` fills it, the server reads it.
    const cacheDir = join(work, 'parse-cache');
    const upstream = await zenUpstream();
    const runs = options.smoke ? 1 : Math.max(1, Math.min(options.runs, 3));
    const steps = {
      import: [] as Measure[],
      validate: [] as Measure[],
      served: [] as Served[],
      servedParsed: [] as Served[],
      issuesImport: [] as Measure[],
      issuesValidate: [] as Measure[],
    };
    let tools = Number.NaN;
    try {
      for (let run = 0; run < runs; run++) {
        const wrote = /Wrote (\d+) tools/;
        steps.import.push(await cli(['import', 'openapi', spec, '-o', full, '--force'], wrote, work));
        const valid = await cli(['validate', full], /is valid: (\d+) tools/, work, {
          MCP_RUN_CACHE_DIR: cacheDir,
        });
        steps.validate.push(valid);
        tools = Number(valid.matched[1]);
        steps.served.push(await serve(full, upstream.url, tools, cacheDir));
        steps.servedParsed.push(await serve(full, upstream.url, tools, 'off'));
        steps.issuesImport.push(
          await cli(['import', 'openapi', spec, '--tags', 'issues', '-o', issues, '--force'], wrote, work),
        );
        steps.issuesValidate.push(await cli(['validate', issues], /is valid: 58 tools/, work));
        console.error(`  import: run ${run + 1}/${runs}`);
      }
      await cli(['import', 'openapi', spec, '--no-output-schema', '-o', lean, '--force'], /Wrote/, work);
    } finally {
      upstream.close();
    }

    /** A step's times and peaks: the CLI runs', or one figure of each stdio server's. */
    const times = (list: readonly Measure[]) => list.map((m) => m.ms);
    const servedTimes = (key: 'firstListMs' | 'walkMs' | 'callMs') => steps.served.map((s) => s[key]);
    const withPeak = existsSync(GNU_TIME);
    const row = (label: string, ms: readonly number[], peaks: readonly Measure[] | readonly Served[]) => {
      const cells = [label, fmt(median(ms)), fmt(Math.max(...ms))];
      return withPeak ? [...cells, fmt(Math.max(...peaks.map((m) => m.peakMb ?? Number.NaN)))] : cells;
    };
    const within = (text: string, seconds: number, ms: readonly number[]) =>
      goal(
        text,
        `≤ ${seconds} s`,
        [['', median(ms)]],
        (v) => v <= seconds * 1000,
        (v) => `${fmt(v / 1000)} s`,
      );
    const pages = steps.served[0]!.pages;
    const mib = (file: string) => fmt(statSync(file).size / MIB);
    const record = (file: string) => join(work, `.mcp-run-import.${file.split('/').at(-1)}.json`);

    return {
      name: this.name,
      title: this.title,
      setup: [
        `Document: \`api.github.com.json\` of \`${GITHUB_PACKAGE}\` on npm (${fmt(statSync(spec).size / MIB)} MiB of JSON, OpenAPI 3.0), fetched once by the bench into node_modules/.cache.`,
        "Each step is a real CLI run, spawn to exit, or a real stdio server (`node dist/cli/bin.cjs github.yaml`) driven by a JSON-RPC client on its pipes: `initialize`, then `tools/list` timed from spawn, then the rest of the pages, then a `tools/call` of `meta_get_zen` answered by a node:http upstream on 127.0.0.1 (`GITHUB_BASE_URL`). Every answer is checked: every imported tool listed, the upstream's text returned.",
        'The server reads the data of the manifest that `validate` parsed and kept (the parse cache of texts of 256 KiB or more, docs/install.md), as every start after the first of an edit does; the row "the first start after an edit" serves with `MCP_RUN_CACHE_DIR=off`, parsing the YAML.',
        `Peak RSS from GNU time for CLI runs, from /proc (VmHWM) for the server after its call; the peak-RSS goal reads VmHWM right after the first \`tools/list\` answer.${withPeak ? '' : ' GNU time is not installed here: no peak column.'}`,
      ],
      tables: [
        {
          caption: `GitHub REST description, ${tools.toLocaleString('en-US')} tools (median of ${runs} run${runs === 1 ? '' : 's'})`,
          columns: withPeak
            ? ['step', 'median ms', 'worst ms', 'peak RSS MB']
            : ['step', 'median ms', 'worst ms'],
          rows: [
            row('`import openapi` (all tags)', times(steps.import), steps.import),
            row('`validate` of that manifest', times(steps.validate), steps.validate),
            row('stdio server: spawn → first `tools/list` answer', servedTimes('firstListMs'), steps.served),
            row(
              'the same, the first start after an edit (parsed: no kept data)',
              steps.servedParsed.map((s) => s.firstListMs),
              steps.servedParsed,
            ),
            row(`stdio server: the rest of the walk (${pages} pages)`, servedTimes('walkMs'), steps.served),
            row(
              'stdio server: `tools/call` of `meta_get_zen` (upstream on 127.0.0.1)',
              servedTimes('callMs'),
              steps.served,
            ),
            row('`import openapi --tags issues` (58 tools)', times(steps.issuesImport), steps.issuesImport),
            row('`validate` of the issues manifest', times(steps.issuesValidate), steps.issuesValidate),
          ],
        },
        {
          caption: 'What the import writes (the load limit is 4 MiB)',
          columns: ['import', 'manifest MB', 'merge record MB'],
          rows: [
            ['default (component schemas once, under `schemas:`)', mib(full), mib(record(full))],
            ['`--no-output-schema`', mib(lean), mib(record(lean))],
            ['`--tags issues`', mib(issues), mib(record(issues))],
          ],
        },
      ],
      goals: [
        within('GitHub REST description: `import openapi` of every operation', 15, times(steps.import)),
        within('GitHub REST description: `validate` of the import', 3, times(steps.validate)),
        within(
          'GitHub REST description: spawn → first stdio `tools/list` answer',
          1,
          servedTimes('firstListMs'),
        ),
        goal(
          'GitHub REST description: stdio server peak RSS at the first `tools/list` answer',
          '≤ 100 MB',
          [['', median(steps.served.map((s) => s.listPeakMb ?? Number.NaN))]],
          (v) => v <= 100,
          (v) => `${fmt(v)} MB`,
        ),
        within('GitHub `--tags issues` import (58 tools): `validate`', 1, times(steps.issuesValidate)),
      ],
      raw: { runs, tools, steps },
    };
  },
};
