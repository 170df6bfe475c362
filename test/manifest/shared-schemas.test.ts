/**
 * `schemas:` — JSON Schemas written once and referenced as `$ref: '#/schemas/Name'` from a tool's
 * `input` properties, `inputSchema` and `outputSchema`: each tool's schema is served
 * self-contained (the shared ones it reaches under `$defs`), arguments are validated through the
 * references, and a reference to an undeclared schema is an error with a did-you-mean.
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
import { expandSharedSchemas } from '../../src/manifest/schemas.js';
import { callContext, tempDir } from '../kinds/context.js';

const dir = tempDir('mcp-run-shared-schemas-');
const registry = builtinKinds();
let files = 0;

async function compile(text: string) {
  const path = join(dir, `mcp-${files++}.yaml`);
  writeFileSync(path, text);
  return compileCatalog(await loadManifest(path, registry, {}), registry, new StderrLogger('silent'));
}

const SHARED = `schemas:
  Address:
    type: object
    properties: { city: { type: string }, next: { $ref: '#/schemas/Address' } }
    required: [city]
  Person:
    type: object
    properties: { name: { type: string }, home: { $ref: '#/schemas/Address' } }
    required: [name]
  Unused: { type: string }
`;

test('a tool that references a shared schema is served with it (and what it reaches) under $defs', async () => {
  const catalog = await compile(
    `server: { name: t, version: 1.0.0 }\n${SHARED}tools:\n  greet:\n    kind: content\n    description: Greets.\n` +
      "    input:\n      who: { $ref: '#/schemas/Person' }\n" +
      '    content: [{ text: "hi {{who.name}}" }]\n' +
      '  shape:\n    kind: content\n    description: Shows a shape.\n' +
      "    outputSchema: { type: object, properties: { p: { $ref: '#/schemas/Person' } } }\n" +
      '    content: [{ text: "{}" }]\n',
  );
  const d = catalog.tools.get('greet')!.descriptor;
  const out = catalog.tools.get('shape')!.descriptor.outputSchema as Record<string, any>;
  assert.equal(out.properties.p.$ref, '#/$defs/Person');
  assert.deepEqual(Object.keys(out.$defs).sort(), ['Address', 'Person'], 'only what it reaches');
  assert.equal(
    out.$defs.Address.properties.next.$ref,
    '#/$defs/Address',
    'a recursive schema stays a reference',
  );
  const who = (d.inputSchema as Record<string, any>).properties.who;
  assert.equal(who.$ref, '#/properties/who/$defs/Person');
  assert.deepEqual(Object.keys(who.$defs).sort(), ['Address', 'Person']);

  const tool = catalog.tools.get('greet')!;
  const ok = await tool.call({ who: { name: 'Ada', home: { city: 'London' } } }, callContext());
  assert.deepEqual(ok.content, [{ type: 'text', text: 'hi Ada' }]);
  const bad = await tool.call({ who: { name: 'Ada', home: { street: 'x' } } }, callContext());
  assert.equal(bad.isError, true, 'the reference is followed: home.city is required');
  assert.match(JSON.stringify(bad.content), /city/);
  await catalog.dispose();
});

test('a reference to an undeclared schema: SCHEMA_UNKNOWN at the $ref, with a did-you-mean', async () => {
  const err = await compile(
    `server: { name: t, version: 1.0.0 }\n${SHARED}tools:\n  greet:\n    kind: content\n    description: Greets.\n` +
      "    outputSchema: { type: object, properties: { p: { $ref: '#/schemas/Persn' } } }\n" +
      '    content: [{ text: hi }]\n',
  ).then(
    () => assert.fail('compiled'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ManifestError, String(err));
  assert.equal(err.diagnostics.length, 1);
  const [d] = err.diagnostics;
  assert.equal(d!.code, 'SCHEMA_UNKNOWN');
  assert.match(d!.message, /schemas\.Persn.*did you mean "?Person/i);
  assert.equal(d!.line, 16);
});

test('only the way to a reference is copied: the rest, and the data as given, stay as they were', () => {
  const label = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
  const plain = { type: 'object', properties: { q: { type: 'string', enum: ['a', 'b'] } } };
  const untouched = { type: 'array', items: { type: 'integer' } };
  const output = { type: 'object', properties: { label: { $ref: '#/schemas/Label' }, list: untouched } };
  const data = {
    schemas: { Label: label },
    tools: { a: { kind: 'http', outputSchema: output, inputSchema: plain } },
  };
  const given = JSON.stringify(data);
  assert.deepEqual(expandSharedSchemas(data), []);
  const tool = data.tools.a as Record<string, any>;
  assert.equal(tool.inputSchema, plain, 'a schema without a reference is the same object');
  assert.equal(
    tool.outputSchema.properties.list,
    untouched,
    'beside a reference, what is unchanged is shared',
  );
  assert.equal(tool.outputSchema.properties.label.$ref, '#/$defs/Label');
  assert.equal(
    tool.outputSchema.$defs.Label,
    label,
    'a definition with no reference of its own is shared too',
  );
  assert.equal(output.properties.label.$ref, '#/schemas/Label', 'the schema as written is left as it was');
  assert.equal(
    JSON.stringify({ schemas: data.schemas }),
    JSON.stringify({ schemas: JSON.parse(given).schemas }),
  );
});
