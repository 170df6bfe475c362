/**
 * The README's first ten minutes, as a new user runs them. The client command of the quick start
 * (`npm start --silent`, run by a real shell through npm) serves the demo with stdout carrying only
 * JSON-RPC, each reply valid against the official schema; `scripts/build.mjs` calls dist/ fresh
 * when the build's inputs are unchanged (whatever their mtimes) and stale when one changed, so
 * `npm start` after `npm ci` (which builds, `prepare`) serves without rebuilding; and every module
 * the README's "How it works" picture names exists where it says.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO } from '../helpers/demo.js';
import { RawStdioPeer } from '../helpers/raw-stdio.js';
import { schemaFor } from '../protocol/mcp-schemas.js';

const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
const shellLines = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n'));

/** A clone's top level in a temp folder: the files the commands read, dist/node_modules/schemas linked. */
function cloneCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-clone-'));
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.json', 'mcp.yaml.example'])
    cpSync(join(REPO, file), join(dir, file));
  cpSync(join(REPO, 'scripts'), join(dir, 'scripts'), { recursive: true });
  cpSync(join(REPO, 'recipes/shop'), join(dir, 'recipes/shop'), {
    recursive: true,
    filter: (src) => !src.endsWith('.db'),
  });
  for (const linked of ['dist', 'node_modules', 'schemas'])
    symlinkSync(join(REPO, linked), join(dir, linked));
  return dir;
}

describe('the quick start', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("the README's client command serves the demo with nothing but JSON-RPC on stdout", async () => {
    const line = shellLines.find((l) => l.startsWith('npm start --silent'));
    assert.ok(line, 'the README shows no `npm start --silent` command for a client');
    const command = line.replace(/#.*$/, '').trim();
    const dir = cloneCopy();
    dirs.push(dir);
    for (const linked of ['src', 'web']) symlinkSync(join(REPO, linked), join(dir, linked));
    const peer = new RawStdioPeer([], dir, ['sh', '-c', command]);
    const messages: Record<string, any>[] = [];
    try {
      const params = {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'readme', version: '1' },
      };
      messages.push(await peer.request({ jsonrpc: '2.0', id: 1, method: 'initialize', params }));
      peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      messages.push(await peer.request({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    } finally {
      assert.equal(await peer.end(), 0, peer.stderr);
    }
    // Every byte of stdout: the two replies, and nothing before, between or after them.
    assert.deepEqual(
      peer.stdoutLines,
      messages.map((m) => JSON.stringify(m)),
    );
    const schema = schemaFor('2025-11-25');
    for (const message of messages) assert.deepEqual(schema.check('JSONRPCResultResponse', message), []);
    assert.deepEqual(schema.check('InitializeResult', messages[0]!.result), []);
    assert.deepEqual(schema.check('ListToolsResult', messages[1]!.result), []);
    assert.ok((messages[1]!.result as { tools: unknown[] }).tools.length > 0);
  });

  it('a build is due only when an input of it changed, not when only mtimes did', () => {
    const check = (cwd: string) =>
      spawnSync(process.execPath, ['scripts/build.mjs', '--check'], { cwd, encoding: 'utf8' });
    assert.equal(check(REPO).status, 0, 'dist/ of this checkout is not fresh after its build');
    const dir = cloneCopy();
    dirs.push(dir);
    for (const copied of ['src', 'web']) cpSync(join(REPO, copied), join(dir, copied), { recursive: true });
    const copied = check(dir);
    assert.equal(
      copied.status,
      0,
      `a copy of the same sources (new mtimes) is called stale: ${copied.stderr}`,
    );
    assert.equal(copied.stdout, '');
    appendFileSync(join(dir, 'src/log.ts'), '\n// changed\n');
    assert.equal(check(dir).status, 1, 'a changed source is not seen');
  });

  it('npm ci builds (prepare), and npm start and npm test build only when dist/ is stale', () => {
    const { scripts } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    assert.equal(scripts.prepare, 'node scripts/build.mjs --if-stale');
    for (const name of ['start', 'test'])
      assert.ok(
        scripts[name]!.startsWith('node scripts/build.mjs --if-stale && '),
        `${name}: ${scripts[name]}`,
      );
  });

  it('every module the "How it works" picture names exists in that folder', () => {
    const section = readme.slice(readme.indexOf('## How it works'));
    const picture = /```\n([\s\S]*?)```/.exec(section)![1]!;
    let folder = '';
    let named = 0;
    for (const line of picture.split('\n')) {
      const head = /^(src\/[\w/-]+\/)/.exec(line) ?? /^ +│? +◀── (src\/[\w/-]+\/)/.exec(line);
      if (head) folder = head[1]!;
      for (const [path] of line.matchAll(/src\/[\w/.-]+/g)) assert.ok(existsSync(join(REPO, path)), path);
      for (const [, dir] of line.matchAll(/(?:^|\s)([a-z]+\/)(?=[\s,])/g)) {
        if (!folder) continue;
        assert.ok(existsSync(join(REPO, folder, dir!)), `${folder}${dir}`);
        named++;
      }
      for (const [file] of line.matchAll(/(?<![\w/.])(?:[a-z]+\/)?[\w-]+\.ts\b/g)) {
        assert.ok(folder, `${file} named before any folder`);
        const found = readdirSync(join(REPO, folder), { recursive: true }).map(String);
        assert.ok(
          found.some((f) => f === file || f.endsWith(`/${file}`)),
          `${file} is not in ${folder}`,
        );
        named++;
      }
    }
    assert.ok(named > 15, `only ${named} modules named`);
  });
});
