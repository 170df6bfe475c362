/** The catalog's tool wrapper: what every tool gets, whatever its kind. */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { compileCatalog } from '../../src/catalog/compile.js';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { StderrLogger } from '../../src/log.js';
import { loadManifest } from '../../src/manifest/load.js';
import { callContext, tempDir } from '../kinds/context.js';

async function catalogOf(yaml: string) {
  const file = join(tempDir(), 'mcp.yaml');
  writeFileSync(file, yaml);
  const registry = builtinKinds();
  return compileCatalog(await loadManifest(file, registry, {}), registry, new StderrLogger('silent'));
}

const text = (result: { content: readonly { type: string }[] }) =>
  result.content.map((block) => (block as { text?: string }).text).join('\n');

test('null for an optional argument that does not allow null is taken as absent', async () => {
  const catalog = await catalogOf(
    [
      'tools:',
      '  greet:',
      '    kind: content',
      '    input:',
      '      name: { type: string }',
      '      greeting: { type: string, default: Hello }',
      '      note: { type: string, required: false }',
      '      maybe: { type: [string, "null"], required: false }',
      '    content:',
      '      - text: "{{greeting}}, {{name}}!{{#if note}} ({{note}}){{/if}}"',
      '    structured: { maybe: "{{maybe}}" }',
      '',
    ].join('\n'),
  );
  const greet = catalog.tools.get('greet')!;
  const sent = await greet.call({ name: 'Ada', greeting: null, note: null, maybe: null }, callContext());
  assert.equal(sent.isError, undefined, text(sent));
  assert.equal(text(sent), 'Hello, Ada!', 'the default applies and the note is left out');
  assert.deepEqual(sent.structuredContent, { maybe: null }, 'a nullable argument keeps its null');
  const required = await greet.call({ name: null }, callContext());
  assert.equal(required.isError, true, 'null for a required argument is still refused');
  assert.match(text(required), /name/);
  await catalog.dispose();
});

describe('maxConcurrency, for every kind', () => {
  /** Each run records itself in `folder` while it runs and prints how many runs it saw. */
  const counting = 'echo $$ > "$1/$$"; ls "$1" | wc -l; sleep 0.3; rm "$1/$$"';
  const shellTool = (folder: string, extra: string) =>
    [
      'tools:',
      '  count:',
      '    kind: shell',
      `    command: [sh, -c, '${counting}', sh, "${folder}"]`,
      `    ${extra}`,
      '',
    ].join('\n');

  test('50 calls with maxConcurrency 2: never more than 2 at once, the rest told to retry', async () => {
    const folder = join(tempDir(), 'running');
    mkdirSync(folder);
    const catalog = await catalogOf(shellTool(folder, 'maxConcurrency: 2'));
    const tool = catalog.tools.get('count')!;
    const results = await Promise.all(Array.from({ length: 50 }, () => tool.call({}, callContext())));
    const ran = results.filter((r) => !r.isError).map((r) => Number(text(r).trim()));
    const refused = results.filter((r) => r.isError).map(text);
    assert.ok(ran.length >= 2, `${ran.length} ran`);
    assert.ok(Math.max(...ran) <= 2, `saw ${Math.max(...ran)} at once`);
    // 50 runs of 0.3 s through 2 places cannot all start within the 2 s wait.
    assert.ok(refused.length > 0);
    for (const t of refused)
      assert.match(t, /too many calls are running \(maxConcurrency 2 of this tool\).*retry/);
    assert.equal(ran.length + refused.length, 50);
    await catalog.dispose();
  });

  test('a shell tool runs 4 calls at once by default; any kind may set its own limit', async () => {
    const folder = join(tempDir(), 'running');
    mkdirSync(folder);
    const catalog = await catalogOf(shellTool(folder, 'description: Counts.'));
    const tool = catalog.tools.get('count')!;
    const results = await Promise.all(Array.from({ length: 8 }, () => tool.call({}, callContext())));
    const ran = results.map((r) => Number(text(r).trim()));
    assert.ok(Math.max(...ran) <= 4, `saw ${Math.max(...ran)} at once`);
    assert.ok(
      results.every((r) => !r.isError),
      'eight runs of 0.3 s through 4 places all start in time',
    );
    await catalog.dispose();
  });

  test('a waiting call is cancelled by its signal', async () => {
    const catalog = await catalogOf(
      ['tools:', '  nap:', '    kind: shell', '    command: [sleep, "1"]', '    maxConcurrency: 1', ''].join(
        '\n',
      ),
    );
    const tool = catalog.tools.get('nap')!;
    const first = tool.call({}, callContext());
    const controller = new AbortController();
    const second = tool.call({}, callContext(controller.signal));
    setImmediate(() => controller.abort());
    assert.equal(text(await second), 'Tool nap was cancelled before it started.');
    assert.equal((await first).isError, undefined);
    await catalog.dispose();
  });
});

test('tools with equal arguments share one input schema, and each still checks its own calls', async () => {
  const catalog = await catalogOf(
    [
      'tools:',
      '  first:',
      '    kind: content',
      '    input: { q: { type: string, minLength: 2 } }',
      '    content: [{ text: "first {{q}}" }]',
      '  second:',
      '    kind: content',
      '    input: { q: { type: string, minLength: 2 } }',
      '    content: [{ text: "second {{q}}" }]',
      '  other:',
      '    kind: content',
      '    input: { q: { type: string, minLength: 3 } }',
      '    content: [{ text: "other {{q}}" }]',
      '',
    ].join('\n'),
  );
  const first = catalog.tools.get('first')!;
  const second = catalog.tools.get('second')!;
  const other = catalog.tools.get('other')!;
  assert.equal(first.descriptor.inputSchema, second.descriptor.inputSchema, 'one object for equal schemas');
  assert.notEqual(first.descriptor.inputSchema, other.descriptor.inputSchema);
  assert.deepEqual(other.descriptor.inputSchema.properties, { q: { type: 'string', minLength: 3 } });
  assert.equal(text(await second.call({ q: 'ok' }, callContext())), 'second ok');
  const short = await second.call({ q: 'x' }, callContext());
  assert.equal(short.isError, true);
  assert.match(text(short), /Invalid arguments for tool second: q must NOT have fewer than 2 characters/);
  const three = await other.call({ q: 'ok' }, callContext());
  assert.equal(three.isError, true, 'the schema with minLength 3 is its own');
  assert.match(text(three), /tool other/);
  await catalog.dispose();
});
