/**
 * Imported text is data, never manifest syntax: a third-party API description whose every string
 * holds `${env:X}` and `${file:…}` (and YAML's special words) is imported by the built CLI, with an
 * overlay that writes more of them, then validated and served over stdio to the official client
 * with X set to a secret and the file holding another. Every string reaches the client as the
 * document wrote it (names rewritten into identifiers), the request the tool sends carries the
 * literal text too, neither secret appears anywhere, and re-importing the same document changes
 * nothing.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';

const SECRET = 'env-secret-4f1c9a';
const FILE_SECRET = 'file-secret-8b2d7e';
/** YAML's special words and signs, each a plain string in the document. */
const SPECIALS = [
  'yes',
  'no',
  'null',
  '~',
  '*alias',
  '&anchor',
  '!!str x',
  '- item',
  'a: b',
  '# c',
  '0x10',
  '1e3',
  '',
];

describe('import openapi: imported text is data', () => {
  const files = tempFiles({ secret: `${FILE_SECRET}\n` });
  const FILE = `\${file:${join(files.dir, 'secret')}}`;
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's reference syntax, as text
  const ENV = '${env:X}';
  const both = `${ENV} and ${FILE}`;
  const spec = join(files.dir, 'api.json');
  const manifest = join(files.dir, 'mcp.yaml');
  const env = { ...process.env, X: SECRET, LEAK_API_KEY: 'the-key', LEAK_BASE_URL: '' };
  const seen: string[] = [];
  let upstream: Server;
  const client = new Client(
    { name: 'literal-text', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );

  before(async () => {
    upstream = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ name: ENV }));
    });
    await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
    const { port } = upstream.address() as AddressInfo;
    const document = {
      openapi: '3.0.3',
      info: { title: `Leak ${both}`, version: ENV, description: `About ${both}` },
      // `}` would end the `${env:LEAK_BASE_URL:-…}` the URL is written in, and start a reference.
      servers: [{ url: `http://127.0.0.1:${port}/b}${ENV}/{v}`, variables: { v: { default: FILE } } }],
      security: [{ key: [] }],
      paths: {
        '/items/{id}': {
          get: {
            operationId: `get${ENV}`,
            summary: ENV,
            description: `Reads ${both}`,
            parameters: [
              { name: 'id', in: 'path', required: true, description: FILE, schema: { type: 'string' } },
              {
                name: `q${ENV}`,
                in: 'query',
                description: both,
                schema: {
                  type: 'string',
                  title: FILE,
                  enum: [ENV, FILE, ...SPECIALS],
                  default: ENV,
                  example: FILE,
                },
              },
            ],
            responses: {
              '200': {
                description: ENV,
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
              },
            },
          },
        },
        '/items': {
          post: {
            operationId: 'createItem',
            summary: FILE,
            requestBody: {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: {
                      note: { type: 'string', description: ENV, default: FILE, examples: [both] },
                    },
                  },
                },
              },
            },
            responses: { '201': { description: FILE } },
          },
        },
      },
      components: {
        securitySchemes: { key: { type: 'apiKey', in: 'query', name: `k${ENV}` } },
        schemas: {
          Thing: {
            type: 'object',
            title: ENV,
            description: FILE,
            properties: {
              name: { type: 'string', enum: [ENV, FILE, ...SPECIALS], default: ENV, example: FILE },
              [ENV]: { type: 'string', description: both },
            },
          },
        },
      },
    };
    const overlay = {
      overlay: '1.0.0',
      info: { title: 'fixes', version: '1' },
      actions: [{ target: "$.paths['/items'].post", update: { description: `Overlay ${both}` } }],
    };
    writeFileSync(spec, JSON.stringify(document, null, 2));
    writeFileSync(join(files.dir, 'overlay.json'), JSON.stringify(overlay, null, 2));
    const run = runCli([
      'import',
      'openapi',
      spec,
      '--overlay',
      join(files.dir, 'overlay.json'),
      '-o',
      manifest,
    ]);
    assert.equal(run.code, 0, run.stderr);
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, manifest], env, stderr: 'pipe' }),
    );
  });
  after(async () => {
    await client.close();
    await new Promise((done) => upstream.close(done));
    files.cleanup();
  });

  test('the manifest validates with the variable set', () => {
    const run = runCli(['validate', manifest], { env });
    assert.equal(run.code, 0, run.stderr);
  });

  test('tools/list serves every string as the document wrote it, and no secret', async () => {
    const { tools } = await client.listTools();
    const text = JSON.stringify(tools);
    assert.ok(!text.includes(SECRET), 'the environment secret reached tools/list');
    assert.ok(!text.includes(FILE_SECRET), "the file's secret reached tools/list");
    const get = tools.find((t) => t.name === 'get_env_x');
    const create = tools.find((t) => t.name === 'create_item');
    assert.ok(get && create, `tools: ${tools.map((t) => t.name).join(', ')}`);
    assert.equal(get.title, ENV);
    assert.equal(get.description, `Reads ${both}`);
    assert.deepEqual(get.inputSchema.properties?.id, { type: 'string', description: FILE });
    assert.deepEqual(get.inputSchema.properties?.q_env_X, {
      type: 'string',
      title: FILE,
      enum: [ENV, FILE, ...SPECIALS],
      default: ENV,
      examples: [FILE],
      description: both,
    });
    assert.equal(get.outputSchema?.$ref, '#/$defs/Thing');
    const defs = get.outputSchema?.$defs as Record<string, Record<string, unknown>>;
    assert.equal(defs.Thing!.title, ENV);
    assert.equal(defs.Thing!.description, FILE);
    const thing = defs.Thing!.properties as Record<string, unknown>;
    assert.deepEqual(thing.name, {
      type: 'string',
      enum: [ENV, FILE, ...SPECIALS],
      default: ENV,
      examples: [FILE],
    });
    assert.deepEqual(thing[ENV], { type: 'string', description: both });
    assert.equal(create.title, FILE);
    assert.equal(create.description, `Overlay ${both}`);
    assert.deepEqual(create.inputSchema.properties?.note, {
      type: 'string',
      description: ENV,
      default: FILE,
      examples: [both],
    });
    const server = client.getServerVersion();
    assert.equal(server?.version, ENV);
    assert.ok(!JSON.stringify(server).includes(SECRET), JSON.stringify(server));
  });

  test('the request carries the literal text: the server URL, the query names, no secret', async () => {
    const result = await client.callTool({ name: 'get_env_x', arguments: { id: '7', q_env_X: 'yes' } });
    assert.equal(result.isError, undefined, JSON.stringify(result));
    assert.deepEqual(result.structuredContent, { name: ENV });
    const url = seen.at(-1) ?? '';
    assert.ok(!url.includes(SECRET) && !url.includes(FILE_SECRET), url);
    const [path, query] = url.split('?');
    // `{` and `}` percent-encoded in the default base URL, the rest as the document wrote it.
    assert.equal(decodeURIComponent(path!), `/b}${ENV}/${FILE}/items/7`);
    assert.deepEqual(Object.fromEntries(new URLSearchParams(query)), {
      [`q${ENV}`]: 'yes',
      [`k${ENV}`]: 'the-key',
    });
  });

  test('importing the same document again changes nothing', () => {
    const before = readFileSync(manifest, 'utf8');
    const run = runCli(['import', 'openapi', spec, '--update', manifest], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /tools 0 added, 0 updated, 0 removed/);
    assert.equal(readFileSync(manifest, 'utf8'), before);
  });
});
