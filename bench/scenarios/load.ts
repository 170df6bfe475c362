/**
 * Scenario `load`: `mcp-run validate` (read, parse, validate, compile) of a generated manifest of a
 * few MB, with no YAML aliases and with 1,000 of them. Loading should grow with the document, not
 * with aliases × document (issue 14: 300 aliases in 3.6 MB took 29.6 s, 26 s of them in the alias
 * check), so the figure that matters is the ratio of the two.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { aliasedToolsText, writeManifest } from '../lib/fixtures.js';
import { goal } from '../lib/goals.js';
import { CLI, REPO } from '../lib/proc.js';
import { fmt, median } from '../lib/stats.js';
import type { BenchOptions, Scenario } from '../lib/types.js';

/** Milliseconds of one `mcp-run validate <manifest>`, spawn to exit; throws unless it says valid. */
async function validate(manifest: string): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [CLI, 'validate', manifest], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    out += s;
  });
  child.stderr.setEncoding('utf8').on('data', (s: string) => {
    out += s;
  });
  const [code] = await once(child, 'exit');
  const ms = performance.now() - t0;
  if (code !== 0 || !/is valid/.test(out)) throw new Error(`validate exited ${code}: ${out.slice(0, 500)}`);
  return ms;
}

export const loadScenario: Scenario = {
  name: 'load',
  title: 'Load: `mcp-run validate` of a large manifest, with and without YAML aliases',

  async run(options: BenchOptions, work: string) {
    const tools = options.smoke ? 250 : 5000;
    const aliases = options.smoke ? 100 : 1000;
    const cases = [
      { label: 'no aliases', file: writeManifest(work, 'plain.yaml', aliasedToolsText(tools, 0)) },
      {
        label: `${aliases.toLocaleString('en-US')} aliases`,
        file: writeManifest(work, 'aliased.yaml', aliasedToolsText(tools, aliases)),
      },
    ];
    const runs = Math.max(1, Math.min(options.runs, 5));
    const times: number[][] = cases.map(() => []);
    // One discarded run each (file cache, code cache), then runs interleaved A, B, A, B…
    if (!options.smoke) for (const c of cases) await validate(c.file);
    for (let run = 0; run < runs; run++) {
      for (const [i, c] of cases.entries()) times[i]!.push(await validate(c.file));
      console.error(`  load: run ${run + 1}/${runs}`);
    }
    const ms = times.map((t) => median(t));
    const ratio = ms[1]! / ms[0]!;
    return {
      name: this.name,
      title: this.title,
      setup: [
        `${tools.toLocaleString('en-US')} \`content\` tools, each with a three-property input schema; in the aliased manifest every fifth tool anchors its input (\`&in_<i>\`) and the next four reuse it (\`*in_<i>\`), until ${aliases.toLocaleString('en-US')} aliases.`,
        'Each run spawns `node dist/cli/bin.cjs validate <manifest>` and times spawn → exit; one discarded run per case, then runs interleaved.',
      ],
      tables: [
        {
          caption: `median of ${runs} runs`,
          columns: ['manifest', 'MB', 'validate ms', 'vs no aliases'],
          rows: cases.map((c, i) => [
            c.label,
            fmt(statSync(c.file).size / 2 ** 20),
            fmt(ms[i]!),
            `${fmt(ms[i]! / ms[0]!)}×`,
          ]),
        },
      ],
      goals: [
        goal(
          `Load time with ${aliases.toLocaleString('en-US')} aliases, relative to none`,
          '≤ 1.5× (linear in document size)',
          [['', ratio]],
          (v) => v <= 1.5,
          (v) => `${fmt(v)}×`,
        ),
      ],
      raw: { tools, aliases, times },
    };
  },
};
