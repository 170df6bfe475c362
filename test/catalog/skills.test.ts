/**
 * Skills made in memory (catalog/skills.ts inMemorySkill, what generated skills go through), the
 * directory view of a skill, and the OAuth scopes of skill:// URIs (transports/http/oauth/scopes.ts).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { inMemorySkill, skillDirectory, skillEntry, skillFileOf } from '../../src/catalog/skills.js';
import { accessOf, scopesNeeded } from '../../src/transports/http/oauth/scopes.js';

const skill = inMemorySkill({
  name: 'orders-toolset',
  description: 'Use the orders tools: "find" first, then "refund": a colon and quotes stay data.',
  files: new Map([
    ['SKILL.md', '# Orders\n\nSee references/tools.md.\n'],
    ['references/tools.md', '## find_orders\n'],
    ['references/deep/one more.md', 'a space in a name\n'],
  ]),
  metadata: { generator: 'mcp-run' },
});
const skills = new Map([[skill.name, skill]]);

/** The YAML frontmatter at the head of a SKILL.md, parsed as a host would. */
function frontmatterOf(text: string): unknown {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  assert.ok(match, 'SKILL.md begins with frontmatter');
  return parse(match[1]!);
}

describe('inMemorySkill', () => {
  test("the SKILL.md's frontmatter is the entry's, and sizes and digests are of the bytes read", async () => {
    const main = skill.files[0]!;
    assert.equal(main.uri, 'skill://orders-toolset/SKILL.md');
    const text = String(await main.read());
    assert.deepEqual(frontmatterOf(text), skill.frontmatter);
    assert.deepEqual(skill.frontmatter, {
      name: 'orders-toolset',
      description: 'Use the orders tools: "find" first, then "refund": a colon and quotes stay data.',
      metadata: { generator: 'mcp-run' },
    });
    assert.ok(text.endsWith('\n\n# Orders\n\nSee references/tools.md.\n'));
    for (const file of skill.files) {
      const bytes = Buffer.from(String(await file.read()));
      assert.equal(file.size, bytes.length, file.path);
      assert.equal(file.digest, `sha256:${createHash('sha256').update(bytes).digest('hex')}`, file.path);
    }
    assert.deepEqual(
      skillEntry(skill).resources.map((r) => r.uri),
      [
        'skill://orders-toolset/SKILL.md',
        'skill://orders-toolset/references/deep/one%20more.md',
        'skill://orders-toolset/references/tools.md',
      ],
    );
  });

  test('refuses a name that breaks the naming rule, an empty description, a path out of the skill', () => {
    const files = new Map<string, string>();
    assert.throws(() => inMemorySkill({ name: 'Orders', description: 'x', files }), /not|lowercase/);
    assert.throws(() => inMemorySkill({ name: 'a--b', description: 'x', files }), /double hyphen/);
    assert.throws(() => inMemorySkill({ name: 'ok', description: ' ', files }), /description is empty/);
    assert.throws(
      () => inMemorySkill({ name: 'ok', description: 'x', files: new Map([['../up.md', '']]) }),
      /not a path inside it/,
    );
  });
});

describe('skillDirectory', () => {
  test('lists direct children, folders as inode/directory, and only directories', () => {
    assert.deepEqual(skillDirectory(skills, 'skill://orders-toolset'), [
      {
        uri: 'skill://orders-toolset/SKILL.md',
        name: 'SKILL.md',
        mimeType: 'text/markdown',
        size: skill.files[0]!.size,
      },
      { uri: 'skill://orders-toolset/references', name: 'references', mimeType: 'inode/directory' },
    ]);
    assert.deepEqual(
      skillDirectory(skills, 'skill://orders-toolset/references/deep')?.map((c) => c.uri),
      ['skill://orders-toolset/references/deep/one%20more.md'],
    );
    for (const notADirectory of [
      'skill://orders-toolset/SKILL.md',
      'skill://orders-toolset/',
      'skill://orders-toolset/references/..',
      'skill://orders-toolset/nothing',
      'skill://other',
      'file:///etc',
    ])
      assert.equal(skillDirectory(skills, notADirectory), undefined, notADirectory);
    assert.equal(
      skillFileOf(skills, 'skill://orders-toolset/references/deep/one%20more.md')?.path,
      'references/deep/one more.md',
    );
  });
});

describe('OAuth scopes of skill:// URIs', () => {
  const policy = { resources: { 'skill://orders-toolset': ['orders:read'] } };
  test('the scopes of skill://<name> cover every URI under it, whatever the method', () => {
    for (const [method, uri] of [
      ['resources/read', 'skill://orders-toolset/SKILL.md'],
      ['resources/read', 'skill://orders-toolset/references/tools.md'],
      ['skills/get', 'skill://orders-toolset/SKILL.md'],
      ['resources/directory/read', 'skill://orders-toolset/references'],
      ['resources/directory/read', 'skill://orders-toolset'],
    ])
      assert.deepEqual(
        scopesNeeded({ method, params: { uri } }, policy),
        ['orders:read'],
        `${method} ${uri}`,
      );
    assert.deepEqual(
      scopesNeeded({ method: 'resources/read', params: { uri: 'skill://orders-toolsets/SKILL.md' } }, policy),
      [],
    );
  });

  test('a caller without the scope does not see the skill in lists', () => {
    const principal = (scopes: string[]) => ({ scopes: new Set(scopes) }) as never;
    assert.equal(
      accessOf(principal([]), policy)?.allows('resources', 'skill://orders-toolset/SKILL.md'),
      false,
    );
    assert.equal(
      accessOf(principal(['orders:read']), policy)?.allows('resources', 'skill://orders-toolset/SKILL.md'),
      true,
    );
  });
});
