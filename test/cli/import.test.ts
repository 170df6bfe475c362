/**
 * `mcp-run import openapi` as a user runs it: the built binary on the real Petstore documents, its
 * output validated and served by the binary to the official SDK client, the tools called against a
 * Petstore stand-in on 127.0.0.1 (the base URL pointed at it through the environment), `--merge` on
 * an edited manifest, and bad input with its documented exit code.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse } from 'yaml';
import { CLI, tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';
import { FIXTURES } from '../openapi/helpers.js';
import { type PetstoreStandIn, startPetstore } from '../openapi/petstore-stand-in.js';

const work = tempFiles({});
after(() => work.cleanup());
const fixture = (name: string) => join(FIXTURES, name);

interface Result {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Serves `manifest` with the built CLI over stdio; returns a connected official client. */
async function serve(manifest: string, env: Record<string, string>) {
  const client = new Client({ name: 'import-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, manifest],
      env: { ...(process.env as Record<string, string>), ...env },
      stderr: 'pipe',
    }),
  );
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as Result;
  return { client, call };
}

/** Imports a fixture into the work folder; checks the exit code and that the result validates. */
function importTo(spec: string, out: string, extra: string[] = []): string {
  const manifest = join(work.dir, out);
  const run = runCli(['import', 'openapi', fixture(spec), '-o', manifest, ...extra]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^Wrote \d+ tools to /);
  const check = runCli(['validate', manifest]);
  assert.equal(check.code, 0, check.stderr);
  return manifest;
}

