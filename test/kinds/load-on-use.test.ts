/**
 * Kinds load on use: serving a manifest of `content` tools runs the content kind's module and no
 * other kind's (no SQL, HTTP, shell, files or prompt code, no driver), no node:http on stdio, nor
 * node:v8, and no precompiled validator of the manifest.
 *
 * A real `mcp-run` process (the built CLI) serves the manifest on stdio and answers a tools/call.
 * The CLI is one bundle (scripts/bundle-cli.mjs) in which each module is a function that runs on the
 * module's first import: V8's coverage of the process (NODE_V8_COVERAGE) says which functions ran,
 * and the bundle's source map which source file each is in. Packages are seen as they load,
 * through a module hook (import) and a preload (require), and node's own modules in its load list.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { CLI, REPO, tempFiles } from '../helpers/demo.js';
import { GREET_MANIFEST, REQUIRE_LOG_PRELOAD } from '../helpers/loaded-modules.js';

const files = tempFiles({
  'mcp.yaml': GREET_MANIFEST,
  'http.yaml': [
    'sources:',
    '  api: { kind: http, baseUrl: "http://127.0.0.1:9" }',
    'tools:',
    '  zen:',
    '    kind: http',
    '    source: api',
    '    description: The zen of the API.',
    '    method: GET',
    '    path: /zen',
    '',
  ].join('\n'),
  // Runs in the hooks thread: appends the URL of every module imported to the file the env names.
  'hooks.mjs': [
    "import { appendFileSync } from 'node:fs';",
    'export async function load(url, context, next) {',
    "  appendFileSync(process.env.MODULES_OUT, url + '\\n');",
    '  return next(url, context);',
    '}',
    '',
  ].join('\n'),
  'register.mjs': "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n",
  // Every package required, and at exit node's own modules loaded.
  'preload.cjs': REQUIRE_LOG_PRELOAD,
});
after(files.cleanup);

interface CoverageScript {
  url: string;
  functions: { functionName: string; ranges: { startOffset: number; endOffset: number; count: number }[] }[];
}

/**
 * The source files of src/ whose code ran in the bundle, by the source map beside it: the place in
 * src/ of each function V8 counted calls of. (The minified bundle keeps no module names of its own.)
 * A function the build wrote itself (a module's wrapper) has no place of its own in the map and is
 * left out, rather than counted to the file before it.
 */
function sourcesRun(script: CoverageScript): Set<string> {
  const file = script.url.startsWith('file:') ? fileURLToPath(script.url) : script.url;
  const text = readFileSync(file, 'latin1');
  const map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
  // Offsets count from the start of what V8 compiled: on Node 20 util/code-cache.cts's wrapper comes
  // before the text (and `\n})` after it); node's own loader compiles the file alone. The script's
  // own range, its first function, tells which.
  const compiled = script.functions[0]!.ranges[0]!.endOffset;
  const shift = compiled === text.length ? 0 : compiled - text.length - '\n})'.length;
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const ran = new Set<string>();
  for (const f of script.functions.slice(1)) {
    const range = f.ranges[0];
    if (!range || range.count === 0) continue;
    const at = range.startOffset - shift;
    let line = lineStarts.findLastIndex((start) => start <= at);
    const column = at - lineStarts[line]!;
    const entry = map.findEntry(line, column) as {
      generatedLine?: number;
      generatedColumn?: number;
      originalSource?: string;
    };
    if (entry.originalSource === undefined || entry.generatedLine === undefined) continue;
    line = entry.generatedLine;
    if (line < 0 || lineStarts[line]! + entry.generatedColumn! < at) continue;
    ran.add(relative(REPO, resolve(dirname(file), entry.originalSource)));
  }
  return ran;
}

/** How many processes loadedServing started: each writes its lists to files of its own. */
let served = 0;

/** What a real `mcp-run <manifest>` loads and runs until it has answered one tools/call. */
async function loadedServing(manifest: string) {
  served++;
  const out = join(files.dir, `modules-${served}.txt`);
  const coverage = join(files.dir, `coverage-${served}`);
  const child = spawn(
    process.execPath,
    [
      '--import',
      pathToFileURL(join(files.dir, 'register.mjs')).href,
      '--require',
      join(files.dir, 'preload.cjs'),
      CLI,
      manifest,
      '--no-watch',
    ],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, MODULES_OUT: out, NODE_V8_COVERAGE: coverage },
    },
  );
  const send = openExchange(child);
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
  const loaded = new Set(readFileSync(out, 'utf8').split('\n').filter(Boolean));
  // The source files whose code ran in this process, in the bundle.
  let ran = new Set<string>();
  // The precompiled manifest validators loaded (their files).
  const validators = new Set<string>();
  let bundles = 0;
  for (const file of readdirSync(coverage)) {
    const { result } = JSON.parse(readFileSync(join(coverage, file), 'utf8')) as { result: CoverageScript[] };
    for (const script of result) {
      const validator = /\/dist\/manifest\/precompiled\/([^/]+)\.cjs$/.exec(script.url);
      if (validator) validators.add(validator[1]!);
    }
    for (const script of result.filter((s) => s.url.endsWith('/dist/cli/mcp-run.cjs'))) {
      bundles++;
      ran = sourcesRun(script);
    }
  }
  assert.equal(bundles, 1, 'the CLI ran from its bundle');
  return { loaded, ran, validators, answer };
}

