// Build step: bundles the built-in MCP Apps views (web/views/) with esbuild into self-contained
// pages under dist/views/: the script and the styles inline, nothing fetched at run time (a host's
// default CSP allows no network). view.html holds table, card and chart (Preact and ext-apps' App);
// chart-vega.html holds Vega-Lite with Vega's interpreter, a page of its own for its size.
// src/catalog/views.ts serves them as each tool's ui:// resource, writing the tool's settings where
// the marker is. Their sizes go into dist/views/sizes.json (docs/apps.md publishes them).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { zodEnglishOnly } from './zod-english.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist/views');
mkdirSync(OUT, { recursive: true });
const PAGES = { 'view.html': 'web/views/main.tsx', 'chart-vega.html': 'web/views/vega-main.ts' };

const css = readFileSync(join(ROOT, 'web/views/views.css'), 'utf8');
const template = readFileSync(join(ROOT, 'web/views/view.html'), 'utf8');
const sizes = {};
for (const [name, entry] of Object.entries(PAGES)) {
  const bundled = await build({
    plugins: [zodEnglishOnly],
    entryPoints: [join(ROOT, entry)],
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
  // Split and joined, not replaced: a `$&` in the code must stay as it is.
  const page = template.split('/*mcp-run:css*/').join(css).split('/*mcp-run:js*/').join(js);
  writeFileSync(join(OUT, name), page);
  sizes[name] = { bytes: Buffer.byteLength(page), gzip: gzipSync(page).length };
}
writeFileSync(join(OUT, 'sizes.json'), `${JSON.stringify(sizes, null, 2)}\n`);
