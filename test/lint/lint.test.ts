/**
 * `mcp-run lint`, run as the built CLI on real manifests: the bad-practice fixture flags each rule
 * exactly once, the SQL fixture covers statements, resources and prompts, every recipe lints clean,
 * suppressions need a reason, and the tools/list token estimate stays within 10% of a real
 * tokenizer (gpt-tokenizer's o200k_base, a devDependency; src/ has its own estimator).
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { RULES } from '../../src/lint/rules.js';
import { MYSQL_URL, PG_URL } from '../helpers/databases.js';
import { REPO, tempFiles } from '../helpers/demo.js';
import { localUpstreams } from '../helpers/recipe-upstreams.js';
import { runCli } from '../helpers/run-cli.js';

type Json = Record<string, any>;

const FIXTURES = join(REPO, 'test/fixtures/lint');
const scratch = mkdtempSync(join(tmpdir(), 'mcp-run-lint-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A private copy of a folder (a seed creates its database beside the manifest on first run). */
function copyOf(folder: string, edit: (text: string) => string = (text) => text): string {
  const dir = join(scratch, `${readdirSync(scratch).length}-${folder.split('/').pop()}`);
  cpSync(folder, dir, { recursive: true, filter: (src) => !src.endsWith('.db') });
  const manifest = join(dir, 'mcp.yaml');
  writeFileSync(manifest, edit(readFileSync(manifest, 'utf8')));
  return manifest;
}

/** Dummy values for what recipes read from the environment; lint sends no request. */
const ENV = { ...process.env, GITHUB_TOKEN: 'lint-test-token' };

function lintJson(
  manifest: string,
  env: NodeJS.ProcessEnv = ENV,
  args: readonly string[] = [],
): { code: number | null; report: Json } {
  const run = runCli(['lint', manifest, '--json', ...args], { env });
  assert.ok(run.stdout.trim(), `no report; stderr: ${run.stderr}`);
  return { code: run.code, report: JSON.parse(run.stdout) };
}

/** The 1-based line range of one entry's block: from its key to the next key of its indent. */
function entryLines(text: string, name: string): [number, number] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^  ${name}:`).test(l));
  assert.ok(start >= 0, `no entry ${name}`);
  let end = start + 1;
  while (end < lines.length && !/^ {0,2}\S/.test(lines[end] ?? '')) end++;
  return [start + 1, end];
}

describe('the bad-practice fixture', () => {
  const manifest = join(FIXTURES, 'bad/mcp.yaml');
  const text = readFileSync(manifest, 'utf8');
  const { code, report } = lintJson(manifest);

  /** The rules of one entry; LINT_CATALOG_TOKENS is the whole catalog's (its own test, below). */
  // LINT_MASK_BYPASSABLE needs a SQL source (a sql-query tool); the SQL fixture has it.
  const entryRules = Object.keys(RULES).filter(
    (c) => c !== 'LINT_CATALOG_TOKENS' && c !== 'LINT_MASK_BYPASSABLE',
  );

  test('flags each rule exactly once, and exits 1 for its errors', () => {
    const codes = report.findings.map((f: Json) => f.code).sort();
    assert.deepEqual(codes, entryRules.sort());
    assert.equal(code, 1);
    assert.equal(report.errors, 2);
    assert.equal(report.warnings, entryRules.length - 2);
    for (const f of report.findings) assert.equal(f.level, RULES[f.code as keyof typeof RULES]);
  });

  test('each finding is on the entry whose comment names its code, with a line and column', () => {
    for (const f of report.findings) {
      const [first, last] = entryLines(text, f.entry);
      assert.match(text.split('\n')[first - 1] ?? '', new RegExp(`# ${f.code}`), f.entry);
      assert.ok(f.line >= first && f.line <= last, `${f.code} at ${f.line}, entry ${first}-${last}`);
      assert.ok(f.col >= 1);
      assert.ok(f.path.startsWith(`${f.section}.${f.entry}`));
    }
  });

  test('an entry silences a rule with a reason; the report keeps it as silenced', () => {
    assert.deepEqual(report.suppressed, [
      {
        code: 'LINT_INPUT_UNUSED',
        section: 'tools',
        entry: 'ping',
        reason: 'old clients still send verbose; removing it would make their calls fail',
      },
    ]);
    assert.ok(!report.findings.some((f: Json) => f.entry === 'ping'));
  });

  test('the text report groups findings by entry, with file:line:col, and sums up', () => {
    const run = runCli(['lint', manifest], { env: ENV });
    assert.equal(run.code, 1);
    const lines = run.stdout.split('\n');
    const at = lines.indexOf('tools.search_orders');
    assert.ok(at >= 0, run.stdout);
    const unused = report.findings.find((f: Json) => f.code === 'LINT_INPUT_UNUSED');
    assert.equal(lines[at + 1], `  warning[LINT_INPUT_UNUSED] ${manifest}:${unused.line}:${unused.col}`);
    assert.match(lines[at + 2] ?? '', /input "region" is declared but nothing in the tool uses it/);
    assert.match(lines[at + 3] ?? '', /^ {4}fix: /);
    // gpt-tokenizer is installed here (a devDependency): lint counts with it, and says so.
    assert.match(
      run.stdout,
      /tools\/list: \d+ tokens \(o200k_base \(gpt-tokenizer\)\) for 10 tools, .*largest: shipping_quotes \d+/,
    );
    const estimated = runCli(['lint', manifest, '--tokenizer', 'estimate'], { env: ENV });
    assert.match(
      estimated.stdout,
      /tools\/list: ~\d+ tokens \(estimated\) for 10 tools, .*largest: shipping_quotes ~\d+/,
    );
    assert.match(run.stdout, /: 2 errors, 6 warnings, 1 silenced\n$/);
  });

  test('the largest tool comes first in the token cost', () => {
    assert.equal(report.tokens.tools[0].name, 'shipping_quotes');
    assert.ok(report.tokens.tools[0].tokens > 1000);
    assert.equal(report.tokens.tools.length, 10);
  });
});

