/**
 * `mcp-run init --recipe` as a user runs it (the built CLI): the recipe's README comes along (beside
 * a README already there, never over it), and the variables it prints as needed are exactly those
 * validate reports missing: set them and validate passes. `--recipe` alone lists every recipe with
 * what it needs (read from its manifest), which recipes/README.md shows too; the README's "From
 * zero" recipe needs nothing, and its commands work as written, offline.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { describeRecipe, OFFLINE } from '../../src/cli/recipes.js';
import { REPO, tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';

/** No variable of the test's own environment leaks in: only what node needs. */
const BARE = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
const RECIPES = readdirSync(join(REPO, 'recipes')).filter((r) =>
  existsSync(join(REPO, 'recipes', r, 'mcp.yaml')),
);

const needed = (stdout: string): string[] =>
  /Set before mcp-run validate passes \(the manifest reads them\): (.*)\.\n/.exec(stdout)?.[1]?.split(', ') ??
  [];

describe('init --recipe', () => {
  test('copies the README and names the variables to set; with them set, validate passes', () => {
    const t = tempFiles({});
    try {
      const run = runCli(['init', '--recipe', 'rest-api', '--dir', t.dir], { env: BARE });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(
        readFileSync(join(t.dir, 'README.md'), 'utf8'),
        readFileSync(join(REPO, 'recipes/rest-api/README.md'), 'utf8'),
      );
      assert.match(run.stdout, /What it does and how to try it: .*README\.md\./);
      assert.deepEqual(needed(run.stdout), ['GITHUB_TOKEN']);
      assert.match(run.stdout, /Optional, with defaults: ISSUES_API_URL\./);
      const manifest = join(t.dir, 'mcp.yaml');
      const without = runCli(['validate', manifest], { env: BARE });
      assert.equal(without.code, 1);
      assert.match(without.stderr, /GITHUB_TOKEN is not set/);
      const withIt = runCli(['validate', manifest], { env: { ...BARE, GITHUB_TOKEN: 'test-token' } });
      assert.equal(withIt.code, 0, withIt.stderr);
    } finally {
      t.cleanup();
    }
  });

  test('a README.md already in the folder stays; the recipe’s goes beside it', () => {
    const t = tempFiles({ 'README.md': '# my project\n' });
    try {
      const run = runCli(['init', '--recipe', 'weather', '--dir', t.dir], { env: BARE });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(readFileSync(join(t.dir, 'README.md'), 'utf8'), '# my project\n');
      assert.ok(existsSync(join(t.dir, 'README.weather.md')));
      assert.match(run.stdout, /README\.weather\.md/);
      assert.deepEqual(needed(run.stdout), []);
    } finally {
      t.cleanup();
    }
  });

  test('for every recipe, the variables named are the ones validate --offline reports missing', () => {
    for (const recipe of RECIPES) {
      const t = tempFiles({});
      try {
        const run = runCli(['init', '--recipe', recipe, '--dir', t.dir], { env: BARE });
        assert.equal(run.code, 0, `${recipe}: ${run.stderr}`);
        const report = JSON.parse(
          runCli(['validate', join(t.dir, 'mcp.yaml'), '--offline', '--json'], { env: BARE }).stdout,
        );
        const missing = [...report.warnings, ...report.errors]
          .filter((d: { code: string }) => ['ENV_MISSING', 'ENV_NEEDED_AT_SERVE'].includes(d.code))
          .map((d: { message: string }) => /variable (\w+)/.exec(d.message)?.[1]);
        assert.deepEqual(needed(run.stdout), [...new Set(missing)].sort(), recipe);
      } finally {
        t.cleanup();
      }
    }
  });

  test('--recipe alone lists every recipe with what it needs; recipes/README.md says the same', () => {
    const run = runCli(['init', '--recipe'], { env: BARE });
    assert.equal(run.code, 0, run.stderr);
    const table = readFileSync(join(REPO, 'recipes/README.md'), 'utf8');
    for (const recipe of RECIPES) {
      const needs = describeRecipe(recipe).needs.join('; ') || OFFLINE;
      const listed = run.stdout.split('\n');
      const at = listed.findIndex((line) => line.startsWith(`  ${recipe} `));
      assert.ok(at > 0, `${recipe} is not listed`);
      assert.equal(listed[at + 1]?.trim(), `needs ${needs}`, recipe);
      const row = table.split('\n').find((line) => line.startsWith(`| [${recipe}](${recipe}/)`));
      assert.ok(row, `recipes/README.md has no row for ${recipe}`);
      assert.equal(row.split('|').at(-2)?.trim(), needs, `recipes/README.md, ${recipe}`);
    }
    assert.deepEqual(describeRecipe('weather').needs, [
      'the internet (geocoding-api.open-meteo.com, api.open-meteo.com)',
    ]);
    assert.deepEqual(describeRecipe('postgres-explorer').needs, ['a PostgreSQL server']);
    assert.deepEqual(describeRecipe('gateway').needs, [
      'npx (@modelcontextprotocol/server-everything, @modelcontextprotocol/server-filesystem)',
      'an OAuth authorization server',
    ]);
  });

  test('the README\'s "From zero" commands run as written, offline, on a recipe that needs nothing', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## From zero'));
    const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
    const commands = block
      .split('\n')
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter((line) => line.startsWith('mcp-run ') && line.includes(' '));
    const recipe = /init --recipe (\S+)/.exec(block)?.[1];
    assert.ok(recipe, 'From zero starts from no recipe');
    assert.deepEqual(describeRecipe(recipe).needs, [], `${recipe} needs something beyond mcp-run`);
    assert.ok(
      commands.some((c) => c.startsWith('mcp-run call ')),
      'From zero calls no tool',
    );
    const t = tempFiles({});
    try {
      for (const command of commands) {
        // No quoting in these commands: a plain split is the shell's.
        const run = runCli(command.split(/\s+/).slice(1), { cwd: t.dir, env: BARE });
        assert.equal(run.code, 0, `${command}: ${run.stderr}`);
        if (command.startsWith('mcp-run call ')) assert.match(run.stdout, /1 row\./, command);
      }
    } finally {
      t.cleanup();
    }
  });
});
