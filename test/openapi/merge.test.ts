/**
 * `--merge`: a manifest generated from version 1 of a document, edited by hand, then merged with
 * version 2. Untouched fields follow the document, edits stay, new operations arrive, removed ones
 * go only when untouched, and comments survive.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse, parseDocument } from 'yaml';
import { toText } from '../../src/openapi/document.js';
import type { Generated } from '../../src/openapi/generate.js';
import { equal, mergeInto, sidecarOf } from '../../src/openapi/merge.js';
import { compile, importText, render } from './helpers.js';

const V1 = `openapi: 3.0.3
info: { title: Pets, version: 1.0.0 }
servers: [{ url: https://pets.example.com/v1 }]
paths:
  /pets:
    get:
      operationId: listPets
      summary: List all pets
      parameters: [{ name: limit, in: query, description: How many, schema: { type: integer } }]
      responses: { '200': { description: ok, content: { application/json: { schema: { type: array, items: { type: object } } } } } }
    post:
      operationId: createPet
      requestBody: { content: { application/json: { schema: { type: object, properties: { name: { type: string } } } } } }
      responses: { '201': { description: created } }
  /pets/{petId}:
    get:
      operationId: showPetById
      summary: Info for a pet
      parameters: [{ name: petId, in: path, required: true, schema: { type: string } }]
      responses: { '200': { description: ok } }
    delete:
      operationId: deletePet
      parameters: [{ name: petId, in: path, required: true, schema: { type: string } }]
      responses: { '204': { description: gone } }
  /stats:
    get:
      operationId: getStats
      responses: { '200': { description: ok } }
`;

/** Version 2: listPets changed and grew a parameter, showPetById re-described, createPet and deletePet gone, updatePet new. */
const V2 = V1.replace('summary: List all pets', 'summary: List the pets')
  .replace('description: How many,', 'description: How many pets at most,')
  .replace(
    'schema: { type: integer } }]',
    'schema: { type: integer } }, { name: tag, in: query, schema: { type: string } }]',
  )
  .replace('summary: Info for a pet', 'summary: One pet by its id')
  .replace(/ {4}post:\n(.*\n){3}/, '')
  .replace(/ {4}delete:\n(.*\n){3}/, '')
  .replace(
    '  /stats:',
    `    patch:
      operationId: updatePet
      parameters: [{ name: petId, in: path, required: true, schema: { type: string } }]
      responses: { '200': { description: ok } }
  /stats:`,
  );

/** What a user does to the generated manifest between the two imports. */
function edit(text: string): string {
  const doc = parseDocument(text);
  doc.setIn(['tools', 'list_pets', 'output'], doc.createNode({ pick: '[*].name' }));
  const listPets = doc.getIn(['tools', 'list_pets'], true) as { commentBefore?: string };
  listPets.commentBefore = ' my note: keep the names only';
  doc.setIn(['tools', 'show_pet_by_id', 'description'], 'Look one pet up.');
  doc.setIn(['tools', 'delete_pet', 'annotations'], doc.createNode({ destructiveHint: true }));
  doc.deleteIn(['tools', 'get_stats']);
  return toText(doc);
}

function merge(text: string, previous: Generated | undefined, next: Generated) {
  const doc = parseDocument(text);
  const report = mergeInto(doc, previous && sidecarOf(previous, 'spec.yaml', {}), next);
  return { text: toText(doc), report };
}

