// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${env:…} in plain strings is what the import writes.
/**
 * Operations as http tools: parameters and bodies as inputs placed by name, the success schema as
 * outputSchema, servers as the base URL, security as auth. Each generated manifest is compiled with
 * the real kinds and its tools are called against a real HTTP server on 127.0.0.1, so what is
 * checked is what arrives on the wire.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Catalog } from '../../src/catalog/types.js';
import type { ImportError } from '../../src/openapi/load.js';
import { send, startUpstream, type Upstream } from '../kinds/http/upstream.js';
import { call, compile, importFixture, importText, tool } from './helpers.js';

let upstream: Upstream;
before(async () => {
  upstream = await startUpstream(() => (seen, res) => {
    if (seen.url.startsWith('/v1/empty')) return void res.writeHead(204).end();
    send(res, 200, { method: seen.method, url: seen.url, headers: seen.headers, body: seen.body });
  });
});
after(() => upstream.close());
const last = () => upstream.seen.at(-1)!;

const KITCHEN = `openapi: 3.0.3
info: { title: Kitchen Sink, version: 2.1.0 }
servers:
  - url: '{scheme}://api.example.com/{base}/'
    variables:
      scheme: { default: https, enum: [https, http] }
      base: { default: v1 }
paths:
  /items/{item-id}:
    parameters:
      - { name: item-id, in: path, required: true, description: The item, schema: { type: string } }
    put:
      operationId: updateItem
      summary: Update an item
      description: Replaces an item.
      parameters:
        - { name: id, in: query, schema: { type: integer } }
        - { name: X-Request-Id, in: header, required: true, schema: { type: string } }
        - { name: Accept, in: header, schema: { type: string } }
        - { name: session, in: cookie, schema: { type: string } }
        - { name: 'page[size]', in: query, schema: { type: integer, default: 20 } }
        - { name: fields, in: query, style: form, explode: false, schema: { type: array, items: { type: string } } }
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [id, name]
              properties:
                id: { type: integer }
                name: { type: string, example: Lamp }
                createdAt: { type: string, readOnly: true }
                meta:
                  type: object
                  nullable: true
                  required: [source]
                  properties: { source: { type: string } }
      responses:
        '200':
          description: ok
          content: { application/json: { schema: { type: object, properties: { method: { type: string } } } } }
  /items:
    post:
      operationId: bulkAdd
      requestBody:
        content: { application/json: { schema: { type: array, items: { type: string } } } }
      responses: { '201': { description: created } }
    get:
      operationId: searchItems
      deprecated: true
      requestBody:
        content: { application/json: { schema: { type: object, properties: { q: { type: string } } } } }
      responses:
        '200': { description: ok, content: { application/json: { schema: { type: array, items: {} } } } }
  /notes:
    post:
      summary: Add a note
      requestBody:
        required: true
        content: { text/plain: { schema: { type: string, maxLength: 100 } } }
      responses: { '204': { description: none } }
  /upload:
    post:
      operationId: upload
      requestBody:
        content: { multipart/form-data: { schema: { type: object } } }
      responses: { '200': { description: ok } }
`;

describe('an OpenAPI 3 document with every kind of parameter', () => {
  const gen = importText(KITCHEN);

  test('server variables at their defaults, trailing slash dropped, overridable from the environment', () => {
    assert.equal(gen.source.config.baseUrl, '${env:KITCHEN_BASE_URL:-https://api.example.com/v1}');
    assert.equal(gen.server.name, 'kitchen', 'example.com says nothing: the first word of the title');
    assert.equal(gen.server.version, '2.1.0');
  });

  test('wire names stay, argument names become identifiers; collisions are prefixed', () => {
    const t = tool(gen, 'update_item');
    assert.equal(t.path, '/items/{item_id}');
    assert.equal(t.method, 'PUT');
    assert.equal(t.title, 'Update an item');
    assert.equal(t.description, 'Replaces an item.');
    assert.deepEqual(t.query, {
      id: '{{id}}',
      'page[size]': '{{page_size}}',
      fields: '{{#each fields}}{{#unless @first}},{{/unless}}{{this}}{{/each}}',
    });
    assert.deepEqual(t.headers, { 'X-Request-Id': '{{x_request_id}}' });
    assert.deepEqual(t.body, { id: '{{body_id}}', name: '{{name}}', meta: '{{meta}}' });
    assert.deepEqual(Object.keys(t.input), [
      'item_id',
      'id',
      'page_size',
      'fields',
      'x_request_id',
      'body_id',
      'name',
      'meta',
    ]);
    assert.deepEqual(t.input.item_id, { type: 'string', description: 'The item' });
    assert.deepEqual(t.input.id, { type: 'integer', required: false });
    assert.deepEqual(t.input.page_size, { type: 'integer', default: 20 });
    assert.deepEqual(t.input.name, { type: 'string', examples: ['Lamp'] });
    // optional, nullable, and with its own required list: the list moves under allOf
    assert.deepEqual(t.input.meta, {
      type: ['object', 'null'],
      properties: { source: { type: 'string' } },
      allOf: [{ required: ['source'] }],
      required: false,
    });
    assert.equal(t.input.createdAt, undefined, 'readOnly fields are not sent');
    const notes = gen.tools.find((x) => x.name === 'update_item')!.notes;
    assert.ok(notes.some((n) => /Header Accept is set by mcp-run/.test(n)));
    assert.ok(notes.some((n) => /Cookie parameter session is not sent/.test(n)));
  });

  test('what arrives upstream: encoded path, wire query names, joined array, header, typed JSON body', async () => {
    const catalog = await compile(gen, { KITCHEN_BASE_URL: `${upstream.origin}/v1` });
    try {
      const r = await call(catalog, 'update_item', {
        item_id: 'a/b',
        id: 7,
        x_request_id: 'req-1',
        fields: ['name', 'id'],
        body_id: 42,
        name: 'Lamp "deluxe"',
      });
      assert.equal(r.isError, undefined, JSON.stringify(r));
      const seen = last();
      assert.equal(seen.method, 'PUT');
      const url = new URL(seen.url, 'http://x');
      assert.equal(url.pathname, '/v1/items/a%2Fb');
      assert.deepEqual(
        [...url.searchParams],
        [
          ['id', '7'],
          ['page[size]', '20'],
          ['fields', 'name,id'],
        ],
      );
      assert.equal(seen.headers['x-request-id'], 'req-1');
      assert.deepEqual(JSON.parse(seen.body), { id: 42, name: 'Lamp "deluxe"' });
      assert.deepEqual(r.structuredContent && (r.structuredContent as { method: string }).method, 'PUT');
      const missing = await call(catalog, 'update_item', { item_id: 'a', x_request_id: 'r', name: 'x' });
      assert.equal(missing.isError, true);
      assert.match((missing.content[0] as { text: string }).text, /body_id is required/);
    } finally {
      await catalog.dispose();
    }
  });

  test('a body that is not an object is one argument; text bodies are text; GET bodies are dropped', async () => {
    const bulk = tool(gen, 'bulk_add');
    assert.equal(bulk.body, '{{body}}');
    assert.deepEqual(bulk.input.body, { type: 'array', items: { type: 'string' }, required: false });
    assert.equal(bulk.outputSchema, undefined, 'a 201 without content declares no outputSchema');
    const note = tool(gen, 'post_notes');
    assert.deepEqual(
      [note.body, note.bodyType, note.input.body],
      ['{{body}}', 'text', { type: 'string', maxLength: 100 }],
    );
    assert.equal(note.description, 'Add a note');
    const search = tool(gen, 'search_items');
    assert.equal(search.body, undefined);
    assert.match(search.description, /^Deprecated\. /);
    assert.deepEqual(search.outputSchema, {
      type: 'object',
      properties: { result: { type: 'array', items: {} } },
      required: ['result'],
    });
    const catalog = await compile(gen, { KITCHEN_BASE_URL: `${upstream.origin}/v1` });
    try {
      await call(catalog, 'bulk_add', { body: ['a', 'b'] });
      assert.deepEqual(
        [last().method, last().url, JSON.parse(last().body)],
        ['POST', '/v1/items', ['a', 'b']],
      );
      await call(catalog, 'post_notes', { body: 'Buy milk' });
      assert.deepEqual(
        [last().body, last().headers['content-type']],
        ['Buy milk', 'text/plain; charset=utf-8'],
      );
      const listed = await call(catalog, 'search_items', {});
      assert.equal(
        listed.isError,
        true,
        'the echo is an object, not the declared array: the outputSchema catches it',
      );
    } finally {
      await catalog.dispose();
    }
  });

  test('a body the http tool cannot send skips the operation, with the reason', () => {
    assert.equal(
      gen.tools.find((t) => t.name === 'upload'),
      undefined,
    );
    assert.deepEqual(gen.skipped, ['POST /upload (multipart/form-data bodies cannot be sent)']);
  });
});

const SWAGGER = `{
  "swagger": "2.0",
  "info": { "title": "Forms", "version": "1" },
  "host": "forms.example.com",
  "basePath": "/api/",
  "schemes": ["http", "https"],
  "securityDefinitions": { "basicAuth": { "type": "basic" }, "key": { "type": "apiKey", "in": "query", "name": "api_key" } },
  "security": [{ "basicAuth": [] }],
  "paths": {
    "/login": {
      "post": {
        "operationId": "login",
        "consumes": ["application/x-www-form-urlencoded"],
        "parameters": [
          { "name": "user", "in": "formData", "type": "string", "required": true },
          { "name": "remember", "in": "formData", "type": "boolean" },
          { "name": "tags", "in": "query", "type": "array", "items": { "type": "string" }, "collectionFormat": "multi" }
        ],
        "responses": { "200": { "description": "ok", "schema": { "type": "object", "x-nullable": true } } }
      }
    },
    "/avatar": {
      "post": {
        "operationId": "avatar",
        "consumes": ["multipart/form-data"],
        "parameters": [{ "name": "file", "in": "formData", "type": "file" }],
        "responses": { "200": { "description": "ok" } }
      }
    }
  }
}`;

describe('Swagger 2.0', () => {
  const gen = importText(SWAGGER, {}, 'forms.json');

  test('schemes (https preferred), host and basePath; basic auth from the environment', () => {
    assert.deepEqual(gen.source.config, {
      kind: 'http',
      baseUrl: '${env:FORMS_BASE_URL:-https://forms.example.com/api}',
      auth: { basic: { username: '${env:FORMS_USERNAME}', password: '${env:FORMS_PASSWORD}' } },
    });
    assert.deepEqual(gen.source.notes, [], 'a scheme no operation requires is not mentioned');
  });

  test('formData is a form body, collectionFormat multi repeats; file uploads are skipped', async () => {
    const login = tool(gen, 'login');
    assert.deepEqual(
      [login.bodyType, login.body, login.query],
      ['form', { user: '{{user}}', remember: '{{remember}}' }, { tags: '{{tags}}' }],
    );
    assert.deepEqual(gen.skipped, ['POST /avatar (multipart/form-data bodies cannot be sent)']);
    assert.deepEqual(
      login.outputSchema,
      { type: 'object' },
      'a nullable object is still `type: object` at the top',
    );
    const env = { FORMS_BASE_URL: `${upstream.origin}/api`, FORMS_USERNAME: 'ann', FORMS_PASSWORD: 's3cret' };
    const catalog = await compile(gen, env);
    try {
      const r = await call(catalog, 'login', { user: 'ann', remember: true, tags: ['a', 'b'] });
      assert.equal(r.isError, undefined, JSON.stringify(r));
      assert.equal(last().url, '/api/login?tags=a&tags=b');
      assert.equal(last().body, 'user=ann&remember=true');
      assert.equal(last().headers.authorization, `Basic ${Buffer.from('ann:s3cret').toString('base64')}`);
    } finally {
      await catalog.dispose();
    }
  });
});

/** A document whose only difference is its security section. */
const secured = (schemes: string, security: string) => `openapi: 3.1.0
info: { title: Sec, version: '1' }
servers: [{ url: /relative/v2 }]
components: { securitySchemes: ${schemes} }
security: ${security}
paths:
  /me: { get: { operationId: me, responses: { '200': { description: ok } } } }
`;

