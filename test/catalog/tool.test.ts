/** The catalog's tool wrapper: what every tool gets, whatever its kind. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
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
