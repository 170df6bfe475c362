/**
 * The README's first ten minutes, as a new user runs them. The client command of the quick start
 * (`npm start --silent`, run by a real shell through npm) serves the demo with stdout carrying only
 * JSON-RPC, each reply valid against the official schema; `scripts/build.mjs` calls dist/ fresh
 * when the build's inputs are unchanged (whatever their mtimes) and stale when one changed, so
 * `npm start` after `npm ci` (which builds, `prepare`) serves without rebuilding; and every module
 * the README's "How it works" picture names exists where it says.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
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
import { schemaFor } from '../protocol/mcp-schemas.js';

const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
const shellLines = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n'));

/** A clone's top level in a temp folder: the files the commands read, src/dist/node_modules linked. */
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
    symlinkSync(join(REPO, 'src'), join(dir, 'src'));
    const child = spawn('sh', ['-c', command], { cwd: dir, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
    });
    const send = (message: object) =>
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'readme', version: '1' },
      },
    });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/list' });
    const replies = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no tools/list reply within 30 s:\n${stdout}\n${stderr}`)),
        30_000,
      );
      child.stdout.on('data', () => {
        if (stdout.split('\n').filter(Boolean).length >= 2) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    try {
      await replies;
    } finally {
      child.stdin.end();
    }
    const [code] = await once(child, 'exit');
    assert.equal(code, 0, stderr);
    assert.ok(
      stdout.startsWith('{"jsonrpc":"2.0"'),
      `stdout begins with something else: ${JSON.stringify(stdout.slice(0, 80))}`,
    );
    const messages = stdout
      .split('\n')
      .filter(Boolean)
      .map((text) => JSON.parse(text) as { id: number; result: unknown });
    assert.deepEqual(
      messages.map((m) => m.id),
      [1, 2],
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
    cpSync(join(REPO, 'src'), join(dir, 'src'), { recursive: true });
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
