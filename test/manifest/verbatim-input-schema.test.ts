/**
 * `inputSchema:` — a tool's whole input schema given verbatim (JSON Schema 2020-12): served
 * unchanged, validated with ajv's 2020-12 dialect, its top-level properties are the names kinds
 * see; `input:` and `inputSchema:` together are a manifest error.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compileCatalog } from '../../src/catalog/compile.js';
import { ManifestError } from '../../src/errors.js';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { StderrLogger } from '../../src/log.js';
import { loadManifest } from '../../src/manifest/load.js';
import { callContext, tempDir } from '../kinds/context.js';

const dir = tempDir('mcp-run-input-schema-');
const registry = builtinKinds();
let files = 0;

async function compile(text: string) {
  const path = join(dir, `mcp-${files++}.yaml`);
  writeFileSync(path, text);
  return compileCatalog(await loadManifest(path, registry, {}), registry, new StderrLogger('silent'));
}

async function problems(text: string): Promise<string[]> {
  const err = await compile(text).then(
    () => assert.fail('the manifest compiled'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ManifestError, String(err));
  return err.diagnostics.map((d) => `${d.code} ${d.message}`);
}

const SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
      required: ['city'],
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    kind: { enum: ['home', 'work'] },
  },
  required: ['name'],
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, never awaited
  allOf: [{ if: { properties: { kind: { const: 'work' } } }, then: { required: ['address'] } }],
  additionalProperties: false,
};

const manifest = (tool: string): string =>
  `server: { name: t, version: 1.0.0 }\ntools:\n  where:\n    kind: content\n    description: Says where.\n${tool}`;

test('a verbatim 2020-12 schema is served unchanged and validates with $ref, allOf and if/then', async () => {
  const catalog = await compile(
    manifest(
      `    inputSchema: ${JSON.stringify(SCHEMA)}\n    content: [{ text: "{{name}} lives in {{address.city}}" }]\n`,
    ),
  );
  const tool = catalog.tools.get('where')!;
  assert.equal(JSON.stringify(tool.descriptor.inputSchema), JSON.stringify(SCHEMA));
  const ok = await tool.call({ name: 'Ada', address: { city: 'London' } }, callContext());
  assert.deepEqual(ok.content, [{ type: 'text', text: 'Ada lives in London' }]);
  const badRef = await tool.call({ name: 'Ada', address: { street: 'x' } }, callContext());
  assert.equal(badRef.isError, true, 'the $ref is followed: address.city is required');
  assert.match(JSON.stringify(badRef.content), /city/);
  const badIf = await tool.call({ name: 'Ada', kind: 'work' }, callContext());
  assert.equal(badIf.isError, true, 'if/then applies: work needs an address');
  const extra = await tool.call({ name: 'Ada', other: 1 }, callContext());
  assert.equal(extra.isError, true, 'additionalProperties: false holds');
  await catalog.dispose();
});

test('the top-level properties are the declared names: an undeclared template variable is an error', async () => {
  const found = await problems(
    manifest(`    inputSchema: ${JSON.stringify(SCHEMA)}\n    content: [{ text: "{{nickname}}" }]\n`),
  );
  assert.equal(found.length, 1);
  assert.match(found[0]!, /^TEMPLATE_UNKNOWN_VARIABLE .*nickname/);
});

test('SQL :params are read from the verbatim properties', async () => {
  const catalog = await compile(
    `server: { name: t, version: 1.0.0 }\nsources: { db: { kind: sqlite, path: ":memory:" } }\ntools:\n` +
      '  echo:\n    kind: sql\n    source: db\n    description: Echoes.\n' +
      '    sql: "SELECT :word AS word"\n' +
      `    inputSchema: { type: object, properties: { word: { type: string } }, required: [word] }\n`,
  );
  const result = await catalog.tools.get('echo')!.call({ word: 'hi' }, callContext());
  assert.equal(result.isError, undefined, JSON.stringify(result.content));
  assert.match(JSON.stringify(result), /"word":"hi"/);
  await catalog.dispose();
  const missing = await problems(
    `server: { name: t, version: 1.0.0 }\nsources: { db: { kind: sqlite, path: ":memory:" } }\ntools:\n` +
      '  echo:\n    kind: sql\n    source: db\n    description: Echoes.\n' +
      '    sql: "SELECT :word AS word"\n' +
      `    inputSchema: { type: object, properties: { other: { type: string } } }\n`,
  );
  assert.equal(missing.length, 1);
  assert.match(missing[0]!, /word/);
});

test('input and inputSchema together, a non-object schema and an invalid schema are manifest errors', async () => {
  const both = await problems(
    manifest(
      '    input: { name: { type: string } }\n    inputSchema: { type: object, properties: { name: { type: string } } }\n    content: [{ text: hi }]\n',
    ),
  );
  assert.deepEqual(
    both.map((p) => p.split(' ')[0]),
    ['MANIFEST_INVALID_VALUE'],
  );
  assert.match(both[0]!, /`input:` or `inputSchema:`, not both/);
  const notObject = await problems(
    manifest('    inputSchema: { type: string }\n    content: [{ text: hi }]\n'),
  );
  assert.equal(notObject.length, 1);
  const invalid = await problems(
    manifest(
      '    inputSchema: { type: object, properties: { n: { type: 12 } } }\n    content: [{ text: hi }]\n',
    ),
  );
  assert.deepEqual(
    invalid.map((p) => p.split(' ')[0]),
    ['SCHEMA_INVALID'],
  );
});
