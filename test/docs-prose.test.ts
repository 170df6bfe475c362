/**
 * What a newcomer reads: no paragraph of the docs that starts in the middle of a sentence (an edit
 * that cut a bullet's first words), and every environment variable the tests and benchmarks read
 * named in docs/testing.md.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const REPO = join(import.meta.dirname, '..');
const read = (file: string) => readFileSync(join(REPO, file), 'utf8');

/** The repository's files under `dir` whose names match, as paths from the repository. */
const filesUnder = (dir: string, name: RegExp) =>
  readdirSync(join(REPO, dir), { recursive: true })
    .map(String)
    .filter((f) => name.test(f) && !/node_modules|fixtures/.test(f))
    .map((f) => join(dir, f));

test('no paragraph of the docs starts mid-sentence', () => {
  const cut: string[] = [];
  for (const file of ['README.md', ...filesUnder('docs', /\.md$/)]) {
    let fenced = false;
    let previous = '';
    read(file)
      .split('\n')
      .forEach((line, i) => {
        if (line.trimStart().startsWith('```')) fenced = !fenced;
        else if (!fenced && previous.trim() === '' && /^\s*[:;,.)]/.test(line)) cut.push(`${file}:${i + 1}`);
        previous = line;
      });
  }
  assert.deepEqual(cut, []);
});

test('docs/testing.md names every environment variable the tests and benchmarks read', () => {
  const names = new Set<string>();
  for (const file of [...filesUnder('test', /\.(ts|mjs)$/), ...filesUnder('bench', /\.(ts|mjs)$/)]) {
    for (const m of read(file).matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g))
      names.add((m[1] ?? m[2])!);
  }
  // Sanity: the scan finds what it is for.
  assert.ok(names.has('MCP_RUN_TEST_POSTGRES_URL'), [...names].join(', '));
  const doc = read('docs/testing.md');
  const missing = [...names].filter((name) => !new RegExp(`\\b${name}\\b`).test(doc)).sort();
  assert.deepEqual(missing, []);
});

test("the manifest reference says a prompt's kind may be left out, and what it then is", () => {
  const prompts = read('docs/manifest.md').split('\n## prompts\n')[1]?.split('\n### ')[0] ?? '';
  assert.match(prompts, /`kind`: it defaults to `template`/);
});