describe('security schemes as source auth, read from the environment', () => {
  test('bearer, API key in a header or the query, and OAuth 2 as a bearer token', () => {
    const cases: [string, string, unknown, RegExp?][] = [
      ['{ jwt: { type: http, scheme: Bearer } }', '[{ jwt: [] }]', { bearer: '${env:SEC_TOKEN}' }],
      [
        '{ k: { type: apiKey, in: header, name: X-Api-Key } }',
        '[{ k: [] }]',
        { apiKey: { header: 'X-Api-Key', value: '${env:SEC_API_KEY}' } },
      ],
      [
        '{ k: { type: apiKey, in: query, name: key } }',
        '[{ k: [] }]',
        { apiKey: { query: 'key', value: '${env:SEC_API_KEY}' } },
      ],
      [
        '{ o: { type: oauth2, flows: {} } }',
        '[{ o: [read] }]',
        { bearer: '${env:SEC_TOKEN}' },
        /OAuth 2: mcp-run does not run the flow; put an access token in SEC_TOKEN/,
      ],
      [
        '{ oidc: { type: openIdConnect, openIdConnectUrl: x } }',
        '[{ oidc: [] }]',
        { bearer: '${env:SEC_TOKEN}' },
        /OpenID Connect/,
      ],
      [
        '{ c: { type: apiKey, in: cookie, name: sid } }',
        '[{ c: [] }]',
        undefined,
        /cannot be sent by an http source/,
      ],
      [
        '{ a: { type: apiKey, in: header, name: X-A }, b: { type: apiKey, in: header, name: X-B } }',
        '[{ a: [], b: [] }]',
        { apiKey: { header: 'X-A', value: '${env:SEC_API_KEY}' } },
        /also wants b with a; a source sends one credential/,
      ],
      [
        '{ k: { type: apiKey, in: header, name: X-K } }',
        '[]',
        undefined,
        /No operation requires a security scheme/,
      ],
    ];
    for (const [schemes, security, auth, note] of cases) {
      const gen = importText(secured(schemes, security));
      assert.deepEqual(gen.source.config.auth, auth, schemes);
      if (note)
        assert.ok(
          gen.source.notes.some((n) => note.test(n)),
          `${schemes}: ${gen.source.notes.join(' | ')}`,
        );
    }
  });

  test('the credential is sent from the environment; a relative server URL says to set the base URL', async () => {
    const gen = importText(secured('{ jwt: { type: http, scheme: bearer } }', '[{ jwt: [] }]'), {
      name: 'acme',
    });
    assert.equal(gen.source.config.baseUrl, '${env:ACME_BASE_URL:-http://localhost/relative/v2}');
    assert.ok(
      gen.source.notes.some((n) => /no absolute server URL \("\/relative\/v2"\): set ACME_BASE_URL/.test(n)),
    );
    assert.deepEqual(
      gen.source.env.map(([name]) => name),
      ['ACME_BASE_URL', 'ACME_TOKEN'],
    );
    const catalog = await compile(gen, { ACME_BASE_URL: upstream.origin, ACME_TOKEN: 'tok-123' });
    try {
      const r = await call(catalog, 'me', {});
      assert.equal(last().headers.authorization, 'Bearer tok-123');
      assert.ok(!JSON.stringify(r).includes('tok-123'), 'the token echoed back is redacted');
    } finally {
      await catalog.dispose();
    }
  });
});

