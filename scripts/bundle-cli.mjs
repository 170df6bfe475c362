// Build step after tsc and the precompiled validators: bundles the command line (src/cli/run.ts)
// with esbuild into one CommonJS file, dist/cli/mcp-run.cjs, and writes V8's code cache of it
// beside it (dist/cli/mcp-run.cjs.v8-cache). tsc's dist/cli/bin.cjs, the `mcp-run` entry, runs the
// bundle (src/cli/bin.cts says how). Why: a client starts `mcp-run mcp.yaml` for every session, and
// resolving, reading and compiling ~200 separate modules was most of the start-up above node's own.
// One file costs one read; its code cache, or on Node 22.1+ node's own compile cache, spares V8
// compiling it. The parts loaded on use stay so: esbuild wraps each module in a function that runs
// on its first import, so a module's code is not run, nor compiled, until a manifest needs it. The
// rest of dist/ stays tsc's, module by module: the library API (dist/index.js), the SQLite worker
// process and the tests use it.
//
// Bundled: our own modules, and the few small packages every start needs (BUNDLED). Every other
// package stays a require or import of node_modules: native ones (better-sqlite3), ones loaded on use
// (pg, mysql2, ioredis, jose, undici, ajv, yaml, handlebars, the metrics and tracing ones), and ones a
// user may update on their own. The bundle sits one folder below dist/, as tsc's modules do, so a
// path resolved from a module's URL (util/build-root.ts) is the same in both layouts.
//
// The code cache is made by a start of the built command line (the same flags as every start, which
// V8 requires), serving a small manifest over stdio through the common requests, so that it holds
// the functions a start compiles and not only the bundle's top level.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { asciiSource } from '../dist/util/ascii-source.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist/cli');
const BUNDLE = join(OUT, 'mcp-run.cjs');
const BUNDLED = new Set(['commander', 'chokidar', 'readdirp', 'js-yaml']);

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

// The chunks of the earlier, ESM layout.
for (const file of readdirSync(OUT)) if (file.startsWith('chunk-')) rmSync(join(OUT, file));

await build({
  // Module names in the bundle are relative to the checkout, whatever folder the build ran from.
  absWorkingDir: ROOT,
  entryPoints: [join(ROOT, 'src/cli/run.ts')],
  outfile: BUNDLE,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  allowOverwrite: true,
  sourcemap: true,
  // Without the indentation, the comments and the long local names the bundle is 0.7 MB instead of
  // 1.3: every start reads it, copies it into a string and hands it to V8, and V8 reads each name
  // in the bundle's one large scope out of the code cache. About 5 ms of CPU less per start.
  // Property names and error names stay (every error class of src/ sets its own); a stack trace
  // names the short local names, which `node --enable-source-maps` maps back to src/ through the
  // source map beside the bundle. Lines stay short, so that the line node prints under an uncaught
  // error is one line of code.
  minifyWhitespace: true,
  minifyIdentifiers: true,
  lineLimit: 120,
  logLevel: 'warning',
  // Every module's import.meta.url is the bundle's own (it sits where tsc's modules of cli/ do).
  // Its import() calls go through __mcpRunImport (below).
  banner: {
    js: [
      "const __mcpRunUrl = require('node:url').pathToFileURL(__filename).href;",
      "const __mcpRunImport = typeof __hostImport === 'function' ? __hostImport : (specifier) => import(specifier);",
    ].join('\n'),
  },
  define: { 'import.meta.url': '__mcpRunUrl' },
  // sqlite/pool.ts calls import.meta.resolve only when it runs from src/ (a .ts URL), never here.
  logOverride: { 'empty-import-meta': 'silent' },
  plugins: [
    {
      name: 'external-packages',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) => {
          if (args.path.startsWith('node:')) return { external: true };
          return BUNDLED.has(packageOf(args.path)) ? undefined : { path: args.path, external: true };
        });
      },
    },
  ],
});

// The packages the bundle imports on use (pg, jose, undici, …) are imported through the function
// src/util/code-cache.ts hands it: on Node 20, an import() in code that came from a code cache has
// no dynamic-import callback. Only the calls esbuild kept, `import("<package>")`, are rewritten.
const text = readFileSync(BUNDLE, 'utf8');
const rewritten = text.replace(/(?<![\w$.])import\((?="[^"]+"\))/g, '__mcpRunImport(');
if (
  /(?<![\w$.])import\(/.test(
    // Left: the arrows that are that function (the banner's, util/code-cache.cts's).
    rewritten.replace(/^\s*\/\/.*$/gm, '').replace(/\(?([\w$]+)\)? ?=> ?import\(\1\)/g, ''),
  )
) {
  throw new Error(`${BUNDLE}: an import() the build does not rewrite; see scripts/bundle-cli.mjs`);
}
// Printable ASCII only (src/util/ascii-source.ts says why).
writeFileSync(BUNDLE, asciiSource(rewritten));

const work = mkdtempSync(join(tmpdir(), 'mcp-run-code-cache-'));
try {
  const manifest = join(work, 'mcp.yaml');
  writeFileSync(
    manifest,
    [
      'server: { name: code-cache, version: 1.0.0 }',
      'tools:',
      '  greet:',
      '    kind: content',
      '    description: Greets someone.',
      '    input: { name: { type: string, description: Who } }',
      '    content: [{ text: "Hello, {{name}}!" }]',
      'prompts:',
      '  review:',
      '    description: Reviews a text.',
      '    arguments: { text: { required: true } }',
      '    messages: [{ text: "Review {{text}}." }]',
      '',
    ].join('\n'),
  );
  const requests = [
    {
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'build', version: '1' },
      },
    },
    { method: 'notifications/initialized' },
    { id: 1, method: 'tools/list' },
    { id: 2, method: 'tools/call', params: { name: 'greet', arguments: { name: 'Ada' } } },
    { id: 3, method: 'prompts/list' },
    { id: 4, method: 'prompts/get', params: { name: 'review', arguments: { text: 'this' } } },
  ];
  const input = requests.map((r) => `${JSON.stringify({ jsonrpc: '2.0', ...r })}\n`).join('');
  const start = spawnSync(process.execPath, [join(OUT, 'bin.cjs'), manifest], {
    input,
    encoding: 'utf8',
    env: { ...process.env, MCP_RUN_BUILD_CODE_CACHE: '1' },
    timeout: 60_000,
  });
  const answers = start.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  if (start.status !== 0 || answers.length !== 5 || answers.some((a) => a.error)) {
    throw new Error(
      `the build's start of the command line failed (${start.status}):\n${start.stdout}\n${start.stderr}`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
