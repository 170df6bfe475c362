/**
 * `npx tsx bench/profile.ts <file.cpuprofile | folder>… [--top n]`: prints the top self-time
 * functions of CPU profiles, e.g. those `npm run bench -- http --profile` writes for the mcp-run
 * processes. Locations in dist/ are mapped back to src/ through the source maps.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { formatHotSpots } from './lib/profile.js';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 20;
const paths = args.filter((_, i) => topAt < 0 || (i !== topAt && i !== topAt + 1));
if (paths.length === 0) {
  console.error('usage: npx tsx bench/profile.ts <file.cpuprofile | folder>… [--top n]');
  process.exit(2);
}
for (const path of paths) {
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => join(path, f))
    : [path];
  for (const file of files) console.log(`${formatHotSpots(file, top)}\n`);
}
