/**
 * Golden tests, made of data: every manifest in fixtures/invalid must fail with exactly the error
 * text in its .expected.txt; every folder in fixtures/invalid/cli holds a command (case.json) that
 * must fail with exactly the output in its expected.txt; every folder in fixtures/valid must serve
 * exactly the lists in its expected.json. Together the invalid cases produce every code in
 * src/errors.ts, and a case named after a code produces that code only. Regenerate after an
 * intended change with `UPDATE_GOLDEN=1 npm test`, then review the diff.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, describe, test } from 'node:test';
import { compileCatalog } from '../src/catalog/compile.js';
import { CatalogRef } from '../src/catalog/types.js';
import { ManifestError, problems } from '../src/errors.js';
import { builtinKinds } from '../src/kinds/builtin.js';
import { StderrLogger } from '../src/log.js';
import { loadManifest } from '../src/manifest/load.js';
import { createProtocol } from '../src/protocol/server.js';
import { CLI, demoCopy, REPO } from './helpers/demo.js';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const registry = builtinKinds();
const log = new StderrLogger('silent');

async function compile(file: string) {
  // As validate and serve load: structure and compile errors in one report.
  return compileCatalog(await loadManifest(file, registry, {}, { deferErrors: true }), registry, log);
}

/**
 * Compares `actual` with the golden file. Only UPDATE_GOLDEN=1 writes it: a missing file fails, so a
 * new case cannot pass on whatever it happens to print today without anyone reading it.
 */
function matchGolden(file: string, actual: string): void {
  if (UPDATE) writeFileSync(file, actual);
  else if (!existsSync(file)) {
    assert.fail(
      `golden file ${relative(REPO, file)} is missing: run \`UPDATE_GOLDEN=1 npm test\` to write it, then review it`,
    );
  }
  assert.equal(actual, readFileSync(file, 'utf8'), `golden file ${relative(REPO, file)} differs`);
}

const INVALID = join(FIXTURES, 'invalid');
const CLI_CASES = join(INVALID, 'cli');
const ALL_CODES = Object.keys(problems);
/** How long a failing command may take before it counts as one that serves instead of failing. */
const CLI_LIMIT_MS = 60_000;

interface GoldenCase {
  readonly name: string;
  /** The file holding the expected text. */
  readonly expected: string;
}

/** One case per manifest fixtures/invalid/NAME.yaml, expected in NAME.expected.txt. */
const manifestCases: (GoldenCase & { readonly file: string })[] = readdirSync(INVALID)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => ({
    name: f.replace(/\.yaml$/, ''),
    file: join(INVALID, f),
    expected: join(INVALID, f.replace(/\.yaml$/, '.expected.txt')),
  }));

/** One case per folder fixtures/invalid/cli/NAME holding case.json, expected in NAME/expected.txt. */
const cliCases: (GoldenCase & { readonly dir: string })[] = readdirSync(CLI_CASES).map((name) => ({
  name,
  dir: join(CLI_CASES, name),
  expected: join(CLI_CASES, name, 'expected.txt'),
}));

/** The codes in an error text, in order. */
const codesIn = (text: string): string[] =>
  [...text.matchAll(/(?:error|warning)\[([A-Z_]+)\]/g)].map((m) => m[1]!);

/** The code a case is named after (source-unknown → SOURCE_UNKNOWN), if its name is one. */
function codeNamed(name: string): string | undefined {
  const code = name.toUpperCase().replaceAll('-', '_');
  return ALL_CODES.includes(code) ? code : undefined;
}

/** A case named after a code must produce that code and no other. */
function assertNamedCode(name: string, text: string): void {
  const code = codeNamed(name);
  if (code === undefined) return;
  const found = codesIn(text);
  assert.ok(found.length > 0, `case ${name} is named after ${code} but reports no error code`);
  assert.deepEqual([...new Set(found)], [code], `case ${name} must report ${code} only`);
}