describe('import openapi on the fixtures', () => {
  for (const name of [
    'petstore.yaml',
    'petstore-expanded.yaml',
    'petstore.json',
    'petstore-expanded.json',
    'uspto.yaml',
  ]) {
    test(`${name}: exit 0, a manifest that validates, a record for --merge`, () => {
      const printed = runCli(['import', 'openapi', fixture(name)], { cwd: work.dir });
      assert.equal(printed.code, 0, printed.stderr);
      assert.match(printed.stdout, /^# yaml-language-server: \$schema=.*schemas\/manifest\.schema\.json\n/);
      const manifest = importTo(name, `${name}.mcp.yaml`);
      assert.deepEqual(
        parse(readFileSync(manifest, 'utf8')),
        parse(printed.stdout),
        '-o writes what is printed',
      );
      const record = JSON.parse(
        readFileSync(join(work.dir, `.mcp-run-import.${name}.mcp.yaml.json`), 'utf8'),
      );
      assert.deepEqual(Object.keys(record.tools), Object.keys(parse(readFileSync(manifest, 'utf8')).tools));
    });
  }
});

describe('the imported tools, served, against a Petstore stand-in', () => {
  let store: PetstoreStandIn;
  before(async () => {
    store = await startPetstore();
  });
  after(() => store.close());

  test('petstore.yaml (OpenAPI 3.0): list with a limit, show one, create one', async () => {
    const manifest = importTo('petstore.yaml', 'v3.yaml');
    const { client, call } = await serve(manifest, { PETSTORE_BASE_URL: `${store.origin}/v1` });
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => [t.name, t.annotations?.readOnlyHint ?? false]),
        [
          ['list_pets', true],
          ['create_pets', false],
          ['show_pet_by_id', true],
        ],
      );
      const listed = await call('list_pets', { limit: 2 });
      assert.equal(store.seen.at(-1)!.url, '/v1/pets?limit=2');
      assert.deepEqual(listed.structuredContent, {
        result: [
          { id: 1, name: 'Fido', tag: 'dog' },
          { id: 2, name: 'Tom', tag: 'cat' },
        ],
      });
      const tooMany = await call('list_pets', { limit: 500 });
      assert.equal(tooMany.isError, true);
      assert.match(
        tooMany.content[0]!.text,
        /limit must be <= 100/,
        'the schema maximum is checked before sending',
      );
      const one = await call('show_pet_by_id', { petId: '3' });
      assert.deepEqual(one.structuredContent, { id: 3, name: 'Rex', tag: 'dog' });
      const created = await call('create_pets', { id: 10, name: 'Nemo', tag: 'fish' });
      assert.equal(created.isError, undefined, created.content[0]?.text);
      assert.equal(created.content[0]!.text, 'POST /v1/pets returned 201 Created with no content.');
      assert.deepEqual(store.pets.at(-1), { id: 10, name: 'Nemo', tag: 'fish' });
      const missing = await call('show_pet_by_id', { petId: '99' });
      assert.equal(missing.isError, true);
      assert.match(
        missing.content[0]!.text,
        /^GET \/v1\/pets\/99 returned 404 Not Found: \{"code":404,"message":"pet 99 not found"\}/,
      );
    } finally {
      await client.close();
    }
  });

  test('petstore-expanded.yaml (OpenAPI 3.0): find by tags, add, find by id, delete', async () => {
    const manifest = importTo('petstore-expanded.yaml', 'expanded.yaml', ['--name', 'petstore']);
    const { call, client } = await serve(manifest, { PETSTORE_BASE_URL: `${store.origin}/api` });
    try {
      const dogs = await call('find_pets', { tags: ['dog'], limit: 5 });
      assert.equal(store.seen.at(-1)!.url, '/api/pets?tags=dog&limit=5');
      assert.deepEqual(
        (dogs.structuredContent!.result as { name: string }[]).map((p) => p.name),
        ['Fido', 'Rex'],
      );
      const added = await call('add_pet', { name: 'Kit', tag: 'cat' });
      const kit = added.structuredContent as { id: number; name: string };
      assert.equal(kit.name, 'Kit');
      assert.deepEqual(JSON.parse(store.seen.at(-1)!.body), { name: 'Kit', tag: 'cat' });
      assert.deepEqual((await call('find_pet_by_id', { id: kit.id })).structuredContent, {
        ...kit,
        tag: 'cat',
      });
      const deleted = await call('delete_pet', { id: kit.id });
      assert.equal(
        deleted.content[0]!.text,
        `DELETE /api/pets/${kit.id} returned 204 No Content with no content.`,
      );
      const gone = await call('find_pet_by_id', { id: kit.id });
      assert.equal(gone.isError, true);
      const { tools } = await client.listTools();
      assert.equal(tools.find((t) => t.name === 'delete_pet')?.annotations?.destructiveHint, true);
    } finally {
      await client.close();
    }
  });

  test('petstore.json (Swagger 2.0): the same calls, where showPetById answers an array', async () => {
    const manifest = importTo('petstore.json', 'v2.yaml');
    const { call, client } = await serve(manifest, {
      PETSTORE_BASE_URL: `${store.origin}/swagger/v1`,
    });
    try {
      const listed = await call('list_pets', { limit: 1 });
      assert.deepEqual(listed.structuredContent, { result: [{ id: 1, name: 'Fido', tag: 'dog' }] });
      const one = await call('show_pet_by_id', { petId: '2' });
      assert.deepEqual(one.structuredContent, { result: [{ id: 2, name: 'Tom', tag: 'cat' }] });
      assert.equal(store.seen.at(-1)!.url, '/swagger/v1/pets/2');
    } finally {
      await client.close();
    }
  });

  test('petstore-expanded.json (Swagger 2.0): tags joined with commas, as collectionFormat csv says', async () => {
    const manifest = importTo('petstore-expanded.json', 'expanded-v2.yaml');
    const { call, client } = await serve(manifest, { PETSTORE_BASE_URL: `${store.origin}/api` });
    try {
      const r = await call('find_pets', { tags: ['dog', 'cat'] });
      assert.equal(store.seen.at(-1)!.url, '/api/pets?tags=dog%2Ccat');
      assert.equal(
        (r.structuredContent!.result as unknown[]).length,
        store.pets.filter((p) => p.tag === 'dog' || p.tag === 'cat').length,
      );
    } finally {
      await client.close();
    }
  });
});

describe('--merge from the command line', () => {
  test('a changed document updates what was not edited and keeps what was', () => {
    const folder = tempFiles({ 'api.yaml': readFileSync(fixture('petstore.yaml'), 'utf8') });
    try {
      const spec = join(folder.dir, 'api.yaml');
      const manifest = join(folder.dir, 'mcp.yaml');
      assert.equal(
        runCli(['import', 'openapi', spec, '-o', manifest, '--operations', 'listPets,showPetById']).code,
        0,
      );
      writeFileSync(
        manifest,
        readFileSync(manifest, 'utf8').replace(
          'description: List all pets',
          'description: The pets, a page at a time.',
        ),
      );
      writeFileSync(
        spec,
        readFileSync(spec, 'utf8')
          .replace('How many items to return at one time (max 100)', 'Page size')
          .replace('description: The id of the pet to retrieve', 'description: The pet id'),
      );
      const merged = runCli(['import', 'openapi', spec, '-o', manifest, '--merge']);
      assert.equal(merged.code, 0, merged.stderr);
      assert.equal(
        merged.stdout,
        `Merged into ${manifest}: tools 0 added, 2 updated (list_pets, show_pet_by_id), 0 removed.\n`,
      );
      const tools = parse(readFileSync(manifest, 'utf8')).tools;
      assert.equal(tools.list_pets.description, 'The pets, a page at a time.');
      assert.equal(tools.list_pets.input.limit.description, 'Page size');
      assert.equal(tools.show_pet_by_id.input.petId.description, 'The pet id');
      assert.equal(tools.create_pets, undefined, 'the --operations of the first import are reused');
      assert.equal(runCli(['validate', manifest]).code, 0);
    } finally {
      folder.cleanup();
    }
  });
});

