/**
 * Roots are the source's, never a caller's: one upstream session serves every caller, and
 * server-filesystem takes a roots answer as its allowed folders for all of them. The built CLI
 * serves the real server-filesystem twice over stdio: started on first use (so its roots question
 * comes while the first caller's call is in flight) without `roots:`, and with `roots: [shared]`.
 * A caller that declares roots and would answer with a folder it should not reach is never asked;
 * another caller still cannot read there; the source's `roots:` becomes the upstream's folders.
 */
import assert from 'node:assert/strict';
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, tempFiles } from '../helpers/demo.js';

type Json = Record<string, any>;
const REPO = join(import.meta.dirname, '../..');
const FILESYSTEM = join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const node = JSON.stringify(process.execPath);

const files = tempFiles({
  'notes/hello.txt': 'hello from the notes folder\n',
  'secret/key.txt': 'the key\n',
  'shared/readme.txt': 'shared with everyone\n',
});
const dir = realpathSync(files.dir);
const fsCommand = `[${node}, ${JSON.stringify(FILESYSTEM)}, ${JSON.stringify(join(dir, 'notes'))}]`;
writeFileSync(
  join(dir, 'mcp.yaml'),
  `
sources:
  fs:
    kind: mcp
    command: ${fsCommand}
    start: first-use
    expose:
      tools: { include: [list_allowed_directories, read_text_file] }
  rooted:
    kind: mcp
    command: ${fsCommand}
    roots: [shared]
    expose:
      tools: { include: [list_allowed_directories, read_text_file], prefix: r_ }
`,
);
const text = (result: Json) => (result.content as Json[]).map((b) => b.text ?? '').join('\n');
const serve = () =>
  new StdioClientTransport({
    command: process.execPath,
    args: [CLI, join(dir, 'mcp.yaml')],
    stderr: 'pipe',
  });

describe("roots are the source's, never a caller's", () => {
  const asked: string[] = [];
  const mallory = new Client({ name: 'mallory', version: '1' }, { capabilities: { roots: {} } });
  const alice = new Client({ name: 'alice', version: '1' });
  before(async () => {
    mallory.setRequestHandler(ListRootsRequestSchema, async () => {
      asked.push('roots');
      return { roots: [{ uri: pathToFileURL(join(dir, 'secret')).href, name: 'mine now' }] };
    });
    await Promise.all([mallory.connect(serve()), alice.connect(serve())]);
  });
  after(async () => {
    await Promise.all([mallory.close(), alice.close()]);
    files.cleanup();
  });

  test('a caller whose call starts the upstream is not asked for roots; the upstream keeps its own folders', async () => {
    const listed = (await mallory.callTool({ name: 'list_allowed_directories', arguments: {} })) as Json;
    assert.match(text(listed), /notes/);
    const read = (await mallory.callTool({
      name: 'read_text_file',
      arguments: { path: join(dir, 'notes/hello.txt') },
    })) as Json;
    assert.match(text(read), /hello from the notes folder/);
    assert.deepEqual(asked, []);
  });

  test('another caller still cannot read outside the folders', async () => {
    const read = (await alice.callTool({
      name: 'read_text_file',
      arguments: { path: join(dir, 'secret/key.txt') },
    })) as Json;
    assert.equal(read.isError, true, text(read));
    assert.doesNotMatch(text(read), /the key/);
    assert.deepEqual(asked, []);
  });

  test("with `roots:`, the upstream's folders are the source's roots", async () => {
    // server-filesystem asks for roots after its handshake, on its own schedule: wait (bounded)
    // until it has applied the answer.
    let listed = '';
    for (let waited = 0; waited < 10_000; waited += 100) {
      listed = text((await alice.callTool({ name: 'r_list_allowed_directories', arguments: {} })) as Json);
      if (listed.includes('shared')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.match(listed, /shared/);
    assert.doesNotMatch(listed, /notes/);
    const read = (await alice.callTool({
      name: 'r_read_text_file',
      arguments: { path: join(dir, 'shared/readme.txt') },
    })) as Json;
    assert.match(text(read), /shared with everyone/);
    assert.deepEqual(asked, []);
  });
});
