/**
 * `mcp-run diff A B` as a user runs it: the exit code follows --fail-on exactly (non-zero only when
 * a change at that level exists), --json names every change with its class, a formatting-only edit
 * is no change, and a side that cannot be read exits 3.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';

const BASE = `server: { name: shop, version: 1.0.0 }
tools:
  find_order:
    kind: shell
    description: One order.
    command: [echo, "{{id}}"]
    annotations: { readOnlyHint: true }
    input:
      id: { type: string }
      limit: { type: integer, default: 20, maximum: 100 }
  echo_word:
    kind: shell
    description: Echo a word.
    command: [echo, "{{word}}"]
    input:
      word: { type: string, enum: [a, b] }
    outputSchema:
      type: object
      properties: { word: { type: string }, length: { type: integer } }
prompts:
  hello:
    description: Say hello.
    arguments: { who: { description: Whom } }
    messages: [{ role: user, text: "Hello {{who}}" }]
resources:
  notes: { kind: text, uri: "notes://a", text: "A", mimeType: text/plain }
`;

describe('mcp-run diff', () => {
  const files = tempFiles({ 'a.yaml': BASE });
  const a = join(files.dir, 'a.yaml');
  after(() => files.cleanup());
  const variant = (name: string, text: string) => {
    const path = join(files.dir, name);
    writeFileSync(path, text);
    return path;
  };
  const diff = (...args: string[]) => runCli(['diff', ...args]);

  it('a formatting, comment and key-order edit is no change', () => {
    const b = variant(
      'reformatted.yaml',
      `# the same contract, written otherwise\n${BASE.replace('      id: { type: string }\n      limit: { type: integer, default: 20, maximum: 100 }', '      limit: { maximum: 100, default: 20, type: integer }\n      id: {   type: string }')}`,
    );
    const run = diff(a, b, '--fail-on', 'any');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'no contract change\n');
  });

  it('--fail-on breaking exits 1 exactly when a breaking change exists', () => {
    const additive = variant(
      'additive.yaml',
      BASE.replace('word: { type: string, enum: [a, b] }', 'word: { type: string, enum: [a, b, c] }').replace(
        'description: One order.',
        'description: One order, by id.',
      ),
    );
    const breaking = variant('breaking.yaml', BASE.replace('maximum: 100', 'maximum: 50'));
    assert.equal(diff(a, additive, '--fail-on', 'breaking').code, 0);
    assert.equal(diff(a, additive, '--fail-on', 'any').code, 1);
    assert.equal(diff(a, additive).code, 0);
    const run = diff(a, breaking, '--fail-on', 'breaking');
    assert.equal(run.code, 1);
    assert.match(run.stdout, /^breaking {2}tool `find_order` input `limit` maximum lowered from 100 to 50$/m);
    // The same pair the other way round is additive.
    assert.equal(diff(breaking, a, '--fail-on', 'breaking').code, 0);
  });

  it('--json names each change with its class', () => {
    const b = variant(
      'many.yaml',
      BASE.replace('find_order:', 'get_order:')
        .replace('    annotations: { readOnlyHint: true }\n', '')
        .replace(
          'properties: { word: { type: string }, length: { type: integer } }',
          'properties: { word: { type: string }, chars: { type: integer } }',
        )
        .replace(
          'arguments: { who: { description: Whom } }',
          'arguments: { who: { description: Whom, required: true } }',
        )
        .replace('mimeType: text/plain', 'mimeType: text/markdown'),
    );
    const run = diff(a, b, '--json');
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    const seen = report.changes.map((c: { class: string; message: string }) => `${c.class}: ${c.message}`);
    assert.deepEqual(seen, [
      // Losing readOnlyHint makes it another contract: a removal and an addition, not a rename.
      'additive: tool `get_order` added',
      'breaking: tool `echo_word` output `length` removed',
      'additive: tool `echo_word` output `chars` added (optional)',
      'breaking: tool `find_order` removed',
      'breaking: resource `notes://a` mimeType changed from text/plain to text/markdown',
      'breaking: prompt `hello` argument `who` became required',
    ]);
    assert.deepEqual(report.counts, { breaking: 4, additive: 2, changed: 0 });
  });

  it('a rename keeps the contract under another name, and loses readOnlyHint separately', () => {
    const renamed = variant('renamed.yaml', BASE.replace('find_order:', 'get_order:'));
    const report = JSON.parse(diff(a, renamed, '--json').stdout);
    assert.deepEqual(report.changes, [
      {
        class: 'breaking',
        category: 'tool',
        name: 'get_order',
        change: 'renamed',
        from: 'find_order',
        message: 'tool `find_order` renamed to `get_order`',
      },
    ]);
    const unsafe = variant(
      'unsafe.yaml',
      BASE.replace(
        'annotations: { readOnlyHint: true }',
        'annotations: { readOnlyHint: false, destructiveHint: true }',
      ),
    );
    const run = diff(a, unsafe, '--fail-on', 'breaking');
    assert.equal(run.code, 1);
    assert.match(run.stdout, /breaking {2}tool `find_order` annotations\.readOnlyHint lost/);
  });

  it('a side that cannot be read exits 3; bad usage exits 2', () => {
    const broken = variant('broken.yaml', 'tools:\n  x: { kind: htp }\n');
    const run = diff(a, broken);
    assert.equal(run.code, 3);
    assert.match(run.stderr, /MANIFEST_UNKNOWN_KIND/);
    assert.equal(diff(a, 'http://127.0.0.1:1/mcp').code, 3);
    assert.equal(diff(a, a, '--fail-on', 'sometimes').code, 2);
  });
});