describe('bad input: a clear message and a documented exit code', () => {
  const bad = tempFiles({
    'not-openapi.yaml': 'server: { name: x }\ntools: {}\n',
    'broken.yaml':
      'openapi: 3.0.0\ninfo: { title: x, version: "1" }\npaths:\n  /a: { get: { responses: { "200": { $ref: "#/components/responses/Nope" } } } }\n',
    'garbled.json': '{ "openapi": "3.0.0", ',
    'mcp.yaml': 'tools: {}\n',
  });
  after(() => bad.cleanup());
  const run = (...args: string[]) => runCli(['import', 'openapi', ...args]);

  test('a missing file: OPENAPI_READ, exit 1', () => {
    const r = run(join(bad.dir, 'nope.yaml'));
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^error\[OPENAPI_READ\] .*nope\.yaml\n {2}cannot read the API description ".*nope\.yaml": no such file\n/,
    );
    assert.equal(r.stdout, '');
  });
  test('not YAML or JSON: OPENAPI_READ; not OpenAPI: OPENAPI_INVALID; exit 1', () => {
    const garbled = run(join(bad.dir, 'garbled.json'));
    assert.equal(garbled.code, 1);
    assert.match(garbled.stderr, /error\[OPENAPI_READ\].*\n.*neither valid YAML nor JSON/);
    const other = run(join(bad.dir, 'not-openapi.yaml'));
    assert.equal(other.code, 1);
    assert.match(
      other.stderr,
      /error\[OPENAPI_INVALID\].*\n {2}not an OpenAPI document mcp-run can import: it has neither an `openapi` nor a `swagger` field/,
    );
  });
  test('a $ref to nothing: OPENAPI_REF, exit 1', () => {
    const r = run(join(bad.dir, 'broken.yaml'));
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /error\[OPENAPI_REF\].*\n {2}cannot resolve \$ref "#\/components\/responses\/Nope": #\/components does not exist/,
    );
  });
  test('unknown --operations or --tags: exit 2 with a suggestion', () => {
    const op = run(fixture('petstore.yaml'), '--operations', 'listPets,showPet');
    assert.equal(op.code, 2);
    assert.match(
      op.stderr,
      /error\[OPENAPI_UNKNOWN_OPERATION\].*\n {2}--operations names "showPet", which is not an operation of the document \(did you mean "showPetById"\?\)\n {2}hint: operations: listPets, createPets, showPetById/,
    );
    const tag = run(fixture('petstore.yaml'), '--tags', 'pest');
    assert.equal(tag.code, 2);
    assert.match(tag.stderr, /error\[OPENAPI_UNKNOWN_TAG\][\s\S]*did you mean "pets"/);
  });
  test('an existing -o file: IMPORT_OUTPUT_EXISTS, exit 1; --force replaces it; --merge needs -o (exit 2)', () => {
    const target = join(bad.dir, 'mcp.yaml');
    const r = run(fixture('petstore.yaml'), '-o', target);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /error\[IMPORT_OUTPUT_EXISTS\].*\n.*exists; not writing over it\n {2}hint: add --merge/,
    );
    assert.equal(readFileSync(target, 'utf8'), 'tools: {}\n');
    assert.equal(run(fixture('petstore.yaml'), '-o', target, '--force').code, 0);
    assert.match(readFileSync(target, 'utf8'), /list_pets:/);
    const merge = run(fixture('petstore.yaml'), '--merge');
    assert.equal(merge.code, 2);
    assert.match(merge.stderr, /--merge updates a manifest: name it with -o FILE/);
    assert.ok(existsSync(join(bad.dir, '.mcp-run-import.mcp.yaml.json')));
  });
  test('help names the exit codes', () => {
    const help = runCli(['import', 'openapi', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Exit codes: 0 done; 1 the document cannot be read or imported/);
  });
});