describe('merging a changed document into an edited manifest', () => {
  const v1 = importText(V1);
  const v2 = importText(V2);
  const edited = edit(render(v1));
  const { text, report } = merge(edited, v1, v2);
  const tools = parse(text).tools;

  test('the rendered manifest reads back as exactly what was generated (so "untouched" is exact)', () => {
    const back = parse(render(v1));
    for (const t of v1.tools) assert.ok(equal(back.tools[t.name], t.config), t.name);
    assert.ok(equal(back.sources.pets, v1.source.config));
  });

  test('fields the user did not touch follow the document; new fields arrive', () => {
    assert.equal(tools.list_pets.description, 'List the pets');
    assert.equal(tools.list_pets.input.limit.description, 'How many pets at most');
    assert.deepEqual(tools.list_pets.input.tag, { type: 'string', required: false });
    assert.deepEqual(tools.list_pets.query, { limit: '{{limit}}', tag: '{{tag}}' });
    assert.deepEqual(report.updated, ['list_pets']);
  });

  test('the user edits stay: an added field, a changed description (with a warning), a comment', () => {
    assert.deepEqual(tools.list_pets.output, { pick: '[*].name' });
    assert.equal(tools.show_pet_by_id.description, 'Look one pet up.');
    assert.ok(
      report.warnings.includes(
        'tools.show_pet_by_id.description keeps your edit; the document changed it too (re-check it)',
      ),
    );
    assert.match(text, /list_pets:\n\s+# my note: keep the names only\n/);
    assert.match(text, /# GET \/pets \(listPets\)/, 'the generated comments are kept too');
  });

  test('new operations are added; removed ones go when untouched and stay, with a warning, when edited', () => {
    assert.deepEqual(report.added, ['update_pet']);
    assert.equal(tools.update_pet.method, 'PATCH');
    assert.match(text, /# PATCH \/pets\/\{petId\} \(updatePet\)\n\s+update_pet:/);
    assert.deepEqual(report.removed, ['create_pet']);
    assert.equal(tools.create_pet, undefined);
    assert.deepEqual(tools.delete_pet.annotations, { destructiveHint: true });
    assert.ok(
      report.warnings.includes(
        'tools.delete_pet is no longer generated from the document, but you edited it: kept',
      ),
    );
  });

  test('a tool the user deleted is not brought back', () => {
    assert.equal(tools.get_stats, undefined);
    assert.equal(report.added.includes('get_stats'), false);
  });

  test('the merged manifest compiles, and merging the same document again changes nothing', async () => {
    const catalog = await compile(v2, {});
    await catalog.dispose();
    const again = merge(text, v2, v2);
    assert.equal(again.text, text);
    assert.deepEqual([again.report.added, again.report.updated, again.report.removed], [[], [], []]);
    assert.equal(again.report.changed, false, 'so the command leaves the file untouched');
    assert.equal(report.changed, true);
  });

  test('without a record of the last import, existing entries are kept as they are and new ones added', () => {
    const { text: merged, report: r } = merge(edited, undefined, v2);
    const t = parse(merged).tools;
    assert.equal(
      t.list_pets.description,
      'List all pets',
      'no record: cannot tell an edit from the old value',
    );
    assert.ok(t.create_pet, 'nothing is removed without a record');
    assert.deepEqual(r.added, ['update_pet', 'get_stats']);
    assert.match(r.warnings[0] ?? '', /no record of the last import/);
  });
});

describe('the escape of the imported text across merges', () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's reference syntax, as text
  const said = 'Reads ${env:X}';
  const written = 'Reads $${env:X}';
  const doc = V1.replace('summary: List all pets', `summary: ${JSON.stringify(said)}`);
  const now = importText(doc);
  /** What an import before the escape wrote: the document's text as it was, `${` live. */
  const unescaped = <T>(value: T): T => JSON.parse(JSON.stringify(value).replaceAll('$${', '${'));
  const before: Generated = {
    ...now,
    server: unescaped(now.server),
    tools: now.tools.map((t) => ({ ...t, config: unescaped(t.config) })),
  };

  test('a manifest imported before the escape gets it from the next merge (where not edited)', () => {
    const { text, report } = merge(render(before), before, now);
    assert.equal(parse(text).tools.list_pets.description, written);
    assert.deepEqual(report.updated, ['list_pets']);
  });

  test('merging the same document again neither doubles nor drops the escape', () => {
    const first = render(now);
    const { text, report } = merge(first, now, importText(doc));
    assert.equal(text, first);
    assert.equal(report.changed, false);
    assert.equal(parse(text).tools.list_pets.description, written);
  });
});
