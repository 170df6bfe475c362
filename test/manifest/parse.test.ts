import assert from 'node:assert/strict';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ManifestError } from '../../src/errors.js';
import { loadManifest } from '../../src/manifest/load.js';
import { parseYaml } from '../../src/manifest/parse.js';
import { brief, failures, kinds, yaml } from './helpers.js';

describe('parse', () => {
  it('reports a YAML syntax error with its position and a frame, and stops there', () => {
    const ds = failures(yaml('tools:', '  a: [1, 2', 'bogus: 1'));
    assert.equal(ds[0]?.code, 'MANIFEST_YAML');
    assert.ok(
      ds.every((d) => d.code === 'MANIFEST_YAML'),
      'no schema errors after a syntax error',
    );
    assert.match(ds[0]!.message, /^invalid YAML: flow sequence/);
    assert.equal(typeof ds[0]!.line, 'number');
    assert.match(ds[0]!.frame!, /\^$/);
  });

  // One misindented key: yaml's first error is kept with its frame, its follow-ons (the same
  // lines, yaml's own confusion) are dropped; a second mistake further down is still reported.
  // A key indented too deep is pointed at itself, not at the line above it.
  const tool = (name: string, ...body: string[]) => [`  ${name}:`, '    kind: content', ...body];
  const misindented: [string, string[], string[], RegExp, RegExp | undefined][] = [
    [
      'a key indented deeper than the one before it',
      tool('greet', '    description: Greets.', '     content: [{ text: hi }]'),
      ['MANIFEST_YAML 6:6'],
      /^invalid YAML: nested mappings are not allowed in compact mappings$/,
      /^this key may be misindented: it is deeper than the key on line 5;/,
    ],
    [
      'a key indented less than the one before it',
      tool('greet', '   description: Greets.', '    content: [{ text: hi }]'),
      ['MANIFEST_YAML 5:1'],
      /^invalid YAML: all mapping items must start at the same column$/,
      undefined,
    ],
    [
      'a key of a sequence item indented too deep',
      tool('greet', '    description: Greets.', '    content:', '      - text: hi', '         type: text'),
      ['MANIFEST_YAML 8:10'],
      /nested mappings are not allowed/,
      /^this key may be misindented: it is deeper than the key on line 7;/,
    ],
    [
      'two misindented keys far apart: both',
      [
        ...tool('greet', '   description: Greets.', '    content: [{ text: hi }]'),
        ...tool('a', '    description: A.', '    content: [{ text: a }]'),
        ...tool('b', '    description: B.', '    content: [{ text: b }]'),
        ...tool('c', '    description: C.', '     content: [{ text: c }]'),
      ],
      ['MANIFEST_YAML 5:1', 'MANIFEST_YAML 18:6'],
      /^invalid YAML: all mapping items must start at the same column$/,
      undefined,
    ],
  ];
  for (const [name, body, expected, message, hint] of misindented) {
    it(`one error for one misindented key: ${name}`, () => {
      const ds = failures(yaml('server: { name: s, version: 1.0.0 }', 'tools:', ...body));
      assert.deepEqual(brief(ds), expected);
      assert.match(ds[0]!.message, message);
      if (hint) assert.match(ds[0]!.hint ?? '', hint);
      else assert.equal(ds[0]!.hint, undefined);
      const line = Number(expected[0]!.split(' ')[1]!.split(':')[0]);
      assert.match(
        ds[0]!.frame!,
        new RegExp(`^> +${line} \\| ${body[line - 3]!.replace(/[[\]{}.]/g, '\\$&')}$`, 'm'),
      );
    });
  }

  it('reports a tab used as indentation', () => {
    const ds = failures('tools:\n\tx: 1\n');
    assert.deepEqual(brief(ds), ['MANIFEST_YAML 2:1']);
    assert.equal(ds[0]!.message, 'invalid YAML: tabs are not allowed as indentation');
  });

  it('reports a duplicate key at the second occurrence, with its path', () => {
    const ds = failures(
      yaml('tools:', '  a: { kind: sql, source: s, sql: x }', '  a: { kind: sql, source: s, sql: y }'),
    );
    assert.deepEqual(brief(ds), ['MANIFEST_YAML 3:3 tools.a']);
    assert.equal(ds[0]!.message, 'invalid YAML: duplicate key "a"; keys in a mapping must be unique');
    assert.equal(
      ds[0]!.frame,
      [
        '  1 | tools:',
        '  2 |   a: { kind: sql, source: s, sql: x }',
        '> 3 |   a: { kind: sql, source: s, sql: y }',
        '    |   ^',
      ].join('\n'),
    );
  });

  it('reports every syntax error at once', () => {
    const ds = failures(yaml('a: 1', 'a: 2', 'b: 1', 'b: 2'));
    assert.deepEqual(brief(ds), ['MANIFEST_YAML 2:1 a', 'MANIFEST_YAML 4:1 b']);
  });

  it('reports an alias to an unknown anchor where it is used', () => {
    const ds = failures(yaml('server:', '  name: *nope'));
    assert.deepEqual(brief(ds), ['MANIFEST_YAML 2:9']);
    assert.match(ds[0]!.message, /unknown anchor "nope"/);
  });

  it('reports an alias used before its anchor, and only the aliases that resolve to nothing', () => {
    const ds = failures(yaml('a: *later', 'b: &x 1', 'c: *x', 'd: *y', 'e: &later 2', 'f: *later'));
    assert.deepEqual(brief(ds), ['MANIFEST_YAML 1:4', 'MANIFEST_YAML 4:4']);
    assert.match(ds[0]!.message, /unknown anchor "later"/);
    assert.match(ds[1]!.message, /unknown anchor "y"/);
  });

  it('reports an alias inside the node its anchor is on (a cycle) where it is used', () => {
    const ds = failures(yaml('tools:', '  t: &x', '    kind: content', '    y: [1, *x]'));
    assert.deepEqual(brief(ds), ['MANIFEST_YAML 4:12']);
    assert.match(ds[0]!.message, /\*x is inside the node &x names/);
  });

  it('takes an alias of an anchor redefined inside the node of its first use: the nearer one is not a cycle', () => {
    const parsed = parseYaml(yaml('a: &x', '  b: &x 1', '  c: *x', 'd: *x'));
    assert.deepEqual(parsed.errors, []);
    assert.deepEqual(parsed.data, { a: { b: 1, c: 1 }, d: 1 });
  });

  it('loads a document with 1,000 aliases, each the value of its anchor', () => {
    const lines = ['shared:'];
    for (let i = 0; i < 250; i++) lines.push(`  a${i}: &s${i} { n: ${i} }`);
    lines.push('uses:');
    for (let i = 0; i < 1000; i++) lines.push(`  u${i}: *s${i % 250}`);
    const parsed = parseYaml(yaml(...lines));
    assert.deepEqual(parsed.errors, []);
    const uses = (parsed.data as { uses: Record<string, { n: number }> }).uses;
    assert.equal(Object.keys(uses).length, 1000);
    assert.deepEqual(uses.u999, { n: 249 });
  });

  it('points a problem inside aliased content at the anchored text', () => {
    const ds = failures(
      yaml(
        'server: { name: s, version: 1.0.0 }',
        'tools:',
        '  a:',
        '    kind: sql',
        '    source: s',
        '    sql: SELECT 1',
        '    input: &in { q: { type: strin } }',
        '  b:',
        '    kind: sql',
        '    source: s',
        '    sql: SELECT 1',
        '    input: *in',
      ),
    );
    assert.deepEqual(brief(ds), [
      'MANIFEST_INVALID_VALUE 7:29 tools.a.input.q.type',
      'MANIFEST_INVALID_VALUE 7:29 tools.b.input.q.type',
    ]);
  });

  it('caps alias expansion (billion laughs)', () => {
    const ds = failures(
      yaml(
        'a: &a [x, x, x, x, x, x, x, x, x, x]',
        'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
        'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
        'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
      ),
    );
    assert.deepEqual(brief(ds), ['MANIFEST_YAML 1:1']);
    assert.match(ds[0]!.message, /too many aliases/);
  });

  it('refuses an empty file, or one with only comments (see empty.test.ts)', () => {
    assert.deepEqual(brief(failures('')), ['MANIFEST_EMPTY -:-']);
    assert.deepEqual(brief(failures('# nothing yet\n')), ['MANIFEST_EMPTY -:-']);
  });

  it('requires the top level to be a mapping', () => {
    const ds = failures(yaml('- tools'));
    assert.deepEqual(brief(ds), ['MANIFEST_INVALID_VALUE 1:1']);
    assert.equal(ds[0]!.message, 'expected a mapping, got a list');
  });

  it('keeps a __proto__ key as a plain key (no prototype pollution)', () => {
    const ds = failures(yaml('__proto__: { polluted: true }'));
    assert.deepEqual(brief(ds), ['MANIFEST_UNKNOWN_FIELD 1:1 __proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('loadManifest (files)', () => {
  const dir = mkdtemp(join(tmpdir(), 'mcp-run-manifest-'));
  after(async () => rm(await dir, { recursive: true, force: true }));

  it('loads a file and records its absolute path and folder', async () => {
    const file = join(await dir, 'ok.yaml');
    await writeFile(file, yaml('server: { name: demo }', 'tools:'));
    const m = await loadManifest(file, kinds, {});
    assert.equal(m.file, file);
    assert.equal(m.baseDir, await dir);
    assert.deepEqual(m.data, { server: { name: 'demo' } });
  });

  it('reports an unreadable file as MANIFEST_READ', async () => {
    const file = join(await dir, 'missing.yaml');
    await assert.rejects(loadManifest(file, kinds, {}), (e: unknown) => {
      assert.ok(e instanceof ManifestError);
      assert.equal(e.diagnostics[0]!.code, 'MANIFEST_READ');
      assert.match(e.diagnostics[0]!.message, /no such file/);
      return true;
    });
    await assert.rejects(loadManifest(await dir, kinds, {}), /not a file/);
  });

  it('refuses a file over the size cap before reading it', async () => {
    const file = join(await dir, 'huge.yaml');
    await writeFile(file, '');
    await truncate(file, 4 * 1024 * 1024 + 1);
    await assert.rejects(loadManifest(file, kinds, {}), /MANIFEST_READ[\s\S]*larger than 4 MiB/);
  });
});
