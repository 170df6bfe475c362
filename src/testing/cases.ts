/**
 * Test files: `tests/*.yaml` beside a manifest. Each names the manifest (default `../mcp.yaml`),
 * environment defaults, variables it needs (else the file is skipped, with the reason) and its
 * cases: one tool call, resource read or prompt get each, with expectations on the result.
 *
 * @example
 * ```yaml
 * manifest: ../mcp.yaml              # the default
 * env: { GITHUB_TOKEN: test-token }  # defaults; the real environment wins
 * requires: [MCP_RUN_TEST_POSTGRES_URL]
 * tests:
 *   - name: lists open issues
 *     call: list_issues
 *     args: { owner: acme, repo: widgets }
 *     expect:
 *       isError: false
 *       contains: "#2 Crash on start"
 *       structured: { result: [{ number: 2 }] }
 *       rows: 2
 *       snapshot: true
 *   - name: a caller sees only their own orders
 *     call: my_orders
 *     claims: { sub: u1, email: ada@example.com }   # the caller's verified identity, for fromClaim
 *     expect: { rows: 2 }
 *   - name: a guest may not export
 *     call: export_orders
 *     claims: { sub: g1, roles: [guest] }
 *     expect: { denied: staff-only }                 # the policy that refuses it (-32040)
 * ```
 *
 * A manifest may also hold its cases itself, in a top-level `tests:` list of the same cases; its
 * snapshots and HTTP fixtures are then `<manifest>.snap.json` and `<manifest>.http.json`.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { isObject as isPlainObject } from '../util/is-object.js';

export interface Expectations {
  readonly isError?: boolean;
  readonly text?: string;
  readonly contains?: readonly string[];
  readonly structured?: unknown;
  readonly rows?: number;
  readonly snapshot?: boolean;
  /** The request is refused by this policy (docs/governance.md#policies): a -32040 error naming it. */
  readonly denied?: string;
}

export type Action =
  | { readonly type: 'call'; readonly name: string; readonly args: Record<string, unknown> }
  | { readonly type: 'read'; readonly uri: string }
  | { readonly type: 'prompt'; readonly name: string; readonly args: Record<string, unknown> };

export interface TestCase {
  readonly name: string;
  readonly action: Action;
  /**
   * The claims of the caller's verified access token, as if it came over HTTP with OAuth: what
   * claim-bound inputs and arguments (`fromClaim`) read. Absent: no identity, as on stdio.
   */
  readonly claims?: Readonly<Record<string, unknown>>;
  readonly expect: Expectations;
}

export interface TestFile {
  /** Absolute path of the test file. */
  readonly file: string;
  readonly manifest: string;
  readonly env: Readonly<Record<string, string>>;
  readonly requires: readonly string[];
  readonly cases: readonly TestCase[];
}

export class TestFileError extends Error {}

const FILE_KEYS = new Set(['manifest', 'env', 'requires', 'tests']);
const CASE_KEYS = new Set(['name', 'call', 'read', 'prompt', 'args', 'claims', 'expect']);
const EXPECT_KEYS = new Set(['isError', 'text', 'contains', 'structured', 'rows', 'snapshot', 'denied']);

/** The sections that make a YAML file a manifest rather than a test file. */
const MANIFEST_KEYS = ['server', 'sources', 'tools', 'resources', 'prompts'];

const isManifest = (data: unknown): data is Record<string, unknown> =>
  isPlainObject(data) && MANIFEST_KEYS.some((key) => key in data);

async function readYaml(file: string): Promise<unknown> {
  try {
    return parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new TestFileError(`${file}: ${(err as Error).message}`);
  }
}

/** A test file, or a manifest with a `tests:` section (its cases run against itself). */
export async function loadTestFile(path: string): Promise<TestFile> {
  const file = resolve(path);
  const data = await readYaml(file);
  const fail = (where: string, message: string): never => {
    throw new TestFileError(`${file}: ${where}: ${message}`);
  };
  if (isManifest(data)) {
    return { file, manifest: file, env: {}, requires: [], cases: parseCases(data.tests, fail) };
  }
  if (!isPlainObject(data)) return fail('the file', 'must be a mapping with `tests:`');
  for (const key of Object.keys(data)) {
    if (!FILE_KEYS.has(key)) fail(key, `unknown key; expected one of ${[...FILE_KEYS].join(', ')}`);
  }
  const manifest = data.manifest ?? '../mcp.yaml';
  if (typeof manifest !== 'string') fail('manifest', 'must be a path');
  const env = data.env ?? {};
  if (!isPlainObject(env) || Object.values(env).some((v) => typeof v !== 'string'))
    fail('env', 'must map names to string values');
  const requires = data.requires ?? [];
  if (!Array.isArray(requires) || requires.some((v) => typeof v !== 'string'))
    fail('requires', 'must be a list of variable names');
  return {
    file,
    manifest: resolve(dirname(file), manifest as string),
    env: env as Record<string, string>,
    requires: requires as string[],
    cases: parseCases(data.tests, fail),
  };
}

function parseCases(tests: unknown, fail: (where: string, message: string) => never): TestCase[] {
  if (!Array.isArray(tests) || tests.length === 0) fail('tests', 'must be a non-empty list');
  const names = new Set<string>();
  return (tests as unknown[]).map((raw, i) => {
    const c = parseCase(raw, `tests[${i}]`, fail);
    if (names.has(c.name)) fail(`tests[${i}].name`, `"${c.name}" is used twice`);
    names.add(c.name);
    return c;
  });
}

