/**
 * recipes/git-tools served by the built CLI over stdio to the official SDK v2 client (2026-07-28),
 * on a git repository the test creates: real git, real commits, hostile arguments.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, REPO } from '../helpers/demo.js';

const MANIFEST = join(REPO, 'recipes/git-tools/mcp.yaml');

describe('recipes/git-tools', () => {
  const repo = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-run-git-')));
  const marker = join(repo, 'PWNED');
  const client = new Client(
    { name: 'recipe-git-tools', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const git = (args: string[], author = 'Ann Author') =>
    execFileSync('git', args, {
      cwd: repo,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: author,
        GIT_AUTHOR_EMAIL: `${author.split(' ')[0]!.toLowerCase()}@example.com`,
        GIT_COMMITTER_NAME: author,
        GIT_COMMITTER_EMAIL: 'ci@example.com',
        GIT_AUTHOR_DATE: '2026-01-05T12:00:00Z',
        GIT_COMMITTER_DATE: '2026-01-05T12:00:00Z',
      },
    });
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as { content: { text: string }[]; isError?: boolean };
  const text = async (name: string, args: Record<string, unknown> = {}) => {
    const r = await call(name, args);
    assert.equal(r.isError, undefined, r.content[0]!.text);
    return r.content[0]!.text;
  };

  before(async () => {
    git(['init', '-q', '-b', 'main']);
    writeFileSync(join(repo, 'app.txt'), 'line one\nline two\n');
    writeFileSync(join(repo, '-rf'), 'a file with an awkward name\n');
    git(['add', '.']);
    git(['commit', '-q', '-m', 'First commit']);
    writeFileSync(join(repo, 'app.txt'), 'line one\nline two, changed\nline three\n');
    git(['commit', '-q', '-am', 'Change app; add line three'], 'Bob Builder');
    writeFileSync(join(repo, 'app.txt'), 'line one\nuncommitted\n');
    const env = { ...(process.env as Record<string, string>), GIT_REPO: repo };
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, MANIFEST], env, stderr: 'pipe' }),
    );
  });
  after(async () => {
    await client.close();
    rmSync(repo, { recursive: true, force: true });
  });

  test('git_log: newest first, limited, by author, by path', async () => {
    const head = git(['rev-parse', '--short', 'HEAD']).trim();
    const first = git(['rev-parse', '--short', 'HEAD~1']).trim();
    assert.equal(
      await text('git_log'),
      `${head} 2026-01-05 Bob Builder: Change app; add line three\n${first} 2026-01-05 Ann Author: First commit\n`,
    );
    assert.equal(
      await text('git_log', { count: 1 }),
      `${head} 2026-01-05 Bob Builder: Change app; add line three\n`,
    );
    assert.equal(await text('git_log', { author: 'ann' }), `${first} 2026-01-05 Ann Author: First commit\n`);
    assert.equal(await text('git_log', { path: '-rf' }), `${first} 2026-01-05 Ann Author: First commit\n`);
  });

  test('git_show and git_diff', async () => {
    const shown = await text('git_show', { rev: 'HEAD' });
    assert.match(shown, /^commit [0-9a-f]{40}\nAuthor:\s+Bob Builder <bob@example.com>/);
    assert.match(shown, /-line two\n\+line two, changed\n\+line three/);
    const between = await text('git_diff', { from: 'HEAD~1', to: 'HEAD' });
    assert.match(between, /app.txt \| 3 \+\+-/);
    assert.match(between, /\+line three/);
    const uncommitted = await text('git_diff');
    assert.match(uncommitted, /-line two, changed\n-line three\n\+uncommitted/);
    const onePath = await text('git_diff', { from: 'HEAD~1', path: '-rf' });
    assert.equal(onePath, 'git finished with no output.');
  });

  test('git_blame: whole file or a range', async () => {
    const blame = await text('git_blame', { file: 'app.txt', start: 2, end: 2, rev: 'HEAD' });
    assert.match(blame, /\(Bob Builder 2026-01-05 2\) line two, changed\n$/);
    assert.equal(blame.split('\n').length, 2);
    const all = await text('git_blame', { file: 'app.txt', rev: 'HEAD' });
    assert.equal(all.trim().split('\n').length, 3);
    assert.match(all, /\(Ann Author\s+2026-01-05 1\) line one/);
  });

  test('hostile arguments: options refused, metacharacters inert, paths stay in the repository', async () => {
    const refused = await call('git_show', { rev: `--output=${marker}` });
    assert.equal(refused.isError, true);
    assert.match(refused.content[0]!.text, /starts with "-" and would be read as an option/);
    for (const rev of [`HEAD; touch ${marker}`, `$(touch ${marker})`, `HEAD\ntouch ${marker}`]) {
      const r = await call('git_show', { rev });
      assert.equal(r.isError, true, rev);
      assert.match(r.content[0]!.text, /^git exited with code 128\.\nfatal: /);
    }
    const outside = await call('git_blame', { file: '../../etc/passwd' });
    assert.equal(outside.isError, true);
    assert.match(outside.content[0]!.text, /outside repository/);
    assert.ok(!existsSync(marker), 'a second command ran');
  });
});
