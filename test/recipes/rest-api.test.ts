/**
 * recipes/rest-api served by the built CLI over stdio to the official SDK v1 client, against a local
 * stand-in that answers like the GitHub REST API for the calls the recipe makes (and checks the
 * token, the API version header and the request shapes as GitHub would).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, REPO } from '../helpers/demo.js';
import { startUpstream, type Upstream } from '../kinds/http/upstream.js';
import { github, TOKEN } from '../testing/stand-ins.js';

const MANIFEST = join(REPO, 'recipes/rest-api/mcp.yaml');

describe('recipes/rest-api', () => {
  let upstream: Upstream;
  const client = new Client({ name: 'recipe-rest-api', version: '1.0.0' });
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as {
      content: { type: string; text: string }[];
      structuredContent?: unknown;
      isError?: boolean;
    };
  const last = () => upstream.seen.at(-1)!;

  before(async () => {
    upstream = await startUpstream(() => github);
    const env = {
      ...(process.env as Record<string, string>),
      ISSUES_API_URL: upstream.origin,
      GITHUB_TOKEN: TOKEN,
    };
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, MANIFEST], env, stderr: 'pipe' }),
    );
  });
  after(async () => {
    await client.close();
    await upstream.close();
  });

  test('validates as committed, with api.github.com as the default base URL', () => {
    const run = spawnSync(process.execPath, [CLI, 'validate', MANIFEST], {
      env: { ...process.env, GITHUB_TOKEN: TOKEN, ISSUES_API_URL: '' },
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /is valid: 7 tools/);
  });

  test('lists issues: arguments as query parameters, a compact picked list, readable text', async () => {
    const r = await call('list_issues', { owner: 'acme', repo: 'widgets', per_page: 5 });
    assert.equal(last().url, '/repos/acme/widgets/issues?state=open&per_page=5&page=1');
    assert.equal(last().headers.accept, 'application/vnd.github+json');
    assert.deepEqual(r.structuredContent, {
      result: [
        {
          number: 2,
          title: 'Crash on start',
          state: 'open',
          user: 'ann',
          labels: ['bug'],
          comments: 2,
          updated_at: '2026-01-03T10:00:00Z',
        },
        {
          number: 1,
          title: 'Slow search',
          state: 'open',
          user: 'ann',
          labels: [],
          comments: 2,
          updated_at: '2026-01-03T10:00:00Z',
        },
      ],
    });
    assert.equal(
      r.content[0]!.text,
      '#2 Crash on start [open] by ann, 2 comments, updated 2026-01-03T10:00:00Z\n#1 Slow search [open] by ann, 2 comments, updated 2026-01-03T10:00:00Z\n',
    );
    const empty = await call('list_issues', { owner: 'acme', repo: 'widgets', page: 2, labels: 'bug,ui' });
    assert.equal(last().url, '/repos/acme/widgets/issues?state=open&labels=bug%2Cui&per_page=20&page=2');
    assert.equal(empty.content[0]!.text, 'No issues.');
  });

  test('gets one issue, its comments, and searches', async () => {
    const one = await call('get_issue', { owner: 'acme', repo: 'widgets', number: 2 });
    assert.deepEqual(one.structuredContent, {
      number: 2,
      title: 'Crash on start',
      state: 'open',
      state_reason: null,
      user: 'ann',
      labels: ['bug'],
      assignees: ['bob'],
      comments: 2,
      created_at: '2026-01-02T10:00:00Z',
      updated_at: '2026-01-03T10:00:00Z',
      html_url: 'https://github.com/acme/widgets/issues/2',
      body: 'Body of 2',
    });
    const comments = await call('list_comments', { owner: 'acme', repo: 'widgets', number: 2 });
    assert.equal(last().url, '/repos/acme/widgets/issues/2/comments?per_page=30');
    assert.deepEqual(comments.structuredContent, {
      result: [{ user: 'cy', created_at: '2026-01-04T00:00:00Z', body: 'Same here' }],
    });
    const found = await call('search_issues', { owner: 'acme', repo: 'widgets', query: 'crash is:open' });
    assert.equal(new URL(last().url, 'http://x').searchParams.get('q'), 'repo:acme/widgets crash is:open');
    assert.deepEqual(found.structuredContent, {
      total_count: 1,
      items: [{ number: 2, title: 'Crash on start', state: 'open', user: 'ann' }],
    });
  });

  test('writes: JSON bodies built as data, labels as an array, absent fields left out', async () => {
    const created = await call('create_issue', {
      owner: 'acme',
      repo: 'widgets',
      title: 'Quote " and \\ survive',
      labels: ['bug', 'ui'],
    });
    assert.deepEqual(JSON.parse(last().body), { title: 'Quote " and \\ survive', labels: ['bug', 'ui'] });
    assert.deepEqual(created.structuredContent, {
      number: 3,
      state: 'open',
      html_url: 'https://github.com/acme/widgets/issues/3',
    });
    const comment = await call('add_comment', { owner: 'acme', repo: 'widgets', number: 2, body: 'On it.' });
    assert.deepEqual(JSON.parse(last().body), { body: 'On it.' });
    assert.deepEqual(comment.structuredContent, {
      id: 12,
      html_url: 'https://github.com/acme/widgets/issues/2#issuecomment-12',
    });
    const closed = await call('close_issue', {
      owner: 'acme',
      repo: 'widgets',
      number: 2,
      reason: 'not_planned',
    });
    assert.equal(last().method, 'PATCH');
    assert.deepEqual(JSON.parse(last().body), { state: 'closed', state_reason: 'not_planned' });
    assert.deepEqual(closed.structuredContent, { number: 2, state: 'closed', state_reason: 'not_planned' });
  });

  test('a missing issue is an error result the model can act on; the token never shows', async () => {
    const r = await call('get_issue', { owner: 'acme', repo: 'nope', number: 1 });
    assert.equal(r.isError, true);
    assert.equal(
      r.content[0]!.text,
      'GET /repos/acme/nope/issues/1 returned 404 Not Found: {"message":"Not Found","documentation_url":"https://docs.github.com/rest"}\nIt does not exist, or the credentials cannot see it.',
    );
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => [t.name, t.annotations?.readOnlyHint ?? false]),
      [
        ['list_issues', true],
        ['get_issue', true],
        ['list_comments', true],
        ['search_issues', true],
        ['create_issue', false],
        ['add_comment', false],
        ['close_issue', false],
      ],
    );
    assert.ok(!JSON.stringify(upstream.seen.map((s) => s.url)).includes(TOKEN));
  });
});
