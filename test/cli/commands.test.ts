/**
 * The command line as a user runs it: the built binary as a child process, each command on a good
 * and a bad manifest, checking what it prints and its exit code.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { demoCopy, REPO, tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';

const demo = demoCopy();
after(() => demo.cleanup());
const BAD = join(REPO, 'test/fixtures/invalid/many-errors.yaml');

describe('validate', () => {
  test('a valid manifest: exit 0 and a count of what it serves', () => {
    const run = runCli(['validate', demo.manifest]);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /is valid: 3 tools, 3 resources, 1 resource template, 1 prompt\n/);
  });
  test('a bad manifest: every error with its frame on stderr, exit 1', () => {
    const run = runCli(['validate', BAD]);
    assert.equal(run.code, 1);
    assert.equal(run.stderr.match(/^error\[/gm)?.length, 4);
    assert.match(run.stderr, /> 13 \| {5}maxRows: many/);
    assert.match(run.stderr, /4 errors in /);
  });
  test('--json: the diagnostics for machines', () => {
    const run = runCli(['validate', BAD, '--json']);
    assert.equal(run.code, 1);
    const report = JSON.parse(run.stdout);
    assert.equal(report.valid, false);
    assert.deepEqual(
      report.errors.map((e: { code: string; line: number }) => [e.code, e.line]),
      [
        ['MANIFEST_UNKNOWN_FIELD', 2],
        ['MANIFEST_INVALID_NAME', 6],
        ['MANIFEST_INVALID_VALUE', 13],
        ['MANIFEST_INVALID_VALUE', 18],
      ],
    );
  });
  test('a missing file: MANIFEST_READ, exit 1', () => {
    const run = runCli(['validate', join(demo.dir, 'nope.yaml')]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /error\[MANIFEST_READ\]/);
  });
});

describe('list', () => {
  test('tools with their arguments, resources, templates and prompts', () => {
    const run = runCli(['list', demo.manifest]);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^Tools \(3\)\n {2}find_orders — Find orders\n/);
    assert.match(run.stdout, / {6}limit: integer = 20 — How many orders at most\n/);
    assert.match(run.stdout, /Resource templates \(1\)\n {2}shop:\/\/orders\/\{id\} {2}order/);
    assert.match(run.stdout, /summarize_customer\(email\*, tone\)/);
  });
  test('--json: the lists as a client receives them', () => {
    const lists = JSON.parse(runCli(['list', demo.manifest, '--json']).stdout);
    assert.equal(lists.tools[0].inputSchema.properties.limit.maximum, 100);
    assert.equal(lists.resources.length, 3);
  });
  test('a bad manifest: exit 1', () => assert.equal(runCli(['list', BAD]).code, 1));
});

describe('call, read, prompt', () => {
  test('call prints the result as text; --arg values are typed by the input schema', () => {
    const run = runCli([
      'call',
      'find_orders',
      '-m',
      demo.manifest,
      '--arg',
      'email=ada@example.com',
      '--arg',
      'limit=1',
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /\| 1002 \| shipped \| 2025-09-12 \| 129 \|\n\n1 row\.\n$/);
  });
  test('call --json takes the arguments; --raw prints the raw result', () => {
    const run = runCli([
      'call',
      'find_orders',
      '-m',
      demo.manifest,
      '--json',
      '{"email":"grace@example.com"}',
      '--raw',
    ]);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.deepEqual(
      result.structuredContent.rows.map((r: { id: number }) => r.id),
      [1006, 1003],
    );
  });
  test('a tool error exits 1 and still prints what the model would read', () => {
    const run = runCli([
      'call',
      'find_orders',
      '-m',
      demo.manifest,
      '--arg',
      'email=a@b',
      '--arg',
      'limit=1000',
    ]);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /Invalid arguments for tool find_orders: limit must be <= 100/);
  });
  test('an unknown tool: exit 1 with a suggestion', () => {
    const run = runCli(['call', 'find_order', '-m', demo.manifest]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /no tool named "find_order" \(did you mean "find_orders"\?\)/);
  });
  test('a value that does not parse for its type is bad usage: exit 2', () => {
    const run = runCli([
      'call',
      'find_orders',
      '-m',
      demo.manifest,
      '--arg',
      'email=a@b',
      '--arg',
      'limit=ten',
    ]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /limit=ten/);
  });
  test('read prints the contents; a missing resource exits 1', () => {
    const run = runCli(['read', 'shop://docs/handbook.md', '-m', demo.manifest]);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^# Support handbook/);
    const missing = runCli(['read', 'shop://orders/4242', '-m', demo.manifest]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /shop:\/\/orders\/4242/);
  });
  test('prompt prints the messages; a missing required argument exits 1', () => {
    const run = runCli([
      'prompt',
      'summarize_customer',
      '-m',
      demo.manifest,
      '--arg',
      'email=ada@example.com',
    ]);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^\[user\]\nSummarise the order history of ada@example\.com\./);
    const missing = runCli(['prompt', 'summarize_customer', '-m', demo.manifest]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /email/);
  });
});

describe('init', () => {
  test('writes a starter manifest that validates and answers, and never overwrites it', () => {
    const dir = tempFiles({});
    try {
      const run = runCli(['init', '--dir', dir.dir]);
      assert.equal(run.code, 0, run.stderr);
      const manifest = join(dir.dir, 'mcp.yaml');
      const first = readFileSync(manifest, 'utf8').split('\n')[0];
      assert.match(first ?? '', /^# yaml-language-server: \$schema=.*schemas\/manifest\.schema\.json$/);
      assert.equal(runCli(['validate', manifest]).code, 0);
      const call = runCli([
        'call',
        'days_between',
        '-m',
        manifest,
        '--arg',
        'from=2026-01-01',
        '--arg',
        'to=2026-12-25',
      ]);
      assert.match(call.stdout, /\| 358 \|/);
      const again = runCli(['init', '--dir', dir.dir]);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /use --force/);
    } finally {
      dir.cleanup();
    }
  });
  test('an unknown recipe: exit 2 with the list', () => {
    const run = runCli(['init', '--recipe', 'git-tool', '--dir', demo.dir]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /no recipe "git-tool" \(did you mean "git-tools"\?\)/);
  });
});

test('schema prints the committed manifest JSON Schema', () => {
  const run = runCli(['schema']);
  assert.deepEqual(
    JSON.parse(run.stdout),
    JSON.parse(readFileSync(join(REPO, 'schemas/manifest.schema.json'), 'utf8')),
  );
});
