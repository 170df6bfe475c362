/**
 * The GitHub REST description, for the `import` scenario: the real document, as the npm package
 * `@octokit/openapi` ships it (GitHub's own description, from github/rest-api-description, with
 * Octokit's `x-octokit` extension). It is 13 MB of JSON in a 29 MB package that nothing else needs,
 * so it is no dependency: the first run fetches the pinned version with `npm pack` from the npm
 * registry and keeps the one file under node_modules/.cache. `MCP_RUN_BENCH_GITHUB_OPENAPI=<file>`
 * names a copy of its own instead.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './proc.js';

export const GITHUB_PACKAGE = '@octokit/openapi@23.0.2';
const FILE = 'package/generated/api.github.com.json';

/** The path of the GitHub REST description (JSON), fetched on first use. */
export function githubDescription(): string {
  const own = process.env.MCP_RUN_BENCH_GITHUB_OPENAPI;
  if (own) return own;
  const dir = join(REPO, 'node_modules/.cache/mcp-run-bench', GITHUB_PACKAGE.replace(/\W+/g, '-'));
  const file = join(dir, FILE);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const pack = spawnSync('npm', ['pack', GITHUB_PACKAGE, '--pack-destination', dir, '--silent'], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  const tarball = pack.stdout?.trim().split('\n').at(-1);
  if (pack.status !== 0 || !tarball) {
    throw new Error(
      `cannot fetch ${GITHUB_PACKAGE} with npm pack (${pack.error?.message ?? pack.stderr?.trim()}); set MCP_RUN_BENCH_GITHUB_OPENAPI to a copy of api.github.com.json`,
    );
  }
  const untar = spawnSync('tar', ['-xzf', join(dir, tarball), '-C', dir, FILE], { encoding: 'utf8' });
  rmSync(join(dir, tarball), { force: true });
  if (untar.status !== 0 || !existsSync(file)) {
    throw new Error(`cannot unpack ${FILE} from ${tarball}: ${untar.stderr?.trim()}`);
  }
  return file;
}
