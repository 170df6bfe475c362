/**
 * `--update` over two real releases of the Petstore description (test/openapi/fixtures/README.md):
 * the manifest imported from the older one (`petstore-01c58eba.yaml`) is edited as an author would
 * (a renamed tool, an edited description, a removed tool, added output shaping), then updated
 * from the newer one (`petstore.yaml`), which narrows `limit`, gives `createPets` a body, and has
 * `showPetById` answer one pet instead of a list. Each edit must stay, each upstream change arrive,
 * and the printed contract diff name them.
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
copyFileSync(join(FIXTURES, 'petstore-01c58eba.yaml'), join(dir, 'petstore-old.yaml'));
copyFileSync(join(FIXTURES, 'petstore.yaml'), join(dir, 'petstore-new.yaml'));
const file = (name: string) => join(dir, name);
const cli = (...args: string[]) => runCli(args, { cwd: dir });

/** The author's edits, as they would make them by hand (through the yaml Document API). */
function edit(manifest: string, change: (doc: ReturnType<typeof parseDocument>) => void): void {
  const doc = parseDocument(readFileSync(file(manifest), 'utf8'));
  change(doc);
  writeFileSync(file(manifest), doc.toString());
}

describe('import openapi --update across two Petstore releases', () => {
  it('keeps each kind of edit, brings the new release in, and prints what changed', () => {
    assert.equal(cli('import', 'openapi', 'petstore-old.yaml', '-o', 'mcp.yaml').code, 0);
    const before: Json = parse(readFileSync(file('mcp.yaml'), 'utf8'));
    assert.deepEqual(Object.keys(before.tools), ['list_pets', 'create_pets', 'show_pet_by_id']);
    assert.equal(before.tools.create_pets.body, undefined); // the old release's POST has no body

    edit('mcp.yaml', (doc) => {
      const show = doc.getIn(['tools', 'show_pet_by_id']);
      doc.deleteIn(['tools', 'show_pet_by_id']);
      doc.setIn(['tools', 'get_pet'], show);
      doc.setIn(['tools', 'get_pet', 'output'], { pick: '{id, name}' });
      doc.setIn(['tools', 'list_pets', 'description'], 'List the pets, a page at a time.');
      doc.deleteIn(['tools', 'create_pets']);
    });
    assert.equal(cli('validate', 'mcp.yaml').code, 0);

    const run = cli('import', 'openapi', 'petstore-new.yaml', '--update', 'mcp.yaml');
    assert.equal(run.code, 0, run.stderr);
    const after: Json = parse(readFileSync(file('mcp.yaml'), 'utf8'));
    assert.deepEqual(Object.keys(after.tools), ['list_pets', 'get_pet']);

    // The edits stay: the rename, the description, the removal, the output shaping.
    assert.equal(after.tools.show_pet_by_id, undefined);
    assert.equal(after.tools.list_pets.description, 'List the pets, a page at a time.');
    assert.equal(after.tools.create_pets, undefined);
    assert.deepEqual(after.tools.get_pet.output, { pick: '{id, name}' });

    // The new release arrives: the narrower `limit`, one pet (not a list) from showPetById, the
    // schemas' new keywords, under the names the author gave.
    assert.equal(after.tools.list_pets.input.limit.maximum, 100);
    assert.deepEqual(after.tools.get_pet.outputSchema, { type: 'object', $ref: '#/schemas/Pet' });
    assert.equal(after.schemas.Pets.maxItems, 100);
    assert.equal(after.schemas.Pet.type, 'object');

    // The removed tool changed upstream (it gained a body): the author is told, and it stays out.
    assert.match(
      run.stderr,
      /warning: tools\.create_pets: you removed it, and the document changed its operation \(POST \/pets\) since: still removed/,
    );
    assert.match(
      run.stdout,
      /Merged into mcp\.yaml: tools 0 added, 2 updated \(list_pets, get_pet\), 0 removed\./,
    );
    assert.ok(
      run.stdout.endsWith(
        [
          'What changed for clients:',
          'breaking  tool `list_pets` input `limit` maximum 100 added',
          'additive  tool `list_pets` output `result[]` type narrowed from any to "object"',
          'additive  tool `list_pets` output `result` maxItems 100 added',
          'breaking  tool `get_pet` output `result` removed',
          'additive  tool `get_pet` output `id` added (required)',
          'additive  tool `get_pet` output `name` added (required)',
          'additive  tool `get_pet` output `tag` added (optional)',
          '',
          '2 changed, 2 breaking: tool `list_pets` input `limit` maximum 100 added; tool `get_pet` output `result` removed',
          '',
        ].join('\n'),
      ),
      run.stdout,
    );
    assert.equal(cli('validate', 'mcp.yaml').code, 0);

    // Updating again from the same release changes nothing and says so.
    const again = cli('import', 'openapi', 'petstore-new.yaml', '--update', 'mcp.yaml');
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /What changed for clients:\nno contract change/);
    assert.deepEqual(parse(readFileSync(file('mcp.yaml'), 'utf8')), after);
  });

  it('matches an operation whose operationId changed upstream by method and path', () => {
    assert.equal(cli('import', 'openapi', 'petstore-old.yaml', '-o', 'ids.yaml').code, 0);
    edit('ids.yaml', (doc) => {
      doc.setIn(['tools', 'show_pet_by_id', 'description'], 'One pet, by its id.');
      const list = doc.getIn(['tools', 'list_pets']);
      doc.deleteIn(['tools', 'list_pets']);
      doc.setIn(['tools', 'pets'], list);
    });
    // The newer release, with both operations renamed by the API's authors.
    const renamed = readFileSync(file('petstore-new.yaml'), 'utf8')
      .replace('operationId: showPetById', 'operationId: getPet')
      .replace('operationId: listPets', 'operationId: findPets');
    writeFileSync(file('petstore-ids.yaml'), renamed);

    const run = cli('import', 'openapi', 'petstore-ids.yaml', '--update', 'ids.yaml');
    assert.equal(run.code, 0, run.stderr);
    const manifest: Json = parse(readFileSync(file('ids.yaml'), 'utf8'));
    // One tool per operation, under the names the clients know, with the new release's changes.
    assert.deepEqual(Object.keys(manifest.tools), ['create_pets', 'show_pet_by_id', 'pets']);
    assert.equal(manifest.tools.show_pet_by_id.description, 'One pet, by its id.');
    assert.deepEqual(manifest.tools.show_pet_by_id.outputSchema, { type: 'object', $ref: '#/schemas/Pet' });
    assert.equal(manifest.tools.pets.input.limit.maximum, 100);
    assert.match(
      run.stderr,
      /warning: tools\.show_pet_by_id: the document renamed its operation \(GET \/pets\/\{petId\}\): kept as show_pet_by_id, updated from the new operation \(a new import would name it get_pet\)/,
    );
    assert.doesNotMatch(run.stdout, /tool `(get_pet|find_pets)` added|tool `(show_pet_by_id|pets)` removed/);
    assert.match(run.stdout, /tools 0 added, 3 updated \(pets, create_pets, show_pet_by_id\), 0 removed/);

    // The next update from the same release sees the same tools, and no change.
    const again = cli('import', 'openapi', 'petstore-ids.yaml', '--update', 'ids.yaml');
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /What changed for clients:\nno contract change/);
    assert.deepEqual(parse(readFileSync(file('ids.yaml'), 'utf8')), manifest);
  });

  it('follows a tool the author renamed to the name the upstream operation now gives', () => {
    assert.equal(cli('import', 'openapi', 'petstore-old.yaml', '-o', 'same.yaml').code, 0);
    edit('same.yaml', (doc) => {
      const show = doc.getIn(['tools', 'show_pet_by_id']);
      doc.deleteIn(['tools', 'show_pet_by_id']);
      doc.setIn(['tools', 'get_pet'], show);
      doc.setIn(['tools', 'get_pet', 'description'], 'One pet, by its id.');
    });
    // The API's authors picked the author's name too: showPetById became getPet (tool get_pet).
    const renamed = readFileSync(file('petstore-new.yaml'), 'utf8').replace(
      'operationId: showPetById',
      'operationId: getPet',
    );
    writeFileSync(file('petstore-same.yaml'), renamed);
    const run = cli('import', 'openapi', 'petstore-same.yaml', '--update', 'same.yaml');
    assert.equal(run.code, 0, run.stderr);
    const manifest: Json = parse(readFileSync(file('same.yaml'), 'utf8'));
    assert.deepEqual(Object.keys(manifest.tools), ['list_pets', 'create_pets', 'get_pet']);
    assert.equal(manifest.tools.get_pet.description, 'One pet, by its id.');
    assert.deepEqual(manifest.tools.get_pet.outputSchema, { type: 'object', $ref: '#/schemas/Pet' });
    assert.doesNotMatch(run.stderr, /you removed it/);
    const again = cli('import', 'openapi', 'petstore-same.yaml', '--update', 'same.yaml');
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(parse(readFileSync(file('same.yaml'), 'utf8')), manifest);
  });

  it('drops the shared schemas a release stops using, unless a kept tool still uses them', () => {
    // A release that withdraws both GETs (the only users of the Pets and Pet schemas).
    writeFileSync(
      file('withdraw.yaml'),
      `overlay: 1.0.0
info: { title: Withdraw the GETs, version: 1.0.0 }
actions:
  - target: "$.paths['/pets'].get"
    remove: true
  - target: "$.paths['/pets/{petId}']"
    remove: true
`,
    );
    for (const name of ['kept.yaml', 'plain.yaml']) {
      assert.equal(cli('import', 'openapi', 'petstore-new.yaml', '-o', name).code, 0);
    }
    // In one, the author edited list_pets (so it stays, and needs Pets and Pet) and renamed
    // show_pet_by_id (an operation that goes: it goes, and they are told).
    edit('kept.yaml', (doc) => {
      doc.setIn(['tools', 'list_pets', 'description'], 'Every pet, a page at a time.');
      const show = doc.getIn(['tools', 'show_pet_by_id']);
      doc.deleteIn(['tools', 'show_pet_by_id']);
      doc.setIn(['tools', 'get_pet'], show);
    });

    const kept = cli(
      'import',
      'openapi',
      'petstore-new.yaml',
      '--overlay',
      'withdraw.yaml',
      '--update',
      'kept.yaml',
    );
    assert.equal(kept.code, 0, kept.stderr);
    const manifest: Json = parse(readFileSync(file('kept.yaml'), 'utf8'));
    assert.deepEqual(Object.keys(manifest.tools), ['list_pets', 'create_pets']);
    assert.deepEqual(Object.keys(manifest.schemas), ['Pets', 'Pet']);
    assert.match(
      kept.stderr,
      /warning: tools\.list_pets is no longer generated from the document, but you edited it: kept/,
    );
    assert.match(
      kept.stderr,
      /warning: tools\.get_pet \(show_pet_by_id as imported, renamed by you\): its operation \(GET \/pets\/\{petId\}\) is gone from the document: removed/,
    );
    assert.match(
      kept.stderr,
      /warning: schemas\.Pets is no longer generated from the document, but the manifest still references it: kept/,
    );
    assert.ok(kept.stdout.includes('breaking  tool `get_pet` removed\n'), kept.stdout);
    assert.equal(cli('validate', 'kept.yaml').code, 0);

    // In the other, nothing uses them any more: they go with the tools.
    const plain = cli(
      'import',
      'openapi',
      'petstore-new.yaml',
      '--overlay',
      'withdraw.yaml',
      '--update',
      'plain.yaml',
    );
    assert.equal(plain.code, 0, plain.stderr);
    const bare: Json = parse(readFileSync(file('plain.yaml'), 'utf8'));
    assert.deepEqual(Object.keys(bare.tools), ['create_pets']);
    assert.equal(bare.schemas, undefined); // the emptied section goes, with its comment
    assert.doesNotMatch(readFileSync(file('plain.yaml'), 'utf8'), /^schemas:/m);
    assert.doesNotMatch(plain.stderr, /schemas\.\w+ is no longer generated/);
    assert.equal(cli('validate', 'plain.yaml').code, 0);
  });
});
