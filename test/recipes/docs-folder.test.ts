/**
 * recipes/docs-folder served by the built CLI over stdio to the official SDK v1 client: pages as
 * resources, a page template that cannot climb out of the folder, prompts with completion.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, REPO } from '../helpers/demo.js';

const MANIFEST = join(REPO, 'recipes/docs-folder/mcp.yaml');

describe('recipes/docs-folder', () => {
  const client = new Client({ name: 'recipe-docs', version: '1' });
  before(() =>
    client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, MANIFEST, '--no-watch'] }),
    ),
  );
  after(() => client.close());

  test('every page is a resource', async () => {
    const { resources } = await client.listResources();
    assert.deepEqual(
      resources.map((r) => r.uri),
      [
        'docs://acme/getting-started.md',
        'docs://acme/guides/configuration.md',
        'docs://acme/guides/deploying.md',
      ],
    );
  });

  test('the page template reads nested pages and nothing outside the folder', async () => {
    const page = await client.readResource({ uri: 'docs://acme-page/guides/configuration' });
    const first = page.contents[0]!;
    assert.match('text' in first ? first.text : '', /^# Configuration/);
    for (const uri of [
      'docs://acme-page/../mcp',
      'docs://acme-page/..%2Fmcp',
      'docs://acme-page/guides/..%2F..%2FREADME',
    ]) {
      await assert.rejects(client.readResource({ uri }), (err: { code: number }) => err.code === -32002, uri);
    }
  });

  test('the page template and the prompts are tools too (mirror), for clients that only use tools', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['read_page', 'get_prompt_answer_from_docs', 'get_prompt_review_page'],
    );
    const page = await client.callTool({ name: 'read_page', arguments: { page: 'guides/configuration' } });
    const [first] = page.content as { type: string; text: string }[];
    assert.match(first?.text ?? '', /^# Configuration/);
  });

  test('page names complete, and the prompts render', async () => {
    const completion = await client.complete({
      ref: { type: 'ref/resource', uri: 'docs://acme-page/{+page}' },
      argument: { name: 'page', value: 'guides/' },
    });
    assert.deepEqual(completion.completion.values, ['guides/configuration', 'guides/deploying']);
    const review = await client.getPrompt({ name: 'review_page', arguments: { page: 'guides/deploying' } });
    const text = review.messages[0]!.content;
    assert.match(text.type === 'text' ? text.text : '', /docs:\/\/acme-page\/guides\/deploying/);
  });
});