/** Each built-in kind's module, as builtin.ts imports it (`import('./sql/sql-tool.js')`), by source file. */
function kindModules(): Map<string, string> {
  const source = readFileSync(join(REPO, 'src/kinds/builtin.ts'), 'utf8');
  const paths = [...source.matchAll(/import\('\.\/([^']+)\.js'\)/g)].map((m) => m[1]!);
  return new Map(paths.map((path) => [path, `src/kinds/${path}.ts`]));
}

test('a manifest of content tools runs the content kind and no other kind module', async () => {
  const kinds = kindModules();
  // Every registered kind has its import in builtin.ts: the list read here is the whole list.
  const registry = builtinKinds();
  const registered = (['sources', 'tools', 'resources', 'prompts'] as const).flatMap((s) =>
    registry.kinds(s),
  );
  assert.equal(kinds.size, registered.length);

  const { loaded, ran, validators, answer } = await loadedServing(join(files.dir, 'mcp.yaml'));
  assert.deepEqual(answer, { content: [{ type: 'text', text: 'Hello, Ada!' }] });
  assert.ok(ran.has(kinds.get('content/tool')!), 'the content kind ran');
  assert.ok(ran.has('src/protocol/server.ts'), 'the protocol ran (the coverage names modules as expected)');
  const others = [...kinds].filter(([path, file]) => path !== 'content/tool' && ran.has(file));
  assert.deepEqual(
    others.map(([path]) => path),
    [],
    'kind modules run though the manifest does not use them',
  );
  const drivers = [...loaded].filter((m) =>
    /(^|node_modules\/)(pg|mysql2|better-sqlite3|undici|ioredis|jose|@duckdb\/[a-z-]+)(\/|$)/.test(m),
  );
  assert.deepEqual(drivers, [], 'drivers loaded by a manifest without sources');
  assert.ok(!loaded.has('NativeModule http'), 'node:http loaded by a stdio server');
  // A valid manifest conforms to its schemas, as manifest/conforms.ts can tell alone: no validator.
  assert.deepEqual([...validators], [], 'precompiled validators loaded for a valid manifest');
  // V8's flags stay as they are for a small manifest, and with them node's own compiled modules
  // (cli/young-generation.cts): node:v8, which sets them, never loads.
  assert.ok(!loaded.has('NativeModule v8'), 'node:v8 loaded for a small manifest');
  assert.ok(
    loaded.has('NativeModule readline') || loaded.has('NativeModule fs'),
    'the load list was written',
  );
});

test('a manifest without policies, audit, views, skills or search mode loads none of their code', async () => {
  const { loaded, ran, answer } = await loadedServing(join(files.dir, 'mcp.yaml'));
  assert.deepEqual(answer, { content: [{ type: 'text', text: 'Hello, Ada!' }] });
  assert.ok(
    ran.has('src/catalog/compile.ts'),
    'the catalog compiled (the coverage names modules as expected)',
  );
  // The policy compiler and CEL, the audit trail and its writers, the shared limit store: none of
  // their code runs. (What every start asks of the others, the views' fields, the callers' limits,
  // the toolsets' skills, is a look at the manifest that finds nothing.)
  const unused =
    /^src\/(governance\/(policy\/(cel|compile)|audit\/(chain|query|record|sinks|trail|writer)|limits\/redis-store)|cli\/(audit|skills))\.ts$/;
  assert.deepEqual(
    [...ran].filter((file) => unused.test(file)),
    [],
    'modules of features the manifest does not use ran',
  );
  // CEL (policies) and node:crypto (hashes of views, skills and callers) load on use.
  assert.ok(!loaded.has('@marcbachmann/cel-js'), 'CEL loaded by a manifest without policies');
  assert.ok(!loaded.has('NativeModule crypto'), 'node:crypto loaded by a start that hashes nothing');
  assert.ok(loaded.has('NativeModule fs'), 'the load list was written');
});

test('an http source loads undici and node:http on its first request, not to list its tools', async () => {
  const out = join(files.dir, 'http-modules.txt');
  const child = spawn(
    process.execPath,
    ['--require', join(files.dir, 'preload.cjs'), CLI, join(files.dir, 'http.yaml'), '--no-watch'],
    { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, MODULES_OUT: out } },
  );
  const send = openExchange(child);
  send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  let listed: unknown;
  for await (const line of createInterface({ input: child.stdout })) {
    const message = JSON.parse(line) as { id?: number; result?: { tools: { name: string }[] } };
    if (message.id === 1) {
      listed = message.result?.tools.map((t) => t.name);
      break;
    }
  }
  child.stdin.end();
  await new Promise((done) => child.once('exit', done));
  assert.deepEqual(listed, ['zen']);
  const loaded = new Set(readFileSync(out, 'utf8').split('\n').filter(Boolean));
  assert.ok(loaded.has('NativeModule fs'), 'the load list was written');
  assert.ok(
    ![...loaded].some((m) => /(^|node_modules\/)undici(\/|$)/.test(m)),
    'undici loaded to list tools',
  );
  assert.ok(!loaded.has('NativeModule http'), 'node:http loaded to list tools');
});

/** Writes the opening exchange (initialize, initialized) to a stdio server; returns its line writer. */
function openExchange(child: { readonly stdin: Writable }): (message: object) => void {
  const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return send;
}
