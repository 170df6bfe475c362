import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileGlob } from '../../../src/kinds/files/glob.js';

const cases: [pattern: string, path: string, matches: boolean][] = [
  ['**/*', 'a.md', true],
  ['**/*', 'docs/deep/a.md', true],
  ['*.md', 'a.md', true],
  ['*.md', 'docs/a.md', false],
  ['*.md', 'a.mdx', false],
  ['**/*.md', 'a.md', true],
  ['**/*.md', 'x/y/z/a.md', true],
  ['docs/**', 'docs/a', true],
  ['docs/**', 'docs/a/b.txt', true],
  ['docs/**', 'other/a', false],
  ['a/**/b.txt', 'a/b.txt', true],
  ['a/**/b.txt', 'a/x/y/b.txt', true],
  ['a/**/b.txt', 'a/x/y/c.txt', false],
  ['?.txt', 'a.txt', true],
  ['?.txt', 'ab.txt', false],
  ['?.txt', '/.txt', false],
  ['*.{md,txt}', 'a.txt', true],
  ['*.{md,txt}', 'a.md', true],
  ['*.{md,txt}', 'a.csv', false],
  ['{docs,notes}/*.{md,txt}', 'notes/a.md', true],
  ['{docs,notes}/*.{md,txt}', 'other/a.md', false],
  ['{a,b{1,2}}.txt', 'b2.txt', true],
  ['{a,b{1,2}}.txt', 'b3.txt', false],
  ['{src/*.ts,README.md}', 'src/x.ts', true],
  ['{src/*.ts,README.md}', 'README.md', true],
  // Regex characters are literal.
  ['a+b(1).txt', 'a+b(1).txt', true],
  ['a.txt', 'abtxt', false],
  // Dotfiles only when the pattern spells the dot.
  ['**/*', '.env', false],
  ['**/*', 'a/.hidden/b.md', false],
  ['*', '.env', false],
  ['.env', '.env', true],
  ['**/.env', 'config/.env', true],
  ['.github/*.yml', '.github/ci.yml', true],
  ['.*', '.env', true],
];

for (const [pattern, path, expected] of cases) {
  test(`glob ${pattern} ${expected ? 'matches' : 'does not match'} ${path}`, () => {
    assert.equal(compileGlob(pattern).matches(path), expected);
  });
}

test('namesDotfiles tells whether dot-folders must be walked', () => {
  assert.equal(compileGlob('**/*.md').namesDotfiles, false);
  assert.equal(compileGlob('.github/**').namesDotfiles, true);
  assert.equal(compileGlob('{docs,.config}/*').namesDotfiles, true);
});

test('malformed globs throw with a reason', () => {
  assert.throws(() => compileGlob('{a,b'), /unbalanced "\{"/);
  assert.throws(() => compileGlob('a}b'), /unbalanced "\}"/);
  assert.throws(() => compileGlob('{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}'), /alternatives/);
});
