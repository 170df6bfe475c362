/**
 * recipes/petstore, imported from its openapi.yaml and edited by hand, served by the built CLI over
 * stdio to the official SDK v2 client against a Petstore stand-in on 127.0.0.1; and re-imported with
 * `--merge` on a copy, to show the hand edits survive a changed document.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { parse } from 'yaml';
import { CLI, REPO, tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';
import { type PetstoreStandIn, startPetstore } from '../openapi/petstore-stand-in.js';

const RECIPE = join(REPO, 'recipes/petstore');
const MANIFEST = join(RECIPE, 'mcp.yaml');

interface Result {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

describe('recipes/petstore', () => {
  let store: PetstoreStandIn;
  const client = new Client(
    { name: 'recipe-petstore', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as Result;
  const last = () => store.seen.at(-1)!;

  before(async () => {
    store = await startPetstore();
    const env = { ...(process.env as Record<string, string>), PETSTORE_BASE_URL: `${store.origin}/api` };
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, MANIFEST], env, stderr: 'pipe' }),
    );
  });
  after(async () => {
    await client.close();
    await store.close();
  });

  test('validates as committed, with the public Petstore as the default base URL', () => {
    const run = runCli(['validate', MANIFEST], { env: { ...process.env, PETSTORE_BASE_URL: '' } });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /is valid: 4 tools/);
  });

  test('lists the four tools with the hand-written descriptions and the method annotations', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => [
        t.name,
        t.annotations?.readOnlyHint ?? false,
        t.annotations?.destructiveHint ?? false,
      ]),
      [
        ['find_pets', true, false],
        ['add_pet', false, false],
        ['find_pet_by_id', true, false],
        ['delete_pet', false, true],
      ],
    );
    assert.equal(tools[1]!.title, 'Add a pet');
    assert.match(tools[0]!.description ?? '', /^The pets in the store/);
    assert.deepEqual(tools[0]!.inputSchema.properties?.limit, {
      type: 'integer',
      format: 'int32',
      description: 'maximum number of results to return',
      default: 20,
      maximum: 100,
    });
  });

  test('finds pets by tag, a page of 20 by default, as one line per pet', async () => {
    const dogs = await call('find_pets', { tags: ['dog'] });
    assert.equal(last().url, '/api/pets?tags=dog&limit=20');
    assert.equal(dogs.content[0]!.text, '#1 Fido (dog)\n#3 Rex (dog)\n');
    assert.deepEqual(dogs.structuredContent, {
      result: [
        { id: 1, name: 'Fido', tag: 'dog' },
        { id: 3, name: 'Rex', tag: 'dog' },
      ],
    });
    const none = await call('find_pets', { tags: ['parrot'] });
    assert.equal(none.content[0]!.text, 'No pets.');
  });

  test('adds a pet, finds it by id, deletes it; a pet that is gone is an error the model can read', async () => {
    const added = await call('add_pet', { name: 'Kit', tag: 'cat' });
    assert.equal(added.isError, undefined, added.content[0]?.text);
    assert.deepEqual(JSON.parse(last().body), { name: 'Kit', tag: 'cat' });
    assert.equal(last().headers['content-type'], 'application/json');
    const { id } = added.structuredContent as { id: number };
    assert.deepEqual((await call('find_pet_by_id', { id })).structuredContent, {
      id,
      name: 'Kit',
      tag: 'cat',
    });
    const deleted = await call('delete_pet', { id });
    assert.equal(deleted.content[0]!.text, `DELETE /api/pets/${id} returned 204 No Content with no content.`);
    const gone = await call('find_pet_by_id', { id });
    assert.equal(gone.isError, true);
    assert.equal(
      gone.content[0]!.text,
      `GET /api/pets/${id} returned 404 Not Found: {"code":404,"message":"pet ${id} not found"}\nIt does not exist, or the credentials cannot see it.`,
    );
    const bad = await call('find_pet_by_id', { id: 'seven' });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0]!.text, /id must be integer/);
  });

  test('re-importing with --merge keeps the hand edits: a no-op as committed, an update when the API changes', () => {
    const copy = tempFiles({});
    try {
      cpSync(RECIPE, copy.dir, { recursive: true });
      const manifest = join(copy.dir, 'mcp.yaml');
      const spec = join(copy.dir, 'openapi.yaml');
      const same = runCli(['import', 'openapi', spec, '-o', manifest, '--merge']);
      assert.equal(same.code, 0, same.stderr);
      assert.equal(readFileSync(manifest, 'utf8'), readFileSync(MANIFEST, 'utf8'));

      writeFileSync(
        spec,
        readFileSync(spec, 'utf8')
          .replace('description: ID of pet to delete', 'description: The id of the pet to remove')
          .replace(
            'components:',
            `  /pets/{id}/adopt:\n    post:\n      operationId: adoptPet\n      parameters:\n        - { name: id, in: path, required: true, schema: { type: integer } }\n      responses: { '204': { description: adopted } }\ncomponents:`,
          ),
      );
      const changed = runCli(['import', 'openapi', spec, '-o', manifest, '--merge']);
      assert.equal(changed.code, 0, changed.stderr);
      assert.equal(
        changed.stdout,
        `Merged into ${manifest}: tools 1 added (adopt_pet), 1 updated (delete_pet), 0 removed.\n`,
      );
      const after = parse(readFileSync(manifest, 'utf8'));
      assert.equal(after.tools.delete_pet.input.id.description, 'The id of the pet to remove');
      assert.match(after.tools.delete_pet.description, /^Removes a pet from the store for good/);
      assert.equal(after.tools.find_pets.input.limit.default, 20);
      assert.equal(after.tools.adopt_pet.path, '/pets/{id}/adopt');
      assert.match(
        readFileSync(manifest, 'utf8'),
        /# The document's description is a lorem ipsum; this one is for the model\./,
      );
      assert.equal(runCli(['validate', manifest]).code, 0);
    } finally {
      copy.cleanup();
    }
  });
});
