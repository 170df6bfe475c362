/**
 * Request bodies beyond JSON and forms: an `application/octet-stream` (or other text-like) body is
 * one string argument sent with the declared Content-Type; a `multipart/form-data` one cannot be
 * sent by an http tool, so the operation is skipped with its reason, and an import where every
 * operation is skipped fails (IMPORT_NOTHING, exit 1) instead of writing an empty manifest.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { tempFiles } from '../helpers/demo.js';
import { runCli } from '../helpers/run-cli.js';
import { startUpstream, type Upstream } from '../kinds/http/upstream.js';
import { call, compile, importText, tool } from './helpers.js';

let upstream: Upstream;
before(async () => {
  upstream = await startUpstream(() => (seen, res) => {
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ bytes: Buffer.byteLength(seen.body), type: seen.headers['content-type'] }));
  });
});
after(() => upstream.close());

const spec = (paths: string) => `openapi: 3.0.3
info: { title: Uploads, version: '1' }
servers: [{ url: 'https://uploads.example.com' }]
paths:
${paths}`;

const UPLOAD = `  /assets/{name}:
    post:
      operationId: uploadAsset
      parameters: [{ name: name, in: path, required: true, schema: { type: string } }]
      requestBody:
        required: true
        content: { application/octet-stream: { schema: { type: string, format: binary } } }
      responses: { '201': { description: ok } }
`;
const MULTIPART = `  /photos:
    post:
      operationId: addPhoto
      requestBody:
        content:
          multipart/form-data:
            schema: { type: object, properties: { file: { type: string, format: binary } } }
      responses: { '201': { description: ok } }
`;

test('an octet-stream body is a string argument sent with its Content-Type; multipart is skipped', async () => {
  const gen = importText(spec(UPLOAD + MULTIPART));
  assert.deepEqual(gen.skipped, ['POST /photos (multipart/form-data bodies cannot be sent)']);
  const upload = tool(gen, 'upload_asset');
  assert.equal(upload.bodyType, 'text');
  assert.deepEqual(upload.headers, { 'Content-Type': 'application/octet-stream' });
  assert.equal(upload.input.body.type, 'string');
  assert.equal(upload.input.body.format, undefined, 'format: binary is dropped: the argument is text');
  assert.match(upload.input.body.description, /application\/octet-stream.*UTF-8/);

  const catalog = await compile(gen, { UPLOADS_BASE_URL: upstream.origin });
  const result = await call(catalog, 'upload_asset', { name: 'notes.txt', body: 'héllo' });
  assert.equal(result.isError, undefined, JSON.stringify(result.content));
  assert.deepEqual(result.structuredContent, { bytes: 6, type: 'application/octet-stream' });
  assert.equal(upstream.seen.at(-1)!.url, '/assets/notes.txt');
  assert.equal(upstream.seen.at(-1)!.body, 'héllo');
  await catalog.dispose();
});

test('nothing importable: IMPORT_NOTHING, exit 1, a warning per operation, no file written', () => {
  const files = tempFiles({ 'only-multipart.yaml': spec(MULTIPART) });
  try {
    const out = join(files.dir, 'mcp.yaml');
    const run = runCli(['import', 'openapi', join(files.dir, 'only-multipart.yaml'), '-o', out]);
    assert.equal(run.code, 1, run.stdout);
    assert.match(
      run.stderr,
      /warning: not imported: POST \/photos \(multipart\/form-data bodies cannot be sent\)/,
    );
    assert.match(run.stderr, /IMPORT_NOTHING/);
    assert.match(run.stderr, /no operation could be imported/);
    assert.doesNotMatch(run.stdout, /Wrote/);
    assert.equal(existsSync(out), false);
  } finally {
    files.cleanup();
  }
});
