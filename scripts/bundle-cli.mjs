// Build step after tsc and the precompiled validators: bundles the command line (src/cli/main.ts) with
// esbuild into dist/cli/main.js and its chunks beside it (dist/cli/chunk-*.js), replacing the
// main.js that tsc wrote. Why: a client starts `mcp-run mcp.yaml` for every session, and resolving,
// reading and compiling ~190 separate modules was most of the start-up above node's own; one file
// per lazily loaded part costs a fraction of that. The rest of dist/ stays tsc's, module by module:
// the library API (dist/index.js), the SQLite worker process and the tests use it.
//
// Bundled: our own modules, and the few small packages every start needs (BUNDLED). Every other
// package stays an import of node_modules: native ones (better-sqlite3), ones loaded on use (pg,
// mysql2, ioredis, jose, undici, ajv, yaml, handlebars, the metrics and tracing ones), and ones a
// user may update on their own. Chunks sit one folder below dist/, as tsc's modules do, so a path
// resolved from a module's URL (util/build-root.ts) is the same in both layouts.
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist/cli');
const BUNDLED = new Set(['commander', 'chokidar', 'readdirp', 'js-yaml']);

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

for (const file of readdirSync(OUT)) if (file.startsWith('chunk-')) rmSync(join(OUT, file));

await build({
  entryPoints: [join(ROOT, 'src/cli/main.ts')],
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunk-[hash]',
  allowOverwrite: true,
  sourcemap: true,
  logLevel: 'warning',
  // The bundled CommonJS packages (commander) require node's modules: give them a real require.
  banner: {
    js: "import { createRequire as __mcpRunRequire } from 'node:module';\nconst require = __mcpRunRequire(import.meta.url);",
  },
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
