/**
 * `tsx bench/memory.ts [n…]` (after `npm run build`): RSS and heap of a process that has loaded a
 * generated manifest of n tools (bench/lib/fixtures.ts, manyToolsText) and nothing else, after a
 * full GC, each n in a fresh node process. Default n: 1,000 and 10,000. Goal: ≤ 150 MB at 10,000.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { manyToolsText, writeManifest } from './lib/fixtures.js';

const DIST = resolve(import.meta.dirname, '../dist/index.js');

const CHILD = `
const { loadCatalog, builtinKinds, StderrLogger } = await import(process.argv[1]);
const { catalog } = await loadCatalog(process.argv[2], builtinKinds(), new StderrLogger('error'));
for (let i = 0; i < 4; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 20)); }
const m = process.memoryUsage();
console.log(JSON.stringify({ tools: catalog.tools.size, rssMb: m.rss / 2 ** 20, heapMb: m.heapUsed / 2 ** 20 }));
await catalog.dispose();
`;

const sizes = process.argv.slice(2).map(Number);
const dir = mkdtempSync(join(tmpdir(), 'mcp-run-memory-'));
try {
  for (const n of sizes.length > 0 ? sizes : [1000, 10_000]) {
    const manifest = writeManifest(dir, `tools-${n}.yaml`, manyToolsText(n));
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--input-type=module', '-e', CHILD, DIST, manifest],
      { encoding: 'utf8' },
    );
    const r = JSON.parse(out) as { tools: number; rssMb: number; heapMb: number };
    console.log(
      `${n} tools: RSS ${r.rssMb.toFixed(1)} MB, heap ${r.heapMb.toFixed(1)} MB (${r.tools} loaded)`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