function parseCase(raw: unknown, at: string, fail: (where: string, message: string) => never): TestCase {
  if (!isPlainObject(raw)) return fail(at, 'must be a mapping');
  for (const key of Object.keys(raw)) {
    if (!CASE_KEYS.has(key))
      fail(`${at}.${key}`, `unknown key; expected one of ${[...CASE_KEYS].join(', ')}`);
  }
  const verbs = (['call', 'read', 'prompt'] as const).filter((v) => raw[v] !== undefined);
  if (verbs.length !== 1) fail(at, 'needs exactly one of call (a tool), read (a resource URI), prompt');
  const verb = verbs[0]!;
  const target = raw[verb];
  if (typeof target !== 'string' || target === '') fail(`${at}.${verb}`, 'must be a name');
  const args = raw.args ?? {};
  if (!isPlainObject(args)) fail(`${at}.args`, 'must be a mapping');
  if (verb === 'read' && raw.args !== undefined) fail(`${at}.args`, 'a read takes no arguments');
  if (raw.claims !== undefined && !isPlainObject(raw.claims))
    fail(`${at}.claims`, 'must map claim names to values, e.g. { email: ada@example.com }');
  const name = raw.name ?? `${verb} ${target}`;
  if (typeof name !== 'string') fail(`${at}.name`, 'must be text');
  const expect = raw.expect ?? {};
  if (!isPlainObject(expect) || Object.keys(expect).length === 0)
    fail(`${at}.expect`, `needs at least one of ${[...EXPECT_KEYS].join(', ')}`);
  const e = expect as Record<string, unknown>;
  for (const key of Object.keys(e)) {
    if (!EXPECT_KEYS.has(key))
      fail(`${at}.expect.${key}`, `unknown expectation; expected one of ${[...EXPECT_KEYS].join(', ')}`);
  }
  if (e.isError !== undefined && typeof e.isError !== 'boolean')
    fail(`${at}.expect.isError`, 'must be true or false');
  if (e.text !== undefined && typeof e.text !== 'string') fail(`${at}.expect.text`, 'must be text');
  const contains = typeof e.contains === 'string' ? [e.contains] : e.contains;
  if (contains !== undefined && (!Array.isArray(contains) || contains.some((s) => typeof s !== 'string')))
    fail(`${at}.expect.contains`, 'must be text or a list of texts');
  if (e.rows !== undefined && !(Number.isInteger(e.rows) && (e.rows as number) >= 0))
    fail(`${at}.expect.rows`, 'must be a whole number');
  if (e.snapshot !== undefined && typeof e.snapshot !== 'boolean')
    fail(`${at}.expect.snapshot`, 'must be true or false');
  if (e.denied !== undefined && (typeof e.denied !== 'string' || e.denied === ''))
    fail(`${at}.expect.denied`, 'must name the policy that refuses the request');
  if (e.denied !== undefined && Object.keys(e).length > 1)
    fail(`${at}.expect.denied`, 'a refused request has no result: expect nothing else of it');
  if (verb !== 'call' && (e.isError !== undefined || e.structured !== undefined || e.rows !== undefined))
    fail(`${at}.expect`, 'isError, structured and rows apply to tool calls only');
  const action: Action =
    verb === 'read'
      ? { type: 'read', uri: target as string }
      : { type: verb, name: target as string, args: args as Record<string, unknown> };
  return {
    name: name as string,
    action,
    ...(raw.claims !== undefined && { claims: raw.claims as Record<string, unknown> }),
    expect: { ...(e as Expectations), ...(contains !== undefined && { contains: contains as string[] }) },
  };
}

/**
 * The test files a path names: a test file itself; a manifest (its own `tests:` section, then its
 * `tests/*.yaml`); a folder with an mcp.yaml (the same), or else a folder of such folders
 * (`recipes/`), each in name order.
 */
export async function findTestFiles(path: string): Promise<string[]> {
  const target = resolve(path);
  const info = await stat(target).catch(() => undefined);
  if (!info) throw new TestFileError(`${path}: no such file or folder`);
  if (info.isFile()) {
    if (basename(dirname(target)) === 'tests') return [target];
    return manifestTests(target);
  }
  const manifest = await stat(join(target, 'mcp.yaml')).catch(() => undefined);
  if (manifest?.isFile()) return manifestTests(join(target, 'mcp.yaml'));
  if (basename(target) === 'tests') return testsFolder(target);
  const found: string[] = [];
  for (const entry of (await readdir(target, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    if (!entry.isDirectory()) continue;
    const sub = join(target, entry.name);
    if (await stat(join(sub, 'mcp.yaml')).catch(() => undefined))
      found.push(...(await manifestTests(join(sub, 'mcp.yaml'))));
  }
  return found;
}

/** The manifest itself when it has a `tests:` section, then the files of its tests/ folder. */
async function manifestTests(manifest: string): Promise<string[]> {
  // A manifest that does not parse has no cases of its own; its test files then report why it fails.
  const data = await readYaml(manifest).catch(() => undefined);
  const own = isManifest(data) && data.tests !== undefined ? [manifest] : [];
  return [...own, ...(await testsFolder(join(dirname(manifest), 'tests')))];
}

async function testsFolder(folder: string): Promise<string[]> {
  const names = await readdir(folder).catch(() => [] as string[]);
  return names
    .filter((n) => /\.ya?ml$/.test(n))
    .sort()
    .map((n) => join(folder, n));
}
