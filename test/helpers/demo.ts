/**
 * Test helpers shared by the end-to-end suites: the built CLI, and private copies of the demo so a
 * test never writes into the repository (the demo creates its SQLite file on first run).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const REPO = resolve(import.meta.dirname, '../..');
export const CLI = join(REPO, 'dist/cli/bin.cjs');

/** A temp folder holding mcp.yaml (the demo manifest) and the demo's data; removed by `cleanup`. */
export function demoCopy(): { dir: string; manifest: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-demo-'));
  cpSync(join(REPO, 'recipes/shop'), join(dir, 'recipes/shop'), {
    recursive: true,
    filter: (src) => !src.endsWith('.db'),
  });
  cpSync(join(REPO, 'mcp.yaml.example'), join(dir, 'mcp.yaml'));
  return {
    dir,
    manifest: join(dir, 'mcp.yaml'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A temp folder with the given files (path → content); removed by `cleanup`. */
export function tempFiles(files: Record<string, string>): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-test-'));
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The files `npm pack` would put in the package (what a user installs), relative to the repository. */
export function packedFiles(): string[] {
  const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: REPO,
    encoding: 'utf8',
  });
  assert.equal(pack.status, 0, pack.stderr);
  return (JSON.parse(pack.stdout) as [{ files: { path: string }[] }])[0].files.map((f) => f.path);
}