describe('invalid manifests report every error with its position', () => {
  for (const c of manifestCases) {
    test(`${c.name}.yaml`, async () => {
      const err = await compile(c.file).then(
        () => assert.fail('the manifest compiled, but it should not'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof ManifestError, `expected a ManifestError, got ${String(err)}`);
      const text = `${err.message.replaceAll(INVALID, '<fixtures>')}\n`;
      assertNamedCode(c.name, text);
      matchGolden(c.expected, text);
    });
  }
});

/**
 * What fixtures/invalid/cli/NAME/case.json asks for: the built CLI's arguments, run in a private
 * copy of the case folder. `env` sets variables (null removes one); with `holdPort`, the test holds
 * a loopback port while the command runs and `{heldPort}` in an argument stands for it.
 */
interface CliCase {
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string | null>>;
  readonly holdPort?: boolean;
}

describe('commands that fail report the error a user sees', () => {
  for (const c of cliCases) {
    test(c.name, async () => {
      const spec = JSON.parse(readFileSync(join(c.dir, 'case.json'), 'utf8')) as CliCase;
      // A private copy: a command that should refuse to write must not touch the repository if it does.
      const work = mkdtempSync(join(tmpdir(), 'mcp-run-golden-'));
      const held = spec.holdPort ? await holdPort() : undefined;
      try {
        cpSync(c.dir, work, {
          recursive: true,
          filter: (src) => !/[/\\](case\.json|expected\.txt)$/.test(src),
        });
        const before = snapshot(work);
        const args = spec.args.map((a) => a.replaceAll('{heldPort}', String(held?.port)));
        const env: NodeJS.ProcessEnv = { ...process.env };
        for (const [name, value] of Object.entries(spec.env ?? {})) {
          if (value === null) delete env[name];
          else env[name] = value;
        }
        const run = await runCli(args, work, env);
        assert.deepEqual(snapshot(work), before, 'a failing command must leave the files it was given alone');
        let text = [`$ mcp-run ${spec.args.join(' ')}`, `exit code ${run.code}`, 'stderr:', run.stderr].join(
          '\n',
        );
        if (run.stdout !== '') text += `\nstdout:\n${run.stdout}`;
        for (const dir of new Set([realpathSync(work), work])) text = text.replaceAll(dir, '<case>');
        if (held) text = text.replaceAll(`:${held.port}`, ':<heldPort>');
        assert.ok(run.code !== null, `the command did not exit within ${CLI_LIMIT_MS / 1000} s:\n${text}`);
        assert.notEqual(run.code, 0, `the command succeeded, but it should not:\n${text}`);
        assertNamedCode(c.name, text);
        matchGolden(c.expected, text.endsWith('\n') ? text : `${text}\n`);
      } finally {
        await held?.release();
        rmSync(work, { recursive: true, force: true });
      }
    });
  }
});

/**
 * Codes only a live database server produces (a golden case runs with none), or only a fixture too
 * large to keep in the repository (a skill of 513 files), each with the test that produces it.
 */
const LIVE_ONLY: Readonly<Record<string, string>> = {
  SQL_QUERY_WITH_ROLE: 'test/kinds/sql/postgres/role-query.test.ts',
  SKILL_TOO_LARGE: 'test/e2e/skills.test.ts',
  UPSTREAM_ENTRY_UNKNOWN: 'test/e2e/mcp-upstream-stdio.test.ts',
  UPSTREAM_DESCRIPTION_CHANGED: 'test/e2e/mcp-upstream-changes.test.ts',
};

describe('the golden cases cover every error code', () => {
  test('a code no golden case can produce is asserted by the test that produces it live', () => {
    for (const [code, file] of Object.entries(LIVE_ONLY)) {
      assert.ok(ALL_CODES.includes(code), `${code} is not a code of src/errors.ts`);
      assert.match(
        readFileSync(join(REPO, file), 'utf8'),
        new RegExp(`\\b${code}\\b`),
        `${file} never names ${code}`,
      );
    }
  });
  test('every code in src/errors.ts is produced by at least one case', () => {
    const produced = new Set<string>(Object.keys(LIVE_ONLY));
    for (const c of [...manifestCases, ...cliCases]) {
      if (existsSync(c.expected))
        for (const code of codesIn(readFileSync(c.expected, 'utf8'))) produced.add(code);
    }
    const missing = ALL_CODES.filter((code) => !produced.has(code));
    assert.deepEqual(
      missing,
      [],
      `no golden case produces ${missing.join(', ')}: add a fixture named after each code to ` +
        `${relative(REPO, INVALID)} (a manifest) or ${relative(REPO, CLI_CASES)} (a command)`,
    );
  });
  test('every expected text belongs to a case', () => {
    const expected = new Set([...manifestCases, ...cliCases].map((c) => c.expected));
    const orphans = readdirSync(INVALID)
      .filter((f) => f.endsWith('.expected.txt'))
      .map((f) => join(INVALID, f))
      .filter((f) => !expected.has(f));
    assert.deepEqual(
      orphans.map((f) => relative(REPO, f)),
      [],
      'expected texts without a case',
    );
  });
});

/** Runs the built CLI (npm test builds it first) and captures what a user sees. */
function runCli(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    // A command that should fail at once but serves instead would run forever. Some stop only at a
    // budget (openapi-too-large inlines 4,000,000 values first: seconds, more on a loaded machine).
    const timer = setTimeout(() => child.kill('SIGKILL'), CLI_LIMIT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Holds a free loopback port until `release`, as another program on the machine would. */
async function holdPort(): Promise<{ port: number; release: () => Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return { port: address.port, release: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Every file under `dir` with its content, to see whether a command wrote anything. */
function snapshot(dir: string): Record<string, string> {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  return Object.fromEntries(
    files.map((e) => {
      const path = join(e.parentPath, e.name);
      return [relative(dir, path), readFileSync(path, 'base64')];
    }),
  );
}

describe('valid manifests serve exactly their expected lists', () => {
  const dir = join(FIXTURES, 'valid');
  const cases = readdirSync(dir).map((name) => [name, join(dir, name, 'mcp.yaml')] as const);
  // The demo creates its database on first run: compile a private copy, not the repository's.
  const demo = demoCopy();
  after(() => demo.cleanup());
  for (const [name, file] of [...cases, ['demo (mcp.yaml.example)', demo.manifest] as const]) {
    test(name, async () => {
      const catalog = await compile(file);
      try {
        const lists = await listEverything(new CatalogRef(catalog));
        const expected = name.startsWith('demo')
          ? join(FIXTURES, 'demo.expected.json')
          : join(dir, name, 'expected.json');
        matchGolden(expected, `${JSON.stringify(lists, null, 2).replaceAll(REPO, '<repo>')}\n`);
      } finally {
        await catalog.dispose();
      }
    });
  }
});

/** What a 2025-era client sees from the four list methods. */
async function listEverything(ref: CatalogRef): Promise<Record<string, unknown>> {
  const sent: Record<string, unknown>[] = [];
  const connection = createProtocol(ref, { log, listChanged: false }).connect((m) => sent.push(m as never));
  await connection.receive({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'golden', version: '1' } },
  });
  const lists: Record<string, unknown> = {};
  for (const method of ['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list']) {
    await connection.receive({ jsonrpc: '2.0', id: method, method, params: {} });
    lists[method] = sent.find((m) => m.id === method)?.result;
  }
  connection.close();
  return lists;
}
