// The build: tsc, then the precompiled manifest validators (precompile-schemas.mjs), then the
// bundled command line (bundle-cli.mjs), the `mcp-run dev` page (bundle-page.mjs) and the MCP Apps
// views (bundle-views.mjs).
// `npm run build` always builds; `--if-stale` (what `prepare`, `npm start` and `npm test` run)
// builds only when dist/ was not built from these inputs,
// so `npm ci` builds once and a later start serves at once instead of rebuilding (about 35 s here).
//
// Fresh means: dist/.build-stamp holds the hash of every input the build reads (src/ and web/, these four
// scripts, tsconfig.json, the lockfile, which pins the bundled packages) and of the Node that built
// it (the V8 code caches the build writes are taken only by the same Node). A hash, not mtimes: a
// checkout, a copy or a switch of branch can leave older mtimes on newer files.
//
// `--check` builds nothing: it exits 0 when dist/ is fresh, 1 when a build is due.
//
// Nothing is written on stdout, and the steps' own stdout goes to stderr: `npm start --silent` is a
// server a client can be wired to, and its stdout must carry JSON-RPC only, even when it builds.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = join(ROOT, 'dist/.build-stamp');
const FOLDERS = ['src', 'web'];
const INPUTS = [
  ...FOLDERS,
  'scripts/build.mjs',
  'scripts/precompile-schemas.mjs',
  'scripts/bundle-cli.mjs',
  'scripts/bundle-page.mjs',
  'scripts/bundle-views.mjs',
  'scripts/zod-english.mjs',
  'tsconfig.json',
  'package-lock.json',
];

function inputsHash() {
  const hash = createHash('sha256').update(`${process.version} ${process.arch}\n`);
  for (const input of INPUTS) {
    const path = join(ROOT, input);
    const files = FOLDERS.includes(input)
      ? readdirSync(path, { recursive: true, withFileTypes: true })
      : null;
    const paths = files
      ? files
          .filter((f) => f.isFile())
          .map((f) => join(f.parentPath ?? f.path, f.name))
          .sort()
      : [path];
    for (const file of paths) {
      if (!existsSync(file)) continue;
      hash
        .update(`${file.slice(ROOT.length)}\0`)
        .update(readFileSync(file))
        .update('\0');
    }
  }
  return hash.digest('hex');
}

function run(args) {
  const step = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 2, 2] });
  if (step.status !== 0) process.exit(step.status ?? 1);
}

const ifStale = process.argv.includes('--if-stale');
const check = process.argv.includes('--check');
if (!existsSync(join(ROOT, 'src'))) {
  // The Docker build stage installs before it copies src/ (`npm ci` runs `prepare`): nothing to build yet.
  if (ifStale) process.exit(0);
  console.error('build: there is no src/ folder to build');
  process.exit(1);
}
const hash = inputsHash();
const fresh = existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === hash;
if (check) process.exit(fresh ? 0 : 1);
if (ifStale && fresh) process.exit(0);
if (ifStale) {
  const why = existsSync(STAMP) ? 'the sources changed since the last build' : 'the first build';
  console.error(`mcp-run: building dist/ (${why})…`);
}

// A build stopped half-way must not look fresh.
rmSync(STAMP, { force: true });
const require = createRequire(import.meta.url);
run([join(dirname(require.resolve('typescript/package.json')), 'bin/tsc'), '-p', 'tsconfig.json']);
run(['scripts/precompile-schemas.mjs']);
run(['scripts/bundle-cli.mjs']);
run(['scripts/bundle-page.mjs']);
run(['scripts/bundle-views.mjs']);
writeFileSync(STAMP, `${hash}\n`);