test('the SQL fixture: statements, resources and prompts', () => {
  const { code, report } = lintJson(copyOf(join(FIXTURES, 'sql')));
  assert.equal(code, 1);
  assert.deepEqual(
    report.findings.map((f: Json) => `${f.section}.${f.entry} ${f.code}`),
    [
      'tools.count_items LINT_ANNOTATIONS_MISSING',
      'tools.remove_item LINT_WRITE_UNCONFIRMED',
      'tools.find_item LINT_INPUT_UNUSED',
      'tools.ask_items LINT_MASK_BYPASSABLE',
      'resources.inventory LINT_DESCRIPTION_MISSING',
      'prompts.reorder LINT_INPUT_UNDESCRIBED',
      'prompts.reorder LINT_INPUT_UNUSED',
    ],
  );
  const hints = Object.fromEntries(report.findings.map((f: Json) => [f.entry + f.code, f.hint]));
  assert.match(hints.count_itemsLINT_ANNOTATIONS_MISSING, /readOnlyHint: true/);
  assert.match(hints.remove_itemLINT_WRITE_UNCONFIRMED, /destructiveHint: true/);
  const bypass = report.findings.find((f: Json) => f.code === 'LINT_MASK_BYPASSABLE');
  assert.match(bypass.message, /^hide-qty masks by column or path, but the model writes this tool's SQL/);
  assert.match(bypass.hint, /detect: .* fixed sql tool/);
});

test('near-duplicate names: case, separators, a plural or one letter; a different verb is not one', () => {
  const tool = (name: string) =>
    `  ${name}:\n    kind: content\n    description: Answers with a fixed text, always the same.\n    content: [{ text: hi }]\n`;
  const names = [
    'get_user',
    'set_user',
    'getUser',
    'list_orders',
    'list-order',
    'find_order',
    'find_ordr',
    'find_pets',
  ];
  const files = tempFiles({ 'mcp.yaml': `tools:\n${names.map(tool).join('')}` });
  try {
    const { code, report } = lintJson(join(files.dir, 'mcp.yaml'));
    assert.equal(code, 0);
    assert.deepEqual(
      report.findings.map((f: Json) => [f.code, f.entry, f.message]),
      [
        [
          'LINT_NAMES_SIMILAR',
          'getUser',
          '"getUser" is close to "get_user": a model may call one for the other',
        ],
        [
          'LINT_NAMES_SIMILAR',
          'list-order',
          '"list-order" is close to "list_orders": a model may call one for the other',
        ],
        [
          'LINT_NAMES_SIMILAR',
          'find_ordr',
          '"find_ordr" is close to "find_order": a model may call one for the other',
        ],
      ],
    );
  } finally {
    files.cleanup();
  }
});

test('warnings alone exit 0', () => {
  const files = tempFiles({
    'mcp.yaml': [
      'server: { name: w, version: 1.0.0 }',
      'tools:',
      '  say:',
      '    kind: content',
      '    description: Says the text back, as it was given.',
      '    input: { text: { type: string } }',
      '    content: [{ text: "{{text}}" }]',
      '',
    ].join('\n'),
  });
  try {
    const { code, report } = lintJson(join(files.dir, 'mcp.yaml'));
    assert.deepEqual(
      report.findings.map((f: Json) => f.code),
      ['LINT_INPUT_UNDESCRIBED'],
    );
    assert.equal(code, 0);
  } finally {
    files.cleanup();
  }
});

test('a silencing needs a reason and a rule code; a broken manifest is reported as validate does', () => {
  const files = tempFiles({
    'empty.yaml':
      'tools:\n  t:\n    kind: content\n    description: A fixed text.\n    content: [{ text: hi }]\n    lint: { ignore: { LINT_INPUT_UNUSED: "" } }\n',
    'list.yaml':
      'tools:\n  t:\n    kind: content\n    description: A fixed text.\n    content: [{ text: hi }]\n    lint: { ignore: [LINT_INPUT_UNUSED] }\n',
  });
  try {
    for (const name of ['empty.yaml', 'list.yaml']) {
      const run = runCli(['lint', join(files.dir, name)]);
      assert.equal(run.code, 1, name);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /tools\.t\.lint\.ignore/, name);
    }
  } finally {
    files.cleanup();
  }
});

