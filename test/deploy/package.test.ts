/**
 * What a user install gets (`npm pack`, installed with `--omit=dev`: README, "From zero"): the
 * packed file list holds everything the runtime reads (the bundled command line, the precompiled
 * validators, the manifest schema, the recipes `init` copies, the demo and every file it names) and
 * none of the tests, benches or sources; and every package dist/ loads is a runtime dependency, none
 * a devDependency (one would be missing in that install). The install itself, which compiles
 * better-sqlite3 (about two minutes here), is a step of .ci/run: .ci/user-install.mjs.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO } from '../helpers/demo.js';

const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies: Record<string, string>;
};

/** Peers npm does not install: an engine a manifest names, added by whoever uses it. */
const optionalPeers = Object.keys(pkg.peerDependencies ?? {}).filter(
  (name) => pkg.peerDependenciesMeta?.[name]?.optional === true,
);

/** The package a specifier names: `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

// Every way dist/ loads a package: static and dynamic imports, require, the bundle's import hook,
// and the createRequire loaders (`load('ajv')`, `createRequire(import.meta.url)('yaml')`).
const LOADS =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|__mcpRunImport\(\s*|\bload\d*\(\s*|createRequire\)?\([^()]*\)\(\s*)(['"])((?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(?:\/[\w./-]*)?)\1/g;

describe('the package a user installs', () => {
  it('packs what the runtime reads, and no tests, benches or sources', () => {
    const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: REPO,
      encoding: 'utf8',
    });
    assert.equal(pack.status, 0, pack.stderr);
    const files = new Set(
      (JSON.parse(pack.stdout) as [{ files: { path: string }[] }])[0].files.map((f) => f.path),
    );
    const demo = readFileSync(join(REPO, 'mcp.yaml.example'), 'utf8');
    const named = [...demo.matchAll(/^\s+(?:path|seed): \.\/(\S+)/gm)].map((m) => m[1]!);
    assert.ok(named.length >= 3, 'the demo names no files');
    const recipes = readdirSync(join(REPO, 'recipes'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('mcp.yaml'));
    const needed = [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/cli/bin.cjs',
      'dist/cli/main.js',
      'dist/cli/mcp-run.cjs',
      'dist/index.js',
      'dist/kinds/sql/sqlite/worker.js',
      'dist/manifest/precompiled/envelope.cjs',
      'schemas/manifest.schema.json',
      'mcp.yaml.example',
      ...recipes.map((f) => `recipes/${f}`),
    ];
    for (const file of needed) assert.ok(files.has(file), `the package lacks ${file}`);
    for (const path of named) {
      const inPackage = [...files].some((f) => f === path || f.startsWith(`${path}/`));
      // The demo's database is made from its seed on first run: it is not shipped.
      assert.ok(inPackage || path.endsWith('.db'), `the package lacks ${path}, which the demo names`);
    }
    const stray = [...files].filter((f) => /^(test|bench|src|scripts)\//.test(f) || f.endsWith('.db'));
    assert.deepEqual(stray, []);
    // tsc's per-module source maps point at src/, which is not packed, and the page's map is never
    // served; the bundle's map carries its sources (`node --enable-source-maps`). The build's stamp
    // only tells a clone's build whether dist/ is stale.
    const unused = [...files].filter((f) => f.endsWith('.js.map') || f === 'dist/.build-stamp');
    assert.deepEqual(unused, []);
    assert.ok(files.has('dist/cli/mcp-run.cjs.map'));
  });

  it('leaves DuckDB (70 MB) out of the default install: an optional peer, and a devDependency for the tests', () => {
    // optionalDependencies are installed by default; an optional peer is not.
    const installed = { ...pkg.dependencies, ...pkg.optionalDependencies };
    assert.equal(installed['@duckdb/node-api'], undefined, 'DuckDB is installed by default');
    assert.ok(optionalPeers.includes('@duckdb/node-api'), 'DuckDB is not an optional peer');
    assert.equal(pkg.devDependencies['@duckdb/node-api'], pkg.peerDependencies?.['@duckdb/node-api']);
  });

  it('every package dist/ loads is a runtime dependency or an optional peer, none a devDependency', () => {
    const runtime = new Set([
      ...Object.keys(pkg.dependencies),
      ...Object.keys(pkg.optionalDependencies ?? {}),
      ...optionalPeers,
    ]);
    const builtins = new Set(builtinModules);
    const loaded = new Map<string, string>();
    const dist = join(REPO, 'dist');
    for (const file of readdirSync(dist, { recursive: true }).map(String)) {
      if (!/\.(c|m)?js$/.test(file)) continue;
      // Comments name packages in examples (`from 'mcp-run'`): only code counts.
      const code = readFileSync(join(dist, file), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      for (const match of code.matchAll(LOADS)) {
        const name = packageOf(match[2]!);
        if (!builtins.has(name) && !loaded.has(name)) loaded.set(name, file);
      }
    }
    assert.ok(
      loaded.has('better-sqlite3') && loaded.has('yaml') && loaded.has('handlebars'),
      [...loaded.keys()].join(),
    );
    const outside = [...loaded]
      .filter(([name]) => !runtime.has(name))
      .map(([name, file]) => `${name} (dist/${file})`);
    assert.deepEqual(outside, [], 'dist/ loads packages that a --omit=dev install does not have');
  });
});
