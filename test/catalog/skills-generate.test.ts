/**
 * Skills made from toolsets (catalog/skills-generate.ts, skills-from-toolsets.ts), on catalogs
 * compiled from real manifests: the bookstore and petstore recipes (an imported OpenAPI document)
 * with toolsets added, and a manifest whose descriptions try to break the Markdown and the
 * frontmatter. Real parts: the loader, the builtin kinds, the compiler, the test files on disk.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { compileCatalog } from '../../src/catalog/compile.js';
import { SKILL_NAME } from '../../src/catalog/skills.js';
import { generateToolsetSkill, skillNameOf } from '../../src/catalog/skills-generate.js';
import type { Catalog, CatalogSkill } from '../../src/catalog/types.js';
import { ManifestError } from '../../src/errors.js';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { StderrLogger } from '../../src/log.js';
import { loadManifest } from '../../src/manifest/load.js';
import { REPO } from '../helpers/demo.js';
import { tempDir } from '../kinds/context.js';

async function compile(file: string): Promise<Catalog> {
  const registry = builtinKinds();
  return compileCatalog(await loadManifest(file, registry, {}), registry, new StderrLogger('silent'));
}

/**
 * A recipe copied to a temporary folder, its own toolsets and skills (from the comment that opens
 * them) replaced by `extra`.
 */
function recipe(name: string, extra: string): string {
  const dir = tempDir('mcp-run-skills-gen-');
  cpSync(join(REPO, 'recipes', name), dir, { recursive: true, filter: (src) => !src.endsWith('.db') });
  const file = join(dir, 'mcp.yaml');
  const text = readFileSync(file, 'utf8');
  const own = text.indexOf('\n# Two groups of tools');
  writeFileSync(file, (own < 0 ? text : text.slice(0, own + 1)) + extra);
  return file;
}

async function skillText(skill: CatalogSkill | undefined): Promise<string> {
  assert.ok(skill, 'the skill is served');
  return String(await skill.files[0]!.read());
}

/** The frontmatter as YAML reads it, and the body after it. */
function split(text: string): { front: Record<string, unknown>; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n\n([\s\S]*)$/.exec(text);
  assert.ok(match, 'SKILL.md opens with a frontmatter block');
  return { front: parse(match[1]!) as Record<string, unknown>, body: match[2]! };
}

const BOOKSTORE_TOOLSETS = `
toolsets:
  catalog:
    description: Find books, browse genres and read what sells.
    tools: [find_books, books_in_genre, best_sellers]
    resources: [book]
    prompts: [restock]
  raw_sql:
    tools: [tables, describe_table, query, table_rows]
    resources: [schema]
skills:
  fromToolsets: [raw_sql, catalog]
`;

