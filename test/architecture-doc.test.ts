/**
 * docs/architecture.md is the map engineers read the code by: every file and folder it names must
 * exist, so a move or a rename that forgets the map fails here, and every import rule of
 * .dependency-cruiser.cjs must be listed in its table of rules, and only those.
 *
 * The page names files relative to the repository, to src/, or, inside a room's paragraph, by the
 * end of their path (`oauth/verifier.ts`, `reply.ts`): a name is found when some file of the
 * repository's source folders ends with it.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { REPO } from './helpers/demo.js';

const DOC = readFileSync(join(REPO, 'docs/architecture.md'), 'utf8');
const FOLDERS = ['src', 'scripts', 'web', 'docs', 'schemas', 'recipes', 'test'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return [`${relative(REPO, path)}/`, ...filesUnder(path)];
    return [relative(REPO, path)];
  });
}

const KNOWN = FOLDERS.flatMap((folder) => filesUnder(join(REPO, folder)));

/** Backticked names that look like a path of this repository: a file with an extension, or a folder. */
function namedPaths(text: string): string[] {
  const names = [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1] as string);
  return names.filter(
    (name) =>
      !/[<>*:{}$]/.test(name) &&
      !name.startsWith('-') &&
      // What the build writes is not in a fresh clone.
      !name.startsWith('dist/') &&
      (/\.(ts|cts|tsx|mjs|cjs|md|json)$/.test(name) || /^[a-z][\w-]*(\/[\w.-]+)*\/$/.test(name)),
  );
}

function exists(name: string): boolean {
  if (existsSync(join(REPO, name)) || existsSync(join(REPO, 'src', name))) return true;
  return KNOWN.some((path) => path === name || path.endsWith(`/${name}`));
}

test('every file and folder docs/architecture.md names exists', () => {
  const named = namedPaths(DOC);
  assert.ok(named.length > 100, `expected the map to name many files, found ${named.length}`);
  const missing = [...new Set(named.filter((name) => !exists(name)))];
  assert.deepEqual(missing, [], `docs/architecture.md names paths that do not exist: ${missing.join(', ')}`);
});

test('docs/architecture.md lists every rule of .dependency-cruiser.cjs, and only those', () => {
  const config = createRequire(import.meta.url)(join(REPO, '.dependency-cruiser.cjs')) as {
    forbidden: { name: string }[];
  };
  const rules = config.forbidden.map((rule) => rule.name).sort();
  const start = DOC.indexOf('| Rule |');
  assert.ok(start >= 0, 'docs/architecture.md has no table of rules (a header "| Rule |")');
  const rows = DOC.slice(start).split('\n');
  const table = rows
    .slice(
      0,
      rows.findIndex((line) => !line.startsWith('|')),
    )
    .join('\n');
  const listed = [...table.matchAll(/^\| (.+?) \|/gm)]
    .flatMap((m) => [...(m[1] as string).matchAll(/`([a-z-]+)`/g)].map((n) => n[1] as string))
    .sort();
  assert.deepEqual(listed, rules);
});
