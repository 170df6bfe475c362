/**
 * Kinds load on use: serving a manifest of `content` tools imports the content kind's module and
 * no other kind's (no SQL, HTTP, shell, files or prompt code, no driver), and no node:http on stdio.
 *
 * A real `mcp-run` process (the built CLI) serves the manifest on stdio and answers a tools/call; a
 * module hook registered with `--import` writes down every module the process loads. The CLI is a
 * bundle (scripts/bundle-cli.mjs): a loaded chunk stands for the source modules its source map lists.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { CLI, REPO, tempFiles } from '../helpers/demo.js';

const files = tempFiles({
  'mcp.yaml': [
    'tools:',
    '  greet:',
    '    kind: content',
    '    input: { name: { type: string } }',
    '    content: [{ text: "Hello, {{name}}!" }]',
    '',
  ].join('\n'),
  // Runs in the hooks thread: appends the URL of every module loaded to the file the env names.
  'hooks.mjs': [
    "import { appendFileSync } from 'node:fs';",
    'export async function load(url, context, next) {',
    "  appendFileSync(process.env.MODULES_OUT, url + '\\n');",
    '  return next(url, context);',
    '}',
    '',
  ].join('\n'),
  'register.mjs': "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n",
});
after(files.cleanup);

/** The modules a real `mcp-run <manifest>` loads until it has answered one tools/call. */
async function modulesLoadedServing(manifest: string): Promise<{ modules: Set<string>; answer: unknown }> {
  const out = join(files.dir, 'modules.txt');
  const child = spawn(
    process.execPath,
    ['--import', pathToFileURL(join(files.dir, 'register.mjs')).href, CLI, manifest, '--no-watch'],
    { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, MODULES_OUT: out } },
  );
  const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'greet', arguments: { name: 'Ada' } },
  });
  let answer: unknown;
  for await (const line of createInterface({ input: child.stdout })) {
    const message = JSON.parse(line) as { id?: number; result?: unknown };
    if (message.id === 1) {
      answer = message.result;
      break;
    }
  }
  child.stdin.end();
  await new Promise((done) => child.once('exit', done));
  const loaded = readFileSync(out, 'utf8').split('\n').filter(Boolean);
  return { modules: new Set(loaded.flatMap(withBundledSources)), answer };
}

/**
 * A loaded module, and when it is a bundle chunk, the source modules in it, named as tsc's build
 * names them (src/kinds/content/tool.ts → the URL of dist/kinds/content/tool.js).
 */
function withBundledSources(url: string): string[] {
  if (!url.startsWith('file:') || !existsSync(`${fileURLToPath(url)}.map`)) return [url];
  const map = JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')) as { sources: string[] };
  const sources = map.sources
    .map((source) => new URL(source, url))
    .filter((source) => source.href.startsWith(pathToFileURL(join(REPO, 'src/')).href))
    .map(
      (source) =>
        pathToFileURL(
          join(REPO, 'dist', fileURLToPath(source).slice(join(REPO, 'src').length).replace(/\.ts$/, '.js')),
        ).href,
    );
  return [url, ...sources];
}

/** Each built-in kind's module, as builtin.ts imports it (`import('./sql/sql-tool.js')`), in dist/. */
function kindModules(): Map<string, string> {
  const source = readFileSync(join(REPO, 'src/kinds/builtin.ts'), 'utf8');
  const paths = [...source.matchAll(/import\('\.\/([^']+\.js)'\)/g)].map((m) => m[1]!);
  return new Map(paths.map((path) => [path, pathToFileURL(join(REPO, 'dist/kinds', path)).href]));
}

test('a manifest of content tools loads the content kind and no other kind module', async () => {
  const kinds = kindModules();
  // Every registered kind has its import in builtin.ts: the list read here is the whole list.
  const registry = builtinKinds();
  const registered = (['sources', 'tools', 'resources', 'prompts'] as const).flatMap((s) =>
    registry.kinds(s),
  );
  assert.equal(kinds.size, registered.length);

  const { modules, answer } = await modulesLoadedServing(join(files.dir, 'mcp.yaml'));
  assert.deepEqual(answer, { content: [{ type: 'text', text: 'Hello, Ada!' }] });
  assert.ok(modules.has(kinds.get('content/tool.js')!), 'the content kind was loaded');
  const others = [...kinds].filter(([path, url]) => path !== 'content/tool.js' && modules.has(url));
  assert.deepEqual(
    others.map(([path]) => path),
    [],
    'kind modules loaded though the manifest does not use them',
  );
  const drivers = [...modules].filter((url) => /node_modules\/(pg|mysql2|better-sqlite3|undici)\//.test(url));
  assert.deepEqual(drivers, [], 'drivers loaded by a manifest without sources');
  assert.ok(!modules.has('node:http'), 'node:http loaded by a stdio server');
});
