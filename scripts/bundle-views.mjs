// Build step: bundles the built-in MCP Apps views (web/views/, Preact and ext-apps' App) with esbuild
// into one self-contained page, dist/views/view.html: the script and the styles inline, nothing
// fetched at run time (a host's default CSP allows no network). src/catalog/views.ts serves it as
// each tool's ui:// resource, writing the tool's settings where the marker is. Prints each size.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { zodEnglishOnly } from './zod-english.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist/views');
mkdirSync(OUT, { recursive: true });

const bundled = await build({
  plugins: [zodEnglishOnly],
  entryPoints: [join(ROOT, 'web/views/main.tsx')],
  write: false,
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['chrome110', 'firefox110', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  tsconfig: join(ROOT, 'web/tsconfig.json'),
});
// Inline in a <script>: a `</script` inside a string would end it; `<\/script` means the same in JS.
const js = bundled.outputFiles[0].text.replace(/<\/(script)/gi, '<\\/$1');
const css = readFileSync(join(ROOT, 'web/views/views.css'), 'utf8');
const page = readFileSync(join(ROOT, 'web/views/view.html'), 'utf8')
  .split('/*mcp-run:css*/')
  .join(css)
  .split('/*mcp-run:js*/')
  .join(js);
writeFileSync(join(OUT, 'view.html'), page);
const bytes = Buffer.byteLength(page);
writeFileSync(
  join(OUT, 'sizes.json'),
  `${JSON.stringify({ 'view.html': { bytes, gzip: gzipSync(page).length } }, null, 2)}\n`,
);
