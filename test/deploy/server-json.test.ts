/**
 * server.json, this server's entry for the official MCP Registry, is valid against the registry's
 * own schema (a copy in test/fixtures/mcp-registry/, with its source: it cannot be fetched here), names
 * that schema, and describes the npm package this checkout packs (its name and version, and the
 * `mcpName` by which the registry checks that the package is this server's). The schema's
 * formats are checked too: ajv knows `uri` and `uri-template` only from a plugin, so they are added
 * here, strictly enough to fail on a value that is not one.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { REPO } from '../helpers/demo.js';

const read = (path: string) => JSON.parse(readFileSync(join(REPO, path), 'utf8'));
const schema = read('test/fixtures/mcp-registry/server.schema.json');
const server = read('server.json');
const pkg = read('package.json') as { name: string; version: string; mcpName: string };

function registryValidator() {
  const ajv = new Ajv({ allErrors: true });
  // The schema's OpenAPI heritage: `example` documents a field and constrains nothing.
  ajv.addKeyword('example');
  ajv.addFormat('uri', (value: string) => /^[a-z][a-z0-9+.-]*:/i.test(value) && URL.canParse(value));
  // RFC 6570: literals and {expressions}, braces balanced.
  ajv.addFormat('uri-template', /^(?:[^{}\s]|\{[+#./;?&=,!@|]?[A-Za-z0-9_.%,*:]+\})*$/);
  return ajv.compile(schema);
}

describe('server.json for the MCP Registry', () => {
  const validate = registryValidator();

  it("is valid against the registry's schema, and names it", () => {
    assert.equal(validate(server), true, JSON.stringify(validate.errors, null, 2));
    assert.equal(server.$schema, schema.$id);
  });

  it('describes the package this checkout packs: its npm name and version, served on stdio', () => {
    assert.equal(server.version, pkg.version);
    const npm = server.packages.filter((p: { registryType: string }) => p.registryType === 'npm');
    assert.equal(npm.length, 1);
    assert.equal(npm[0].identifier, pkg.name);
    assert.equal(npm[0].version, pkg.version);
    assert.deepEqual(npm[0].transport, { type: 'stdio' });
  });

  it("proves the npm package is this server's: package.json's mcpName is the registry name", () => {
    // The registry checks ownership of an npm package by this field in the published package.json.
    assert.equal(pkg.mcpName, server.name);
  });

  it('the check can fail: a description past the limit, a bad name and a version range are refused', () => {
    const bad = {
      ...server,
      name: 'mcp-run',
      description: 'x'.repeat(101),
      packages: [{ ...server.packages[0], version: 'latest' }],
    };
    assert.equal(validate(bad), false);
    const at = new Set(validate.errors?.map((e) => e.instancePath));
    for (const path of ['/name', '/description', '/packages/0/version']) assert.ok(at.has(path), path);
  });
});
