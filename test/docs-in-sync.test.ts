/**
 * Files that are generated from, or document, the code must not drift from it: the committed
 * manifest JSON Schema, and the errors catalogue in docs/errors.md.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { problems } from '../src/errors.js';
import { builtinKinds } from '../src/kinds/builtin.js';
import { manifestJsonSchema } from '../src/manifest/json-schema.js';
import { renderReference } from '../src/manifest/reference.js';
import { REPO } from './helpers/demo.js';

test('schemas/manifest.schema.json is the schema the kinds generate (run `npm run schema`)', () => {
  const committed = JSON.parse(readFileSync(join(REPO, 'schemas/manifest.schema.json'), 'utf8'));
  assert.deepEqual(committed, manifestJsonSchema(builtinKinds()));
});

test('docs/manifest.md is the reference the schema renders (run `npm run schema`)', () => {
  const committed = readFileSync(join(REPO, 'docs/manifest.md'), 'utf8');
  assert.equal(committed, renderReference(manifestJsonSchema(builtinKinds())));
});

test('docs/errors.md documents every error code, and only those', () => {
  const documented = [...readFileSync(join(REPO, 'docs/errors.md'), 'utf8').matchAll(/^## ([A-Z_]+)$/gm)].map(
    (m) => m[1],
  );
  assert.deepEqual(documented.sort(), Object.keys(problems).sort());
});

test('mcp.yaml.example points editors at the committed schema', () => {
  const first = readFileSync(join(REPO, 'mcp.yaml.example'), 'utf8').split('\n')[0];
  assert.equal(first, '# yaml-language-server: $schema=./schemas/manifest.schema.json');
});
