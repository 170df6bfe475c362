/**
 * How to add DuckDB to an install of mcp-run that lacks it. `@duckdb/node-api` is an optional peer
 * of mcp-run (package.json): npm does not install it, so a `kind: duckdb` source costs its 70 MB
 * only to those who use it. Node finds it from mcp-run's own files by walking up their folders'
 * `node_modules`, so it must go into the tree mcp-run is in: the project's `node_modules` beside
 * mcp-run, the global `node_modules` (`npm install -g`, which lays packages side by side in
 * `<prefix>/lib/node_modules`), or npx's folder (npx installs every `--package` of one command
 * together). The hint names the form for the layout this copy of mcp-run runs from.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_ROOT } from '../../../util/build-root.js';

export const DUCKDB_PACKAGE = '@duckdb/node-api';

/** `@duckdb/node-api@<range>`, the range mcp-run is tested with (its peerDependencies). */
function packageSpec(root: string): string {
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      peerDependencies?: Record<string, string>;
    };
    const range = pkg.peerDependencies?.[DUCKDB_PACKAGE];
    return range === undefined ? DUCKDB_PACKAGE : `${DUCKDB_PACKAGE}@${range}`;
  } catch {
    return DUCKDB_PACKAGE;
  }
}

/** The command that adds DuckDB where this mcp-run (its package folder `root`) finds it. */
export function duckdbInstallHint(root = fileURLToPath(new URL('../', BUILD_ROOT))): string {
  const spec = packageSpec(root);
  const modules = dirname(root);
  if (basename(modules) !== 'node_modules') {
    // A clone or an unpacked copy: its own node_modules.
    return `install it beside mcp-run: \`npm install ${spec}\` in mcp-run's folder (in a clone of mcp-run, \`npm install\`: it is a devDependency there)`;
  }
  if (root.split(/[\\/]/).includes('_npx')) {
    return `npx installs every --package of one command together: \`npx --package=mcp-run --package=${spec} mcp-run …\` (the same --package you ran mcp-run with, and DuckDB's)`;
  }
  const above = dirname(modules);
  // A global install: <prefix>/lib/node_modules with <prefix>/bin/mcp-run (POSIX), or
  // <prefix>/node_modules with <prefix>/mcp-run.cmd (Windows).
  const prefix =
    basename(above) === 'lib' && existsSync(join(dirname(above), 'bin', 'mcp-run'))
      ? dirname(above)
      : existsSync(join(above, 'mcp-run.cmd'))
        ? above
        : undefined;
  if (prefix !== undefined) {
    return `mcp-run is installed globally: \`npm install --global --prefix ${prefix} ${spec}\` puts DuckDB beside it`;
  }
  return `install it beside mcp-run, in the project that holds it: \`cd ${above} && npm install ${spec}\``;
}
