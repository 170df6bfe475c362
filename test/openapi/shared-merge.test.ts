/**
 * `--merge` and the shared schemas: a re-import of an unchanged document changes nothing, and a
 * changed component is updated under `schemas:` while an edit to another one is kept.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import { tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';
import { FIXTURES } from './helpers.js';

const work = tempFiles({});
after(() => work.cleanup());

test('schemas: merged like entries, edits kept, document changes taken', () => {
  const original = readFileSync(join(FIXTURES, 'petstore-expanded.yaml'), 'utf8');
  const spec = join(work.dir, 'api.yaml');
  writeFileSync(spec, original);
  const out = join(work.dir, 'mcp.yaml');
  assert.equal(runCli(['import', 'openapi', spec, '-o', out]).code, 0);
  const first = readFileSync(out, 'utf8');
  const again = runCli(['import', 'openapi', spec, '-o', out, '--merge']);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(readFileSync(out, 'utf8'), first, 'nothing changed: the file is left as it was');

  // The user documents NewPet's name; the API changes Pet's id to int32.
  writeFileSync(out, first.replace(/(NewPet:[\s\S]*?name: \{ type: string)/, '$1, description: edited'));
  writeFileSync(spec, original.replace(/format: int64/g, 'format: int32'));
  const merged = runCli(['import', 'openapi', spec, '-o', out, '--merge']);
  assert.equal(merged.code, 0, merged.stderr);
  const schemas = parse(readFileSync(out, 'utf8')).schemas;
  assert.equal(schemas.NewPet.properties.name.description, 'edited');
  assert.equal(schemas.Pet.allOf[1].properties.id.format, 'int32');
  const check = runCli(['validate', out]);
  assert.equal(check.code, 0, check.stderr);
});
