// Build step: bundles the `mcp-run dev` playground (web/, Preact) with esbuild into static files
// under dist/dev/page/: index.html, app.js (one classic script, minified) and app.css. Nothing is
// fetched from anywhere at run time: the page works offline. src/dev/playground.ts serves them.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist/dev/page');
mkdirSync(OUT, { recursive: true });

await build({
  entryPoints: [join(ROOT, 'web/main.tsx')],
  outfile: join(OUT, 'app.js'),
  bundle: true,
  // A classic script, not a module: it runs before the load event, so the first paint lists the catalog.
  format: 'iife',
  platform: 'browser',
  target: ['chrome110', 'firefox110', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
  tsconfig: join(ROOT, 'web/tsconfig.json'),
});
copyFileSync(join(ROOT, 'web/index.html'), join(OUT, 'index.html'));
copyFileSync(join(ROOT, 'web/app.css'), join(OUT, 'app.css'));