describe('a catalog over the token threshold', () => {
  // 40 tools of about 700 tokens each: over 20,000 together, each under the per-tool limit.
  const words = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
  const tools = Array.from(
    { length: 40 },
    (_, i) =>
      `  t${i}:\n    kind: content\n    description: "Tool ${i}: ${words}"\n    annotations: { readOnlyHint: true }\n    content: [{ text: ok }]\n`,
  ).join('');
  const files = tempFiles({
    'full.yaml': `server: { name: big }\ntools:\n${tools}`,
    'search.yaml': `server: { name: big, catalog: { mode: search } }\ntools:\n${tools}`,
    'chosen.yaml': `server: { name: big, catalog: { mode: full } }\ntools:\n${tools}`,
  });
  after(() => files.cleanup());

  test('lint suggests search mode, counted with a real tokenizer it names', () => {
    const { report } = lintJson(join(files.dir, 'full.yaml'));
    const found = report.findings.filter((f: Json) => f.code === 'LINT_CATALOG_TOKENS');
    assert.equal(found.length, 1, JSON.stringify(report.findings.map((f: Json) => f.code)));
    assert.match(found[0].message, /tools\/list is \d+ tokens \(o200k_base \(gpt-tokenizer\)\) for 40 tools/);
    assert.match(found[0].hint, /catalog: \{ mode: search/);
    assert.equal(report.tokens.tokenizer, 'o200k_base (gpt-tokenizer)');
    assert.ok(report.tokens.total > 20_000, String(report.tokens.total));
  });

  test('in search mode the listed cost is the meta-tools, and nothing is suggested', () => {
    const { report } = lintJson(join(files.dir, 'search.yaml'), ENV, ['--tokenizer', 'claude']);
    assert.equal(report.tokens.tokenizer, 'claude (@anthropic-ai/tokenizer)');
    assert.equal(report.tokens.searchMode, true);
    assert.equal(report.tokens.listed, 4);
    assert.ok(report.tokens.total < 1000, String(report.tokens.total));
    assert.ok(!report.findings.some((f: Json) => f.code === 'LINT_CATALOG_TOKENS'));
  });

  test('`catalog: { mode: full }` written out says the whole list is meant', () => {
    const { report } = lintJson(join(files.dir, 'chosen.yaml'));
    assert.ok(!report.findings.some((f: Json) => f.code === 'LINT_CATALOG_TOKENS'));
  });
});

test('docs/lint.md has an entry for every rule, and no other', () => {
  const doc = readFileSync(join(REPO, 'docs/lint.md'), 'utf8');
  const documented = [...doc.matchAll(/^## (LINT_[A-Z_]+)/gm)].map((m) => m[1]).sort();
  assert.deepEqual(documented, Object.keys(RULES).sort());
  for (const code of documented) {
    const section = doc.split(`## ${code}`)[1]?.split('\n## ')[0] ?? '';
    assert.match(section, new RegExp(`\\*\\*Level:\\*\\* ${RULES[code as keyof typeof RULES]}`), code);
    assert.match(section, /\*\*Fix:\*\*/, code);
    assert.match(section, new RegExp(`ignore: \\{ ${code}: `), code);
  }
});

/** Recipes that need a database server, and the variable that names one for the tests. */
const DATABASE_RECIPES: Record<string, string | undefined> = {
  'postgres-explorer': PG_URL,
  'mysql-explorer': MYSQL_URL,
};

describe('every recipe lints clean', () => {
  const recipes = readdirSync(join(REPO, 'recipes')).filter((r) =>
    existsSync(join(REPO, 'recipes', r, 'mcp.yaml')),
  );
  for (const recipe of recipes) {
    const needsDb = recipe in DATABASE_RECIPES;
    const url = DATABASE_RECIPES[recipe];
    // The recipe opens a database server. The words are every database test's, so that npm test's
    // skip summary counts them under one reason (the test's name says which recipe).
    const skip =
      needsDb && !url
        ? `MCP_RUN_TEST_${recipe.startsWith('postgres') ? 'POSTGRES' : 'MYSQL'}_URL is not set`
        : false;
    test(recipe, { skip }, () => {
      const env = url ? { ...ENV, DATABASE_URL: url } : ENV;
      // The test database's login is an admin, which the query tool refuses (the recipe's own test
      // covers that, with its reader role); lint judges the tools, so the copy accepts the login.
      const accept = (text: string) =>
        text.replace(/^( {4}poolSize: \d+)$/m, '$1\n    allowPrivilegedRole: true');
      // The copy is outside the checkout: its `npx -y` MCP servers run from node_modules instead.
      const manifest = copyOf(join(REPO, 'recipes', recipe), (text) =>
        localUpstreams(needsDb ? accept(text) : text),
      );
      const { code, report } = lintJson(manifest, env);
      assert.deepEqual(report.findings, []);
      assert.equal(code, 0);
      // Clean, or silenced with a reason that says why (a sentence, not a word).
      for (const s of report.suppressed as Json[])
        assert.ok(
          String(s.reason).trim().split(/\s+/).length >= 3,
          `${recipe}: ${s.code} on ${s.entry}: "${s.reason}"`,
        );
      assert.match(runCli(['lint', manifest], { env }).stdout, /mcp\.yaml: clean(, \d+ silenced)?\n/);
    });
  }
});

describe('the tools/list token estimate is within 10% of a real tokenizer', () => {
  const fixtures = [
    ...['bad', 'sql'].map((f) => join(FIXTURES, f)),
    ...['bookstore', 'confirm-delete', 'git-tools', 'petstore', 'rest-api', 'weather'].map((r) =>
      join(REPO, 'recipes', r),
    ),
  ];
  for (const folder of fixtures) {
    test(folder.slice(REPO.length + 1), () => {
      const manifest = copyOf(folder);
      const listed = runCli(['list', manifest, '--json'], { env: ENV });
      assert.equal(listed.code, 0, listed.stderr);
      const tools = JSON.parse(listed.stdout).tools as Json[];
      const { report } = lintJson(manifest, ENV, ['--tokenizer', 'estimate']);
      assert.equal(report.tokens.tokenizer, 'estimate');
      const real = countTokens(JSON.stringify({ tools }));
      const estimate = report.tokens.total as number;
      const error = Math.abs(estimate - real) / real;
      assert.ok(error <= 0.1, `estimated ${estimate}, o200k_base ${real} (${(error * 100).toFixed(1)}%)`);
      // Each tool's own figure is close too, so "the largest tools" names the right ones.
      for (const t of tools) {
        const own = report.tokens.tools.find((c: Json) => c.name === t.name).tokens as number;
        const exact = countTokens(JSON.stringify(t));
        assert.ok(Math.abs(own - exact) / exact <= 0.15, `${t.name}: estimated ${own}, o200k_base ${exact}`);
      }
    });
  }
});
