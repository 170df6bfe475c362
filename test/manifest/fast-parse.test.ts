import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { fastParse } from '../../src/manifest/fast-parse.js';
import { parseYaml } from '../../src/manifest/parse.js';
import { random as seeded } from '../openapi/big-spec.js';

/** What the full parser makes of `text` (the reference the fast path must match). */
const full = (text: string) => parse(text, { uniqueKeys: false }) ?? {};

/** `text` takes the fast path (`why` says why it should) and gives the data yaml gives; that data. */
function takenAsYaml(text: string, why: string): unknown {
  const fast = fastParse(text);
  assert.ok(fast, why);
  assert.deepEqual(fast.data, full(text));
  return fast.data;
}

describe('fast parse', () => {
  it('gives the data yaml gives, scalar by scalar (yaml 1.2 core rules, not js-yaml defaults)', () => {
    const text = [
      'a: [~, null, Null, NULL, "", true, True, TRUE, false, yes, no, on, off, y, n]',
      'b: [0, -0, +7, 007, 0o17, 0o8, 0x1F, 0X1F, 0b101, 1_000, 12345678901234567890, 1:20]',
      'c: [1.5, .5, 5., -1.0e3, 1e3, 1E-2, .inf, -.Inf, +.INF, .nan, .NaN, NaN, inf, 1.2.3]',
      'd: [2024-01-01, 2024-01-01T10:00:00Z, "1", \'2\', 0.1.2, =, <<]',
      'e:',
      '  <<: { x: 1 }',
      '  1: one',
      '  2.0: two',
      '  true: yes',
      '  0x10: sixteen',
      '  "": empty',
      '  __proto__: polluted',
      'f: |',
      '  keep',
      '   this',
      '',
      'g: >-',
      '  folded',
      '  text',
      '',
      '  para',
      'h: plain',
      '  multi line',
      'i: "esc \\x41 \\u00e9 \\t \\N \\_ end"',
      "j: 'it''s'",
      'k: {q: {type: string}, r: [1, {s: t}]}',
      'l: # a comment',
      '  - x # another',
      '  -',
      '  - - nested',
      'm: SELECT count(*) FROM t WHERE a = 1 -- why? because',
    ].join('\n');
    takenAsYaml(text, 'plain YAML takes the fast path');
  });

  it('gives the data yaml gives for every YAML file in the repository that it takes', () => {
    // Walked, not `git ls-files`: CI's Node 24 run works in a copy without .git.
    const files = readdirSync('.', { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.(ya?ml|example)$/.test(f))
      .filter(
        (f) =>
          !/(^|\/)(node_modules|dist|\.git)(\/|$)/.test(f) &&
          !f.startsWith(join('test', 'conformance', 'suite')),
      );
    let taken = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const fast = fastParse(text);
      if (!fast) continue;
      taken++;
      assert.deepEqual(fast.data, full(text), file);
    }
    assert.ok(taken > 10, `only ${taken} of ${files.length} files took the fast path`);
  });

  it('reads anchors and aliases as yaml does: one shared object per anchor', () => {
    const text = [
      'shared: &in { q: { type: string } }',
      'n: &n 3',
      'tools:',
      '  a: { input: *in, max: *n }',
      '  b: { input: *in, list: [*n, *n] }',
      '  c: &c { input: *in }',
      '  d: *c',
      'sql: SELECT * FROM t -- a * b, &amp; *not an alias*',
    ].join('\n');
    const data = takenAsYaml(text, 'a few aliases take the fast path') as {
      shared: object;
      tools: Record<string, { input: object }>;
    };
    assert.equal(data.tools.a!.input, data.shared);
    // 99 uses of one scalar: yaml's limit (count 100, itself included) still holds, so it is taken.
    const many = `a: &x 1\nb: [${Array(99).fill('*x').join(', ')}]`;
    assert.deepEqual(fastParse(many)?.data, full(many));
    const nested = 'a: &x\n  b: &y [1, 2]\nc: [*x, *y, *x, *y, *x, *y, *x]';
    assert.deepEqual(fastParse(nested)?.data, full(nested));
  });

  it('leaves to yaml what the two could read differently, or what is an error', () => {
    const cases = [
      `a: &x 1\nb: [${Array(100).fill('*x').join(', ')}]`,
      'a: &x [1, *x]',
      // An anchor and aliases after a JSON-like key's `:`, which needs no space: counted all the same.
      `a: {"k":&x 1}\nb: [${Array(100).fill('{"k":*x}').join(', ')}]`,
      'a: {"k":&x {"b":*x}}',
      // Aliases of collections nested in an anchored one: yaml counts 21 uses of b times 7 of a.
      `a: &a [x, y]\nb: &b [${Array(6).fill('*a').join(', ')}]\nc: [${Array(20).fill('*b').join(', ')}]`,
      'a: *x\nb: &x 1',
      // An anchor named again inside its own node: js-yaml names the outer node last, yaml the inner.
      'a: &x\n  b: &x 1\n  c: *x\nd: *x',
      'a: &x {b: &x 1}\nd: [*x]',
      'a: !!str 1',
      'a: ! 1',
      '%YAML 1.1\n---\na: yes',
      'a: 1\n---\nb: 2',
      'a: 1\n...\n',
      '? [a, b]\n: c',
      '[a, b]: c',
      '~: x',
      'null: x',
      'a: 1\na: 2',
      'a: [1, 2',
      'a: b: c',
      '\ta: 1',
      'a: {\nb: c\n}',
      'a: [b,\nc]',
      `${'k'.repeat(1100)}: v`,
    ];
    for (const text of cases) assert.equal(fastParse(text), undefined, text);
  });

  it('reads a text with characters past Latin-1 as yaml does, its strings each a copy of its own', () => {
    const text = [
      'a: "the repository\u2019s default branch, \u{1F600} and \\"quotes\\" and \\\\ back"',
      'b: |',
      '  Under normal conditions, you can expect API data within 4–6 hours',
      '  and a line of Latin-1 only: café, naïve, déjà vu (long enough to be cut)',
      'c: [plain text of some length, 😀 in a list of things, short]',
      'd: { key: a value long enough to be sliced out of the text }',
    ].join('\n');
    takenAsYaml(text, 'characters past Latin-1 take the fast path');
  });

  it('sees what stands far down a long text, as it sees it at the top', () => {
    // Long enough that the structure is read in several batches (a few KB each).
    const filler = Array.from({ length: 3000 }, (_, i) => `k${i}: a description of some length, ${i}`);
    const long = (...tail: string[]) => ['top: &x 1', ...filler, ...tail].join('\n');
    assert.ok(fastParse(long('end: 1')));
    assert.equal(fastParse(long('end: !!str 1')), undefined, 'a tag at the end');
    assert.equal(fastParse(long('---', 'end: 1')), undefined, 'a second document');
    // The anchor at the top, its uses all the way down: yaml's limit counts them all.
    const spread = (uses: number) =>
      [
        'top: &x 1',
        ...filler.flatMap((line, i) => (i % 30 === 0 && i / 30 < uses ? [line, `u${i}: *x`] : [line])),
      ].join('\n');
    assert.deepEqual(fastParse(spread(99))?.data, full(spread(99)));
    assert.equal(fastParse(spread(100)), undefined, 'one use too many');
  });

  it('takes scalars whose text looks like YAML (imported descriptions) and reads them as yaml does', () => {
    const text = [
      'tools:',
      '  get_issue:',
      '    description: |-',
      '      > [!NOTE]',
      '      > **Bold** *not an alias* &not-an-anchor ? no key % no directive',
      '      { not: a map } [nor a list',
      `      ${'a long line without a colon '.repeat(60)}`,
      '',
      '      - not a sequence: !not-a-tag',
      '    title: Plain text that the writer folded over lines, with a [Link',
      '      header](https://example.com) and ![an image](x.png) and **bold** *stars*',
      '      ? still text & more ! text',
      '    summary: "quoted [text, folded',
      '      over } lines: !x"',
      '    examples:',
      '      - >-',
      '        folded [ text',
      '        with &amp; and *x',
      '      - plain item [with',
      '        a continued ] line',
      '      - "a quoted item: folded',
      '        over lines [ ! &x"',
      "      - 'it''s ? here'",
      '    enum: [a, "b ] # c", \'d [ e\'] # a comment [',
      '    quoted key: x',
      '    "a \\" b": x',
      "    'it''s': x",
      '    empty:',
    ].join('\n');
    takenAsYaml(text, 'text in scalars does not send the manifest to the slow path');
  });

  it('still leaves to yaml what stands outside a scalar, however a scalar before it looks', () => {
    const cases = [
      'a: |\n  text\nb: !!str 1',
      '- a: |\n    text\n  b: !!str 1',
      '- |\n  text\n- !!str 1',
      'a: >\n  text\n? b\n: c',
      'a: plain\n  text\nb: &x 1\nc: [*x]'.replace('[*x]', `[${Array(100).fill('*x').join(', ')}]`),
      'a:\n  b: [1,\n  2]',
      'a: [1,\n2]',
      '- [1,\n 2]',
      'a: [1]]',
      'a:\n  [\n    "a bracket in quotes [",\n    2\n  ]',
      'a: [b,\n  c]',
      '- a:\n  ? [b]\n  : c',
      '- a: 1\r\n  ? [b]\r\n  : c\r\n',
      "- 'it''s': x\n  ? [a]\n  : b",
      '- "" : !',
      'a: b\r',
      `- ${'k'.repeat(1100)}:`,
      '#{\na: [ #}\n{}]',
      // Found by a differential fuzzer against yaml: each read apart, or accepted where yaml refuses.
      `- a:\n    b: &x [1]\n    c: [${Array(100).fill('*x').join(', ')}]`,
      "- 'it''s': x\n  ? [a]\n  : b",
      '- a#b: x\n  [c]: d',
      'a: "\\Uaaaaaaaa"',
      'a: "x\\\n\n  y"',
      'a: "x\ny"',
      '- "x\ny"',
      'a: |2\n   x',
      'a: >+\n  x\n',
      '-\t&a |\n x',
      '- -\n-',
      '- -\n\n  # a comment\n-',
      'a:\n  - b:\n    - #\n  - c',
      'a: &a b:',
      'a: &a[]',
      '---a: b',
      `a: |\n  text\n${'k'.repeat(1100)}: v`,
    ];
    for (const text of cases) assert.equal(fastParse(text), undefined, text);
  });

  it('reads what yaml writes as yaml reads it, for random documents of tricky text', () => {
    // Scalars made of the characters that mean something to YAML, written by yaml itself at
    // narrow widths (folded plain and quoted scalars, block scalars, flow lists over lines): the
    // fast path either declines or gives the same data.
    const random = seeded(14);
    const pieces = [
      'word',
      ' ',
      ' ',
      '\n',
      '[',
      ']',
      '{',
      '}',
      '!',
      '&',
      '*',
      '?',
      ':',
      ': ',
      '#',
      ' #',
      '%',
      '-',
      '- ',
      '|',
      '>',
      '"',
      "'",
      ',',
      '**',
      '> [!NOTE]',
      '\t',
      '@',
      '`',
    ];
    const text = () =>
      Array.from(
        { length: 1 + Math.floor(random() * 12) },
        () => pieces[Math.floor(random() * pieces.length)],
      ).join('');
    const node = (depth: number): unknown => {
      const r = random();
      if (depth > 2 || r < 0.4) return r < 0.05 ? Math.floor(random() * 100) : text();
      if (r < 0.7) return Array.from({ length: 1 + Math.floor(random() * 3) }, () => node(depth + 1));
      return Object.fromEntries(
        Array.from({ length: 1 + Math.floor(random() * 3) }, (_, i) => [`k${i}`, node(depth + 1)]),
      );
    };
    let taken = 0;
    for (let i = 0; i < 1500; i++) {
      const doc = { a: node(0), b: { c: node(1), d: [node(1), node(1)] } };
      const written = stringify(doc, {
        lineWidth: 20 + Math.floor(random() * 40),
        minContentWidth: 0,
        ...(i % 3 === 0 && { collectionStyle: 'flow' as const }),
        ...(i % 5 === 0 && { blockQuote: 'folded' as const }),
      });
      const fast = fastParse(written);
      if (!fast) continue;
      taken++;
      assert.deepEqual(fast.data, full(written), written);
    }
    assert.ok(taken > 500, `only ${taken} of 1500 documents took the fast path`);
  });

  it('reports the same errors with the same positions after the fast path', () => {
    // A valid text: the document is made only when a position is asked for.
    const parsed = parseYaml('tools:\n  a:\n    kind: sql\n    sql: SELECT 1\n');
    assert.deepEqual(parsed.errors, []);
    assert.deepEqual(parsed.source.position(['tools', 'a', 'sql']), { line: 4, col: 10 });
    assert.deepEqual(parsed.source.position(['tools', 'a', 'nope'], 'key'), { line: 2, col: 3 });
  });
});
