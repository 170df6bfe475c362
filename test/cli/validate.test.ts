/**
 * `mcp-run validate` through the built CLI: one pass for structure and compile, warnings in the
 * text and in --json, --strict, --offline with no secret, no database and no file written, and the
 * counts as `list` shows them.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { REPO, tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';

/** Only PATH: no token, no database URL, nothing else a developer's shell might hold. */
const bare: NodeJS.ProcessEnv = { PATH: process.env.PATH };

const files = (dir: string) => readdirSync(dir, { recursive: true }).map(String).sort();

describe('validate --offline', () => {
  for (const recipe of ['postgres-explorer', 'rest-api']) {
    test(`passes recipes/${recipe} with no environment and no database, and writes no file`, () => {
      const dir = join(REPO, 'recipes', recipe);
      const before = files(dir);
      const run = runCli(['validate', '--offline', 'mcp.yaml'], { cwd: dir, env: bare });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /mcp\.yaml is valid offline/);
      assert.match(run.stderr, /warning\[ENV_NEEDED_AT_SERVE\]/);
      assert.deepEqual(files(dir), before);
      // Without --offline the same run fails: the secret is needed.
      const online = runCli(['validate', 'mcp.yaml'], { cwd: dir, env: bare });
      assert.equal(online.code, 1);
      assert.match(online.stderr, /error\[ENV_MISSING\]/);
    });
  }

  const seeded = tempFiles({
    'mcp.yaml': [
      'sources:',
      '  shop: { kind: sqlite, path: ./shop.db, seed: ./seed.sql }',
      'tools:',
      '  count: { kind: sql, source: shop, sql: SELECT count(*) AS n FROM items }',
      '',
    ].join('\n'),
    'seed.sql': 'CREATE TABLE items (id INTEGER PRIMARY KEY);\n',
  });
  after(seeded.cleanup);

  test('opens no database: the SQLite file is not created from its seed', () => {
    const run = runCli(['validate', '--offline', 'mcp.yaml'], { cwd: seeded.dir, env: bare });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /declares 1 tool, 0 resource entries, 0 prompts/);
    assert.equal(existsSync(join(seeded.dir, 'shop.db')), false);
    // Online, validate does open it (and so creates it): the check above can fail.
    const online = runCli(['validate', 'mcp.yaml'], { cwd: seeded.dir, env: bare });
    assert.equal(online.code, 0, online.stderr);
    assert.equal(existsSync(join(seeded.dir, 'shop.db')), true);
  });
});

describe('validate reports', () => {
  const cases = tempFiles({
    'delete.yaml': [
      'sources:',
      '  shop: { kind: sqlite, path: ./shop.db, seed: ./seed.sql }',
      'tools:',
      '  purge: { kind: sql, source: shop, sql: "DELETE FROM a" }',
      '',
    ].join('\n'),
    'warn.yaml': ['resources:', '  notes: { kind: directory, path: ./docs, glob: "*.md" }', ''].join('\n'),
    'docs/a.txt': 'text\n',
    'counts.yaml': [
      'sources:',
      '  shop: { kind: sqlite, path: ./shop.db, seed: ./seed.sql }',
      'resources:',
      '  schema: { kind: sql-schema, source: shop }',
      'prompts:',
      '  greet: { messages: [{ role: user, text: Hello }] }',
      '',
    ].join('\n'),
    'seed.sql': 'CREATE TABLE a (id INTEGER); CREATE TABLE b (id INTEGER); CREATE TABLE c (id INTEGER);\n',
  });
  after(cases.cleanup);
  const run = (...args: string[]) => runCli(['validate', ...args], { cwd: cases.dir, env: bare });

  test('a write on a read-only source is an error, in the text and in --json', () => {
    const text = run('delete.yaml');
    assert.equal(text.code, 1);
    assert.match(text.stderr, /error\[SQL_WRITE_NOT_ALLOWED\] delete\.yaml:4:\d+ tools\.purge\.sql/);
    const json = run('delete.yaml', '--json');
    assert.equal(json.code, 1);
    const report = JSON.parse(json.stdout) as { valid: boolean; errors: { code: string }[] };
    assert.equal(report.valid, false);
    assert.deepEqual(
      report.errors.map((e) => e.code),
      ['SQL_WRITE_NOT_ALLOWED'],
    );
  });

  test('warnings are in --json; --strict turns them into a failure', () => {
    const plain = run('warn.yaml', '--json');
    assert.equal(plain.code, 0);
    const report = JSON.parse(plain.stdout) as { valid: boolean; warnings: { code: string; path: string }[] };
    assert.equal(report.valid, true);
    assert.deepEqual(
      report.warnings.map((w) => [w.code, w.path]),
      [['ENTRY_WARNING', 'resources.notes']],
    );
    const strict = run('warn.yaml', '--json', '--strict');
    assert.equal(strict.code, 1);
    assert.equal((JSON.parse(strict.stdout) as { valid: boolean }).valid, false);
  });

  test('counts what list shows, in the right number', () => {
    const out = run('counts.yaml');
    assert.equal(out.code, 0, out.stderr);
    const list = runCli(['list', 'counts.yaml', '--json'], { cwd: cases.dir, env: bare });
    const shown = (JSON.parse(list.stdout) as { resources: unknown[] }).resources.length;
    assert.ok(shown > 1, `list shows ${shown} resources`);
    assert.match(
      out.stdout,
      new RegExp(`0 tools, ${shown} resources, \\d+ resource templates?, 1 prompt\\n`),
    );
  });
});
