/**
 * The command line's rough edges, as a user meets them, with the built CLI as a child process:
 * `--yes` for a confirm step, array arguments, a shell
 * tool's stderr printed once, exit codes in every --help, the counts and their plurals, and
 * multi-line descriptions in `list`.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { demoCopy, REPO, tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';
import { FRICTION_MANIFEST } from './friction-fixture.js';

const demo = demoCopy();
after(() => demo.cleanup());

const SHELL = tempFiles({ 'mcp.yaml': FRICTION_MANIFEST });
after(() => SHELL.cleanup());
const M = join(SHELL.dir, 'mcp.yaml');

describe('call', () => {
  test('--yes answers a confirm step; without it the call is refused with a pointer to --yes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-run-yes-'));
    try {
      cpSync(join(REPO, 'recipes/confirm-delete'), dir, {
        recursive: true,
        filter: (s) => !s.endsWith('.db'),
      });
      const manifest = join(dir, 'mcp.yaml');
      const before = runCli(['call', 'list_notes', manifest, '--raw']);
      const count = JSON.parse(before.stdout).structuredContent.rows.length;
      const refused = runCli(['call', 'delete_note', manifest, '--arg', 'id=1']);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /--yes/);
      const confirmed = runCli(['call', 'delete_note', manifest, '--arg', 'id=1', '--yes']);
      assert.equal(confirmed.code, 0, confirmed.stderr);
      assert.match(confirmed.stderr, /confirmed \(--yes\): Delete note 1/);
      const after = runCli(['call', 'list_notes', manifest, '--raw']);
      assert.equal(JSON.parse(after.stdout).structuredContent.rows.length, count - 1);
      // --yes confirms; it does not make up answers to a question with fields.
      const asked = runCli(['call', 'archive_note', manifest, '--arg', 'id=2', '--yes']);
      assert.match(asked.stderr, /declined a question with fields \(reason\)/);
      assert.match(asked.stdout, /Nothing was done/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an array argument: repeated, comma-separated or a JSON list; a bad one shows the forms', () => {
    const raw = (...args: string[]) => JSON.parse(runCli(['call', 'sum', M, '--raw', ...args]).stdout);
    assert.deepEqual(raw('--arg', 'ids=1', '--arg', 'ids=2', '--arg', 'ids=4').structuredContent.rows, [
      { total: 7 },
    ]);
    assert.deepEqual(raw('--arg', 'ids=1,2,4,8').structuredContent.rows, [{ total: 15 }]);
    assert.deepEqual(raw('--arg', 'ids=[10, 20]').structuredContent.rows, [{ total: 30 }]);
    const words = runCli(['call', 'tagged', M, '--arg', 'tags=dog', '--arg', 'tags=park']);
    assert.match(words.stdout, /^dog,park\n/);
    const bad = runCli(['call', 'sum', M, '--arg', 'ids=1,two']);
    assert.equal(bad.code, 2);
    assert.match(
      bad.stderr,
      /"two" is not integer; ids is an array: give --arg ids=a --arg ids=b, --arg ids=a,b, or --arg ids='\["a","b"\]'/,
    );
    const twice = runCli(['call', 'find_orders', demo.manifest, '--arg', 'limit=1', '--arg', 'limit=2']);
    assert.equal(twice.code, 2);
    assert.match(twice.stderr, /--arg limit is given twice/);
  });

  test("a shell tool's stderr is printed once", () => {
    const run = runCli(['call', 'fails', M]);
    assert.equal(run.code, 1);
    const all = run.stdout + run.stderr;
    assert.equal(all.match(/stderr line one/g)?.length, 1, all);
    assert.equal(all.match(/stderr line two/g)?.length, 1, all);
  });
});

describe('help, counts and lists', () => {
  test('every command’s --help shows its exit codes', () => {
    for (const command of [
      [],
      ['validate'],
      ['list'],
      ['lint'],
      ['call'],
      ['read'],
      ['prompt'],
      ['init'],
      ['schema'],
      ['test'],
      ['config'],
      ['import'],
      ['import', 'openapi'],
    ]) {
      const help = runCli([...command, '--help']);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /Exit codes: 0 /, `mcp-run ${command.join(' ')} --help`);
    }
  });
  test('the top-level help names SQL, HTTP and shell tools, files and prompts', () => {
    const help = runCli(['--help']).stdout;
    for (const word of [/SQL tools/, /HTTP tools/, /shell tools/, /files/, /prompt templates/])
      assert.match(help, word);
  });
  test('the SQLite query tool advertises the reads SQLite has: no SHOW or DESCRIBE', () => {
    const lists = JSON.parse(runCli(['list', M, '--json']).stdout);
    const query = lists.tools.find((t: { name: string }) => t.name === 'query');
    assert.match(query.description, /PRAGMA/);
    assert.doesNotMatch(JSON.stringify(query), /SHOW|DESCRIBE/);
  });
  test('validate counts what list lists, each with its own word; one is singular', () => {
    const lists = JSON.parse(runCli(['list', demo.manifest, '--json']).stdout);
    const counts = runCli(['validate', demo.manifest]).stdout;
    assert.match(
      counts,
      new RegExp(
        `${lists.tools.length} tools, ${lists.resources.length} resources, ${lists.resourceTemplates.length} resource template, ${lists.prompts.length} prompt\\n`,
      ),
    );
    assert.match(
      runCli(['validate', M]).stdout,
      /is valid: 4 tools, 0 resources, 0 resource templates, 1 prompt\n/,
    );
  });
  test('list indents every line of a multi-line description', () => {
    const out = runCli(['list', M]).stdout;
    assert.match(
      out,
      /\n {2}tagged\n {6}Echoes the tags it is given\.\n {6}A second line of the description\.\n {6}tags\*?: array/,
    );
  });
});
