/** The names an import invents: tool names, argument names, the source name and the variable prefix. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  argumentName,
  envPrefix,
  fitName,
  nameFromRoute,
  serverName,
  shortApiName,
  snakeCase,
  sourceName,
  toolBaseName,
  UniqueNames,
} from '../../src/openapi/naming.js';

const VALID_TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

describe('tool names', () => {
  test('operationIds in snake case; other characters become _', () => {
    const cases: [string, string][] = [
      ['listPets', 'list_pets'],
      ['showPetById', 'show_pet_by_id'],
      ['find pet by id', 'find_pet_by_id'],
      ['getHTTPResponse', 'get_http_response'],
      ['list-data-sets', 'list_data_sets'],
      ['repos/get-content', 'repos_get_content'],
      ['issues/list-for-org', 'issues_list_for_org'],
      ['users.list', 'users_list'],
      ['  Weird!!Name?? ', 'weird_name'],
      ['v2GetItem', 'v2_get_item'],
    ];
    for (const [id, name] of cases) assert.equal(toolBaseName(id, 'GET', '/x'), name, id);
  });

  test('without a usable operationId: method and path', () => {
    assert.equal(toolBaseName(undefined, 'GET', '/pets/{petId}/toys'), 'get_pets_by_pet_id_toys');
    assert.equal(toolBaseName('', 'DELETE', '/pets/{id}'), 'delete_pets_by_id');
    assert.equal(toolBaseName('получить', 'POST', '/orders'), 'post_orders');
    assert.equal(nameFromRoute('GET', '/'), 'get');
  });

  test('longer than 64: the start plus a hash of the whole, still distinct', () => {
    const long = `get${'VeryLongResourceName'.repeat(6)}`;
    const other = `get${'VeryLongResourceName'.repeat(5)}Other`;
    const a = toolBaseName(long, 'GET', '/');
    const b = toolBaseName(other, 'GET', '/');
    assert.ok(a.length >= 60 && a.length <= 64, a);
    assert.match(a, VALID_TOOL_NAME);
    assert.match(a, /^get_very_long_resource_name_.*_[0-9a-f]{6}$/);
    assert.notEqual(a, b);
    assert.equal(toolBaseName(long, 'GET', '/'), a, 'the same operation gets the same name every time');
    assert.equal(fitName('short'), 'short');
  });

  test('unique: a second list_pets is list_pets_2, and a fitted name stays within 64', () => {
    const names = new UniqueNames();
    assert.equal(names.take('list_pets'), 'list_pets');
    assert.equal(names.take('list_pets'), 'list_pets_2');
    assert.equal(names.take('list_pets'), 'list_pets_3');
    const long = 'x'.repeat(64);
    assert.equal(names.take(long), long);
    const second = names.take(long);
    assert.notEqual(second, long);
    assert.match(second, VALID_TOOL_NAME);
    assert.ok(names.has('list_pets_2'));
  });

  test('snakeCase uses one separator, _, and trims it', () => {
    assert.equal(snakeCase('__Pets.Get-All__'), 'pets_get_all');
  });
});

describe('argument names', () => {
  test('usable as {{name}}: letters, digits and _, not starting with a digit', () => {
    assert.equal(argumentName('petId'), 'petId');
    assert.equal(argumentName('X-Request-Id', true), 'x_request_id');
    assert.equal(argumentName('page[size]'), 'page_size');
    assert.equal(argumentName('user.name'), 'user_name');
    assert.equal(argumentName('2fa'), '_2fa');
    assert.equal(argumentName('$'), 'value');
    assert.equal(argumentName('_private'), '_private');
  });
});

describe('the API name', () => {
  test("short: the host's telling label, else the first telling word of the title", () => {
    const cases: [string | undefined, string, string][] = [
      ['https://api.github.com', "GitHub's official OpenAPI spec + Octokit extension", 'github'],
      ['http://petstore.swagger.io/v1', 'Swagger Petstore', 'petstore'],
      ['https://developer.uspto.gov/ds-api', 'USPTO Data Set API', 'uspto'],
      ['https://api.open-meteo.com/v1', 'Open-Meteo APIs', 'open-meteo'],
      ['https://api.example.com/v1', 'Kitchen sink', 'kitchen'],
      ['http://localhost/relative', "GitHub's official OpenAPI spec", 'github'],
      ['http://127.0.0.1:8080', 'The Swagger API', 'api'],
      [undefined, '!!!', 'api'],
    ];
    for (const [url, title, name] of cases) assert.equal(shortApiName(url, title), name, `${url} ${title}`);
    assert.equal(envPrefix(shortApiName('https://api.github.com', '')), 'GITHUB');
    assert.equal(envPrefix('open-meteo'), 'OPEN_METEO');
  });

  test('variable prefix, source name and server name from the title', () => {
    assert.equal(envPrefix('Swagger Petstore'), 'SWAGGER_PETSTORE');
    assert.equal(envPrefix('USPTO Data Set API'), 'USPTO_DATA_SET_API');
    assert.equal(envPrefix('3D Printing API'), 'API_3_D_PRINTING_API');
    assert.equal(envPrefix('!!!'), 'API');
    assert.equal(sourceName('Swagger Petstore'), 'swagger_petstore');
    assert.equal(serverName('Swagger Petstore'), 'swagger-petstore');
    assert.match(envPrefix('x'.repeat(200)), /^X{40}$/);
  });
});