describe('skills made from the bookstore recipe', () => {
  test('one skill per toolset, named by the rules, with a frontmatter that says when to use it', async () => {
    const catalog = await compile(recipe('bookstore', BOOKSTORE_TOOLSETS));
    try {
      assert.deepEqual([...catalog.skills.keys()], ['catalog', 'raw-sql']);
      const { front } = split(await skillText(catalog.skills.get('raw-sql')));
      assert.deepEqual(front, {
        name: 'raw-sql',
        description:
          'The raw_sql tools of the bookstore server. Use it when a task needs describe_table, query, table_rows, tables.',
        metadata: { generator: 'mcp-run', toolset: 'raw_sql' },
      });
      const skill = catalog.skills.get('catalog')!;
      assert.equal(skill.uri, 'skill://catalog/SKILL.md');
      assert.equal(
        skill.description,
        'Find books, browse genres and read what sells. Use it when a task needs best_sellers, books_in_genre, find_books.',
      );
      // Each skill belongs to the toolset it teaches, so that toolset's clients see it.
      assert.deepEqual([...catalog.toolsets!.get('catalog')!.skills], ['catalog']);
      assert.deepEqual([...catalog.toolsets!.get('raw_sql')!.skills], ['raw-sql']);
    } finally {
      await catalog.dispose();
    }
  });

  test('the body: purpose, which tool when, arguments, examples from the test cases, prompts, resources', async () => {
    const catalog = await compile(recipe('bookstore', BOOKSTORE_TOOLSETS));
    try {
      const { body } = split(await skillText(catalog.skills.get('catalog')));
      const headings = body.split('\n').filter((line) => line.startsWith('#'));
      assert.deepEqual(headings, [
        '# catalog',
        '## When to use which tool',
        '## `best_sellers`',
        '## `books_in_genre`',
        '## `find_books`',
        '## Prompts that go with these tools',
        '## Resources to read',
      ]);
      assert.match(body, /^Find books, browse genres and read what sells\. /m);
      assert.match(body, /Look things up \(read-only, safe to call at any time\):\n\n- `best_sellers`: /);
      assert.match(
        body,
        /- `genre` \(string, required\): The genre\. One of `"fiction"`, `"science"`, `"history"`, `"children"`\./,
      );
      assert.match(body, /- `limit` \(integer, optional\): How many books\. Default `5`\./);
      // find_books has three cases: the one that finds something is the example; the injection
      // attempt (rows: 0) is not.
      assert.match(
        body,
        /- finds books by author:\n\n {2}```json\n {2}\{\n {4}"text": "Moomin"\n {2}\}\n {2}```/,
      );
      assert.doesNotMatch(body, /OR 1=1/);
      // table_rows' only case expects a refusal: not an example (it is in raw-sql's skill).
      const raw = split(await skillText(catalog.skills.get('raw-sql'))).body;
      assert.doesNotMatch(raw, /sqlite_schema/);
      assert.doesNotMatch(raw, /UPDATE books/);
      assert.match(body, /- `restock`: Suggest which books to reorder\./);
      assert.match(body, /- `bookstore:\/\/books\/\{isbn\}`: One book with its author and sales, as JSON\./);
    } finally {
      await catalog.dispose();
    }
  });

  test('the same manifest gives the same bytes; an edited tool or test case gives new ones', async () => {
    const file = recipe('bookstore', BOOKSTORE_TOOLSETS);
    const digests = async () => {
      const catalog = await compile(file);
      try {
        return [...catalog.skills.values()].map((s) => s.files[0]!.digest);
      } finally {
        await catalog.dispose();
      }
    };
    const first = await digests();
    assert.deepEqual(await digests(), first);
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('Books by copies sold since a date', 'Books by sales since a date'));
    const edited = await digests();
    assert.notEqual(edited[0], first[0], 'the catalog skill changed');
    assert.equal(edited[1], first[1], 'the raw-sql skill did not');
    const cases = join(file, '../tests/bookstore.yaml');
    writeFileSync(cases, readFileSync(cases, 'utf8').replace('{ limit: 2 }', '{ limit: 3 }'));
    const recased = await digests();
    assert.notEqual(recased[0], edited[0]);
  });

  test('the test files are watched as part of each generated SKILL.md', async () => {
    const file = recipe('bookstore', BOOKSTORE_TOOLSETS);
    const catalog = await compile(file);
    try {
      assert.deepEqual(catalog.watched?.get(join(file, '../tests/bookstore.yaml')), [
        'skill://catalog/SKILL.md',
        'skill://raw-sql/SKILL.md',
      ]);
    } finally {
      await catalog.dispose();
    }
  });
});

