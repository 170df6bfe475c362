// Build step: bundles the `mcp-run dev` playground (web/, Preact) with esbuild into static files
// under dist/dev/page/: index.html, app.js (one classic script, minified), app.css and view-frame.html. Nothing is
// fetched from anywhere at run time: the page works offline. src/dev/playground.ts serves them.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { zodEnglishOnly } from './zod-english.mjs';

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
  plugins: [zodEnglishOnly],
});
copyFileSync(join(ROOT, 'web/index.html'), join(OUT, 'index.html'));
copyFileSync(join(ROOT, 'web/app.css'), join(OUT, 'app.css'));
// The frame a tool's MCP Apps view is written into (web/app-view.tsx), served with a CSP of its own.
copyFileSync(join(ROOT, 'web/view-frame.html'), join(OUT, 'view-frame.html'));
