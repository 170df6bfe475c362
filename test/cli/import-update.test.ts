/**
 * Imports that keep edits, as a user runs them with the built binary on the real Petstore
 * description: Overlay 1.0 documents applied before conversion (a filter target, a removal, an
 * update, an append), and `--update` re-importing a changed description into an edited manifest
 * while keeping each kind of edit (a renamed tool, an edited description, a removed tool, added
 * output shaping), then printing the contract diff of the result.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse, parseDocument } from 'yaml';
import { tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';
import { FIXTURES } from '../openapi/helpers.js';

type Json = any;

const work = tempFiles({});
after(() => work.cleanup());
const dir = work.dir;
copyFileSync(join(FIXTURES, 'petstore.yaml'), join(dir, 'petstore.yaml'));
const file = (name: string) => join(dir, name);
const cli = (...args: string[]) => runCli(args, { cwd: dir });

describe('import openapi --overlay', () => {
  it('applies the actions in order before converting', () => {
    writeFileSync(
      file('trim.yaml'),
      `overlay: 1.0.0
info: { title: Trim the Petstore, version: 1.0.0 }
actions:
  - target: "$.paths.*[?@.operationId=='createPets']"
    description: no writes through the model
    remove: true
  - target: "$.paths['/pets/{petId}'].get"
    update: { summary: "One pet, by its id" }
  - target: "$.paths['/pets'].get.parameters"
    update: { name: species, in: query, required: false, schema: { type: string, enum: [cat, dog] } }
  - target: "$.paths['/nowhere']"
    remove: true
`,
    );
    const run = cli('import', 'openapi', 'petstore.yaml', '--overlay', 'trim.yaml');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /warning: overlay actions\[3\] \(\$\.paths\['\/nowhere'\]\) selects nothing/);
    const manifest = parse(run.stdout);
    assert.deepEqual(Object.keys(manifest.tools), ['list_pets', 'show_pet_by_id']);
    assert.equal(manifest.tools.show_pet_by_id.description, 'One pet, by its id');
    assert.deepEqual(manifest.tools.list_pets.input.species, {
      type: 'string',
      enum: ['cat', 'dog'],
      required: false,
    });
    assert.match(run.stdout, /--overlay trim\.yaml/);
  });

  it('refuses a document that is not an overlay, and writes nothing', () => {
    writeFileSync(file('bad.yaml'), 'overlay: 2.0.0\nactions: []\n');
    const run = cli('import', 'openapi', 'petstore.yaml', '--overlay', 'bad.yaml', '-o', 'never.yaml');
    assert.equal(run.code, 1);
    assert.match(run.stderr, /OPENAPI_OVERLAY_INVALID/);
    assert.equal(run.stdout, '');
  });
});

describe('import openapi --update', () => {
  it('re-imports a changed description, keeps every kind of edit, and prints the contract diff', () => {
    assert.equal(cli('import', 'openapi', 'petstore.yaml', '-o', 'mcp.yaml').code, 0);
    // The author's edits: a rename, a description, a removal, output shaping.
    const doc = parseDocument(readFileSync(file('mcp.yaml'), 'utf8'));
    const listPets = doc.getIn(['tools', 'list_pets']);
    doc.deleteIn(['tools', 'list_pets']);
    doc.setIn(['tools', 'pets'], listPets);
    doc.setIn(['tools', 'show_pet_by_id', 'description'], 'One pet. Ask for its id first.');
    doc.deleteIn(['tools', 'create_pets']);
    doc.setIn(['tools', 'show_pet_by_id', 'output'], { pick: '{id, name}' });
    writeFileSync(file('mcp.yaml'), doc.toString());

    // The next release of the description: a new optional filter, a new operation, a new summary.
    writeFileSync(
      file('next.yaml'),
      `overlay: 1.0.0
info: { title: The next Petstore release, version: 1.1.0 }
actions:
  - target: "$.paths['/pets'].get.parameters"
    update: { name: species, in: query, required: false, schema: { type: string } }
  - target: "$.paths['/pets/{petId}'].get"
    update: { summary: Everything about one pet }
  - target: "$.paths"
    update:
      /pets/{petId}/photos:
        get:
          operationId: listPhotos
          summary: The photos of one pet
          parameters: [{ name: petId, in: path, required: true, schema: { type: string } }]
          responses: { "200": { description: the photos } }
`,
    );
    const run = cli('import', 'openapi', 'petstore.yaml', '--overlay', 'next.yaml', '--update', 'mcp.yaml');
    assert.equal(run.code, 0, run.stderr);
    const manifest: Json = parse(readFileSync(file('mcp.yaml'), 'utf8'));
    assert.deepEqual(Object.keys(manifest.tools), ['show_pet_by_id', 'pets', 'list_photos']);
    // The renamed tool got the new field under its new name.
    assert.deepEqual(manifest.tools.pets.input.species, { type: 'string', required: false });
    assert.equal(manifest.tools.list_pets, undefined);
    // The edited description and the output shaping stay; the removed tool stays removed.
    assert.equal(manifest.tools.show_pet_by_id.description, 'One pet. Ask for its id first.');
    assert.deepEqual(manifest.tools.show_pet_by_id.output, { pick: '{id, name}' });
    assert.equal(manifest.tools.create_pets, undefined);
    assert.match(
      run.stderr,
      /tools\.show_pet_by_id\.description keeps your edit; the document changed it too/,
    );
    assert.ok(
      run.stdout.endsWith(
        '\nWhat changed for clients:\nadditive  tool `pets` input `species` added (optional)\nadditive  tool `list_photos` added\n\n1 added, 1 changed\n',
      ),
      run.stdout,
    );
    assert.doesNotMatch(run.stdout, /breaking/);

    // The overlay is recorded: the next --update without it gives the same manifest, no change.
    const again = cli('import', 'openapi', 'petstore.yaml', '--update', 'mcp.yaml');
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /What changed for clients:\nno contract change/);
    assert.deepEqual(parse(readFileSync(file('mcp.yaml'), 'utf8')), manifest);
  });

  it('is bad usage beside -o, and an error on a manifest that does not exist', () => {
    assert.equal(cli('import', 'openapi', 'petstore.yaml', '--update', 'mcp.yaml', '-o', 'x.yaml').code, 2);
    const missing = cli('import', 'openapi', 'petstore.yaml', '--update', 'absent.yaml');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /MANIFEST_READ/);
  });

  it('refuses a manifest whose alias is inside its own anchor, and leaves the file as it was', () => {
    const text = 'tools:\n  t: &x\n    kind: content\n    text: hi\n    again: [*x]\n';
    writeFileSync(file('cyclic.yaml'), text);
    const run = cli('import', 'openapi', 'petstore.yaml', '--update', 'cyclic.yaml');
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /MANIFEST_YAML[\s\S]*\*x is inside the node &x names/);
    assert.equal(readFileSync(file('cyclic.yaml'), 'utf8'), text);
  });
});
