/**
 * Import and load of a GitHub-sized API (issue 14's goals), measured on the generated stand-in of
 * test/openapi/big-spec.ts (the GitHub REST description is not in the repository and is not
 * downloaded): `import openapi` time and peak memory, the manifest's size in each form, and
 * `validate` of the result, plus the `--tags issues` import (58 tools). Run:
 * `npm run build && npx tsx bench/import-scale.ts`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bigSpec } from '../test/openapi/big-spec.js';
import { CLI } from './lib/proc.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-run-import-scale-'));
const spec = join(dir, 'github.json');
writeFileSync(spec, JSON.stringify(bigSpec()));
const env = { ...process.env, GITHUB_TOKEN: 'bench' };

/** Seconds and peak RSS (MB) of one CLI run, from GNU time when present, else wall time only. */
function run(args: string[]): { s: number; mb?: number; code: number | null; stderr: string } {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, CLI, ...args], {
    env,
    encoding: 'utf8',
  });
  const s = (performance.now() - t0) / 1000;
  const kb = Number(/(\d+)\s*$/.exec(r.stderr ?? '')?.[1]);
  return { s, ...(Number.isFinite(kb) && { mb: kb / 1024 }), code: r.status, stderr: r.stderr };
}

const mib = (file: string) => (statSync(file).size / 1024 / 1024).toFixed(2);
const rows: string[] = [];
for (const [label, extra] of [
  ['components once (default)', []],
  ['--no-output-schema', ['--no-output-schema']],
  ['--inline-schemas (before)', ['--inline-schemas']],
  ['--tags issues', ['--tags', 'issues']],
] as const) {
  const out = join(dir, `${label.replace(/\W+/g, '-')}.yaml`);
  const imp = run(['import', 'openapi', spec, '-o', out, ...extra]);
  const val = run(['validate', out]);
  rows.push(
    `| ${label} | ${imp.s.toFixed(1)} s, ${imp.mb?.toFixed(0) ?? '?'} MB | ${mib(out)} MiB | ${
      val.code === 0 ? `${val.s.toFixed(1)} s, ${val.mb?.toFixed(0) ?? '?'} MB` : 'refused (over 4 MiB)'
    } |`,
  );
}
process.stdout.write(
  `| import | import (time, peak RSS) | manifest | validate (time, peak RSS) |\n| --- | --- | --- | --- |\n${rows.join('\n')}\n`,
);
rmSync(dir, { recursive: true, force: true });