describe('the Petstore fixtures', () => {
  test('by default the components are written once, under schemas:, and referenced', () => {
    for (const [file, name] of [
      ['petstore-expanded.yaml', 'OpenAPI 3'],
      ['petstore-expanded.json', 'Swagger 2.0'],
    ] as const) {
      const gen = importFixture(file);
      assert.deepEqual(
        Object.keys(gen.schemas),
        ['Pet', 'NewPet'],
        `${name}: Pet, and NewPet which Pet uses`,
      );
      const pet = gen.schemas.Pet as { allOf: unknown[] };
      assert.deepEqual(pet.allOf[0], { $ref: '#/schemas/NewPet' });
      assert.deepEqual((pet.allOf[1] as { required: string[] }).required, ['id']);
      // An allOf with an object part is an object: not wrapped as {result: …}.
      assert.deepEqual(tool(gen, 'find_pet_by_id').outputSchema, { type: 'object', $ref: '#/schemas/Pet' });
      assert.deepEqual(tool(gen, 'find_pets').outputSchema, {
        type: 'object',
        properties: { result: { type: 'array', items: { $ref: '#/schemas/Pet' } } },
        required: ['result'],
      });
      // Arguments stay inlined: `input:` is what a person reads and edits.
      assert.deepEqual(tool(gen, 'add_pet').input, {
        name: { type: 'string' },
        tag: { type: 'string', required: false },
      });
    }
  });

  test('outputSchema: false leaves every output schema out, and with it the schemas', () => {
    const gen = importFixture('petstore-expanded.yaml', { outputSchema: false });
    assert.ok(gen.tools.every((t) => t.config.outputSchema === undefined));
    assert.deepEqual(gen.schemas, {});
  });

  test('petstore.yaml: query, path and JSON body parameters; outputSchema wrapped for arrays', () => {
    const gen = importFixture('petstore.yaml', { inlineSchemas: true });
    assert.deepEqual(
      gen.tools.map((t) => [t.name, t.route]),
      [
        ['list_pets', 'GET /pets'],
        ['create_pets', 'POST /pets'],
        ['show_pet_by_id', 'GET /pets/{petId}'],
      ],
    );
    const pet = {
      type: 'object',
      required: ['id', 'name'],
      properties: {
        id: { type: 'integer', format: 'int64' },
        name: { type: 'string' },
        tag: { type: 'string' },
      },
    };
    assert.deepEqual(tool(gen, 'list_pets').outputSchema, {
      type: 'object',
      properties: { result: { type: 'array', maxItems: 100, items: pet } },
      required: ['result'],
    });
    assert.deepEqual(tool(gen, 'show_pet_by_id').outputSchema, pet);
    assert.deepEqual(tool(gen, 'create_pets').body, { id: '{{id}}', name: '{{name}}', tag: '{{tag}}' });
    assert.equal(tool(gen, 'create_pets').annotations, undefined, 'annotations are left to the http kind');
  });

  test('petstore-expanded: allOf merged, an operationId with spaces, Swagger 2.0 gives the same tools', () => {
    const v3 = importFixture('petstore-expanded.yaml', { inlineSchemas: true });
    const v2 = importFixture('petstore-expanded.json', { inlineSchemas: true });
    assert.deepEqual(
      v3.tools.map((t) => t.name),
      ['find_pets', 'add_pet', 'find_pet_by_id', 'delete_pet'],
    );
    assert.deepEqual(tool(v3, 'find_pet_by_id').outputSchema, {
      type: 'object',
      properties: {
        name: { type: 'string' },
        tag: { type: 'string' },
        id: { type: 'integer', format: 'int64' },
      },
      required: ['name', 'id'],
    });
    assert.deepEqual(tool(v2, 'add_pet').body, tool(v3, 'add_pet').body);
    assert.deepEqual(tool(v2, 'add_pet').input, tool(v3, 'add_pet').input);
    assert.deepEqual(tool(v2, 'find_pet_by_id').outputSchema, tool(v3, 'find_pet_by_id').outputSchema);
    // Swagger 2.0's default collectionFormat (csv) joins; OpenAPI 3's default (form, explode) repeats
    assert.equal(tool(v3, 'find_pets').query.tags, '{{tags}}');
    assert.match(tool(v2, 'find_pets').query.tags, /^\{\{#each tags\}\}/);
  });
});

describe('selecting operations', () => {
  test('--tags and --operations (by operationId or tool name) each select; together, either is enough', () => {
    const names = (options: object) => importFixture('uspto.yaml', options).tools.map((t) => t.name);
    assert.deepEqual(names({ tags: ['search'] }), ['perform_search']);
    assert.deepEqual(names({ operations: ['list_data_sets'] }), ['list_data_sets']);
    assert.deepEqual(names({ tags: ['search'], operations: ['list_data_sets'] }), [
      'list_data_sets',
      'perform_search',
    ]);
    const petstore = importFixture('petstore.yaml', { operations: ['show_pet_by_id', 'listPets'] });
    assert.deepEqual(
      petstore.tools.map((t) => t.name),
      ['list_pets', 'show_pet_by_id'],
    );
  });

  test('an unknown operation or tag is bad usage (exit 2) with a suggestion', () => {
    assert.throws(
      () => importFixture('petstore.yaml', { operations: ['listPet'] }),
      (err: ImportError) =>
        err.exitCode === 2 &&
        err.problem.code === 'OPENAPI_UNKNOWN_OPERATION' &&
        /did you mean "listPets"/.test(err.problem.message) &&
        /listPets, createPets, showPetById/.test(err.problem.hint ?? ''),
    );
    assert.throws(
      () => importFixture('uspto.yaml', { tags: ['serch'] }),
      (err: ImportError) => err.exitCode === 2 && /did you mean "search"/.test(err.problem.message),
    );
  });
});

test('each fixture compiles as a manifest (what `mcp-run validate` checks)', async () => {
  for (const name of [
    'petstore.yaml',
    'petstore-expanded.yaml',
    'petstore.json',
    'petstore-expanded.json',
    'uspto.yaml',
  ]) {
    const catalog: Catalog = await compile(importFixture(name), {});
    assert.ok(catalog.tools.size >= 3, name);
    await catalog.dispose();
  }
});