describe('skills made from the petstore recipe (an imported OpenAPI document)', () => {
  test('the hints sort the tools; the examples come from tests/pets.yaml', async () => {
    const catalog = await compile(
      recipe('petstore', '\ntoolsets:\n  pets: { tools: ["*"] }\nskills:\n  fromToolsets: [pets]\n'),
    );
    try {
      const { body } = split(await skillText(catalog.skills.get('pets')));
      const when = body.slice(body.indexOf('## When to use'), body.indexOf('\n## `'));
      const read = when.indexOf('Look things up');
      const destroy = when.indexOf('May change or delete data');
      assert.ok(read > 0 && destroy > read, when);
      assert.ok(when.indexOf('`find_pets`') > read && when.indexOf('`find_pets`') < destroy, when);
      assert.ok(when.indexOf('`delete_pet`') > destroy, when);
      assert.match(
        body,
        /- adds a pet:\n\n {2}```json\n {2}\{\n {4}"name": "Kit",\n {4}"tag": "cat"\n {2}\}/,
      );
      assert.match(body, /- `tags` \(array of string, optional\): tags to filter by\./);
    } finally {
      await catalog.dispose();
    }
  });
});

describe('text from the manifest is data', () => {
  const hostile = [
    'Line one.',
    '# Injected heading',
    '```',
    '---',
    'name: evil',
    '<script>alert(1)</script> [link](javascript:alert(1)) *bold* `code`',
    '1. not a list',
    '- nor this',
    'ESC \u001b[31m red, BEL \u0007, C1 \u009b, RLO \u202e, LS \u2028 end',
  ].join('\n');
  const manifest = `
server: { name: hostile }
tools:
  tricky:
    kind: content
    description: ${JSON.stringify(hostile)}
    input:
      "weird":
        type: string
        description: ${JSON.stringify(hostile)}
        enum: ["a\`\`\`b", "\`lead"]
    content: [{ text: ok }]
toolsets:
  evil_set:
    description: ${JSON.stringify(`"quoted"\nsecond: line\n---\n${hostile}`)}
    tools: [tricky]
skills:
  fromToolsets: [evil_set]
tests:
  - name: ${JSON.stringify('an example\n# with a heading')}
    call: tricky
    args: { weird: ${JSON.stringify('x\n```\n# y \u001b \u2028 \u0085')} }
    expect: { contains: ok }
`;

  test('the frontmatter reads back as written; the Markdown keeps its structure; no raw control is left', async () => {
    const dir = tempDir('mcp-run-skills-gen-');
    writeFileSync(join(dir, 'mcp.yaml'), manifest);
    const catalog = await compile(join(dir, 'mcp.yaml'));
    try {
      const skill = catalog.skills.get('evil-set');
      const text = await skillText(skill);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
      assert.doesNotMatch(text, /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
      const { front, body } = split(text);
      assert.deepEqual(Object.keys(front), ['name', 'description', 'metadata']);
      assert.equal(front.name, 'evil-set');
      assert.equal(front.description, skill!.description);
      assert.match(String(front.description), /^"quoted" second: line --- Line one\. # Injected heading/);
      assert.match(
        String(front.description),
        /ESC U\+001B\[31m red, BEL U\+0007, C1 U\+009B, RLO U\+202E, LS end/,
      );
      const lines = body.split('\n');
      assert.deepEqual(
        lines.filter((line) => line.startsWith('#')),
        ['# evil_set', '## When to use which tool', '## `tricky`'],
      );
      assert.ok(!lines.includes('---'), 'no thematic break or second frontmatter');
      assert.ok(!/<script>/.test(body), 'angle brackets are escaped');
      assert.match(body, /\\<script\\>alert\(1\)\\<\/script\\>/);
      // The fenced example holds the argument as JSON with a ``` in it: its fence is longer.
      const fenceOpen = lines.findIndex((line) => line.trim() === '````json');
      assert.ok(fenceOpen > 0);
      assert.equal(lines[fenceOpen + 2], '    "weird": "x\\n```\\n# y \\u001b \\u2028 \\u0085"');
      assert.equal(lines[fenceOpen + 4], '  ````');
      // A code span with backticks inside uses a longer fence.
      assert.match(body, /One of ````"a```b"````, ``"`lead"``\./);
      assert.match(body, /- an example \\# with a heading:/);
    } finally {
      await catalog.dispose();
    }
  });
});

describe('fromToolsets errors are manifest errors', () => {
  test('an unknown toolset, and two toolsets that give the same skill name, are reported together', async () => {
    const dir = tempDir('mcp-run-skills-gen-');
    writeFileSync(
      join(dir, 'mcp.yaml'),
      `tools:
  one: { kind: content, description: One., content: [{ text: one }] }
toolsets:
  a_b: { tools: [one] }
  a-b: { tools: [one] }
skills:
  fromToolsets: [a_b, a-b, billing]
`,
    );
    await assert.rejects(compile(join(dir, 'mcp.yaml')), (err: unknown) => {
      assert.ok(err instanceof ManifestError);
      const found = err.diagnostics.map((d) => [d.code, d.line]);
      assert.deepEqual(found, [
        ['URI_DUPLICATE', 7],
        ['TOOLSET_UNKNOWN', 7],
      ]);
      assert.match(err.message, /skill:\/\/a-b\/SKILL\.md/);
      assert.match(err.message, /no toolset is named "billing"/);
      return true;
    });
  });
});

describe('the generator on its own', () => {
  test('skill names follow the naming rule whatever the toolset is called', () => {
    assert.equal(skillNameOf('billing'), 'billing');
    assert.equal(skillNameOf('Raw_SQL'), 'raw-sql');
    assert.equal(skillNameOf('-a__b--c_'), 'a-b-c');
    assert.equal(skillNameOf('__'), 'toolset');
    assert.equal(skillNameOf(`${'a'.repeat(63)}_b`), 'a'.repeat(63));
    for (const name of ['Raw_SQL', '-a__b--c_', '__', `${'a'.repeat(63)}_b`])
      assert.match(skillNameOf(name), SKILL_NAME);
  });

  test('a long toolset names its first eight tools in the description, and how many more', () => {
    const tools = Array.from({ length: 10 }, (_, i) => ({
      name: `tool_${i}`,
      inputSchema: { type: 'object' },
    }));
    const skill = generateToolsetSkill({
      server: 'big',
      toolset: 'all',
      tools,
      prompts: [],
      resources: [],
      templates: [],
      examples: new Map(),
    });
    assert.equal(
      skill.description,
      'The all tools of the big server. Use it when a task needs tool_0, tool_1, tool_2, tool_3, tool_4, tool_5, tool_6, tool_7 or 2 more of its tools.',
    );
    // No annotations: MCP's defaults say a call may destroy, and the skill says so.
    assert.match(skill.files.get('SKILL.md')!, /May change or delete data: tell the user/);
  });
});
