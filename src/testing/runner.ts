/**
 * Runs one test file: loads its manifest with the file's environment, points every http source at
 * the record/replay tape, compiles, and sends each case through the real protocol core in-process
 * (as `mcp-run call` does), checking the result. Snapshots live beside the test file
 * (`<name>.snap.json`) and are written only when `update` is set; HTTP fixtures likewise
 * (`<name>.http.json`), written only when recording.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { compileCatalog } from '../catalog/compile.js';
import { unknownToolset } from '../catalog/toolsets.js';
import { type CallerIdentity, CatalogRef } from '../catalog/types.js';
import { ManifestError } from '../errors.js';
import { builtinKinds } from '../kinds/builtin.js';
import { StderrLogger } from '../log.js';
import { loadManifest } from '../manifest/load.js';
import type { LoadedManifest } from '../manifest/types.js';
import { createProtocol } from '../protocol/server.js';
import type { TestCase, TestFile } from './cases.js';
import { check, type Observed, snapshotOf } from './expect.js';
import { type Fixture, startTape, type Tape } from './tape.js';

// biome-ignore lint/suspicious/noExplicitAny: protocol results are free-form JSON
type Json = Record<string, any>;

export interface RunOptions {
  /** Write missing or different snapshots instead of failing on them. */
  readonly update?: boolean;
  /** Forward http sources to their real origins and write the fixture, instead of replaying it. */
  readonly record?: boolean;
  readonly env?: NodeJS.ProcessEnv;
  /** `test --toolset`: the cases run as a client of these toolsets (their union) sees the server. */
  readonly toolsets?: readonly string[];
}

export interface CaseResult {
  readonly name: string;
  readonly status: 'pass' | 'fail' | 'skip';
  /** Failed expectations, or the reason of a skip. */
  readonly messages: readonly string[];
  readonly ms: number;
}

export interface FileResult {
  readonly file: string;
  readonly cases: readonly CaseResult[];
  /** Set when no case could run: the manifest or a fixture did not load. */
  readonly error?: string;
  /** Set when the whole file was skipped. */
  readonly skipped?: string;
  /** Files written: snapshots updated, a fixture recorded. */
  readonly wrote: readonly string[];
}

export const snapshotPath = (testFile: string) => testFile.replace(/\.ya?ml$/, '.snap.json');
export const fixturePath = (testFile: string) => testFile.replace(/\.ya?ml$/, '.http.json');

export async function runTestFile(test: TestFile, options: RunOptions = {}): Promise<FileResult> {
  const base = options.env ?? process.env;
  const missing = test.requires.filter((name) => !base[name]);
  if (missing.length) {
    const reason = `${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not set`;
    return {
      file: test.file,
      skipped: reason,
      wrote: [],
      cases: test.cases.map((c) => ({ name: c.name, status: 'skip', messages: [reason], ms: 0 })),
    };
  }
  const env: NodeJS.ProcessEnv = { ...expandEnv(test.env, base), ...base };
  // Printed once for the file; each case fails with a pointer to it.
  const allFail = (error: string): FileResult => ({
    file: test.file,
    error,
    wrote: [],
    cases: test.cases.map((c) => ({
      name: c.name,
      status: 'fail',
      messages: ['not run (see above)'],
      ms: 0,
    })),
  });

  const registry = builtinKinds();
  let manifest: LoadedManifest;
  try {
    manifest = await loadManifest(test.manifest, registry, env);
  } catch (err) {
    if (err instanceof ManifestError) return allFail(`the manifest does not load:\n${err.message}`);
    throw err;
  }
  const log = new StderrLogger('error');
  log.addSecrets(manifest.secrets);

  const httpSources = new Map<string, string>();
  for (const [name, config] of Object.entries(manifest.data.sources ?? {})) {
    if (config.kind === 'http' && typeof config.baseUrl === 'string') httpSources.set(name, config.baseUrl);
  }
  // Credentials written into the manifest itself are kept out of fixtures too, not only the environment's.
  const secrets = [
    ...manifest.secrets,
    ...[...httpSources.keys()].flatMap((n) => authValues(manifest.data.sources?.[n])),
  ];
  let tape: Tape | undefined;
  const wrote: string[] = [];
  if (httpSources.size > 0) {
    const fixtureFile = fixturePath(test.file);
    let fixture: Fixture = { exchanges: [] };
    if (!options.record) {
      if (!existsSync(fixtureFile))
        return allFail(
          `the manifest has http sources and ${fixtureFile} does not exist: record it with --record`,
        );
      fixture = JSON.parse(await readFile(fixtureFile, 'utf8')) as Fixture;
    }
    tape = await startTape(httpSources, options.record ? 'record' : 'replay', fixture, secrets);
    const sources = { ...manifest.data.sources };
    for (const [name, url] of tape.baseUrls) sources[name] = { ...sources[name]!, baseUrl: url };
    manifest = { ...manifest, data: { ...manifest.data, sources } };
  }

  const snapFile = snapshotPath(test.file);
  const snapshots: Record<string, unknown> = existsSync(snapFile)
    ? (JSON.parse(await readFile(snapFile, 'utf8')) as Record<string, unknown>)
    : {};
  let snapshotsChanged = false;
  const results: CaseResult[] = [];
  try {
    let catalog: Awaited<ReturnType<typeof compileCatalog>>;
    try {
      catalog = await compileCatalog(manifest, registry, log);
    } catch (err) {
      if (err instanceof ManifestError)
        return allFail(`the manifest does not compile:\n${log.redact(err.message)}`);
      throw err;
    }
    const unknown = options.toolsets && unknownToolset(catalog, options.toolsets);
    if (unknown) {
      await catalog.dispose();
      return allFail(`--toolset: ${unknown.message}; ${unknown.hint}`);
    }
    const client = await connect(catalog, options.toolsets);
    try {
      for (const c of test.cases) {
        const started = performance.now();
        const misses = tape?.misses.length ?? 0;
        const messages: string[] = [];
        try {
          const observed = await perform(client, c);
          let snapshot: string | undefined;
          if (c.expect.snapshot) {
            const current = snapshotOf(observed);
            const stored = snapshots[c.name];
            if (options.update) {
              if (stored === undefined || JSON.stringify(stored, null, 2) !== current) {
                snapshots[c.name] = observed.result;
                snapshotsChanged = true;
              }
            } else if (stored === undefined) {
              messages.push(
                `no snapshot stored for "${c.name}" in ${basename(snapFile)}: run with --update to write it`,
              );
            } else snapshot = JSON.stringify(stored, null, 2);
          }
          messages.push(...check(c.expect, observed, snapshot));
        } catch (err) {
          messages.push(err instanceof RequestFailed ? `the request failed: ${err.message}` : String(err));
        }
        for (const miss of tape?.misses.slice(misses) ?? [])
          messages.push(`no recorded HTTP answer for ${miss} (record with --record)`);
        results.push({
          name: c.name,
          status: messages.length ? 'fail' : 'pass',
          messages: messages.map((m) => log.redact(m)),
          ms: Math.round(performance.now() - started),
        });
      }
    } finally {
      client.close();
      await catalog.dispose();
    }
  } finally {
    await tape?.close();
  }
  if (snapshotsChanged) {
    await writeFile(snapFile, `${JSON.stringify(snapshots, null, 2)}\n`);
    wrote.push(snapFile);
  }
  if (tape && options.record) {
    const file = fixturePath(test.file);
    await writeFile(file, `${JSON.stringify({ exchanges: tape.recorded }, null, 2)}\n`);
    wrote.push(file);
  }
  return { file: test.file, cases: results, wrote };
}

function authValues(config: unknown): string[] {
  const auth = (config as { auth?: Json } | undefined)?.auth;
  if (!auth) return [];
  return [auth.bearer, auth.basic?.password, auth.apiKey?.value].filter(
    (v): v is string => typeof v === 'string',
  );
}

/** `${NAME}` in a test file's env values is the variable's value in the real environment. */
function expandEnv(values: Readonly<Record<string, string>>, env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).map(([k, v]) => [
      k,
      v.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, n) => env[n] ?? ''),
    ]),
  );
}

class RequestFailed extends Error {}

/** A case's caller: the claims as given; `iss` and `sub` from them when they are strings. */
function testIdentity(claims: Readonly<Record<string, unknown>>): CallerIdentity {
  return {
    issuer: typeof claims.iss === 'string' ? claims.iss : 'mcp-run-test',
    subject: typeof claims.sub === 'string' ? claims.sub : undefined,
    claims,
    expiresAt: undefined,
    // No real token exists: a token exchange in a test gets this placeholder (and its tape answers).
    accessToken: () => 'mcp-run-test-access-token',
  };
}

interface Client {
  /** With `claims`, the request carries a verified identity with those claims (TestCase.claims). */
  request(method: string, params?: Json, claims?: Readonly<Record<string, unknown>>): Promise<Json>;
  close(): void;
}

async function perform(client: Client, c: TestCase): Promise<Observed> {
  const a = c.action;
  if (a.type === 'call') {
    const result = await client.request('tools/call', { name: a.name, arguments: a.args }, c.claims);
    // The text a person reads: the JSON copy of structuredContent kept for older clients is left out.
    const copy =
      result.structuredContent === undefined ? undefined : JSON.stringify(result.structuredContent);
    const blocks = ((result.content ?? []) as Json[]).filter((c) => !(c.type === 'text' && c.text === copy));
    return { text: blocks.map(contentText).join('\n'), result, isTool: true };
  }
  if (a.type === 'read') {
    const result = await client.request('resources/read', { uri: a.uri }, c.claims);
    return { text: (result.contents as Json[]).map(contentText).join('\n'), result, isTool: false };
  }
  const result = await client.request('prompts/get', { name: a.name, arguments: a.args }, c.claims);
  const text = (result.messages as Json[]).map((m) => `[${m.role}]\n${contentText(m.content)}`).join('\n\n');
  return { text, result, isTool: false };
}

function contentText(c: Json): string {
  if (typeof c.text === 'string') return c.text;
  if (c.type === 'resource' && typeof c.resource?.text === 'string') return c.resource.text;
  return `[${c.type ?? 'content'}${c.mimeType ? ` ${c.mimeType}` : ''}]`;
}

/** A 2025-era session with the protocol core, in-process. */
async function connect(
  catalog: import('../catalog/types.js').Catalog,
  toolsets: readonly string[] | undefined,
): Promise<Client> {
  const log = new StderrLogger('error');
  const pending = new Map<number, (message: Json) => void>();
  const connection = createProtocol(new CatalogRef(catalog), { log, listChanged: false }).connect(
    (message) => {
      const m = message as Json;
      const waiter = typeof m.id === 'number' ? pending.get(m.id) : undefined;
      if (waiter && !('method' in m)) waiter(m);
    },
    toolsets && { toolsets },
  );
  let nextId = 0;
  const request = async (
    method: string,
    params: Json = {},
    claims?: Readonly<Record<string, unknown>>,
  ): Promise<Json> => {
    const id = ++nextId;
    const response = new Promise<Json>((resolve) => pending.set(id, resolve));
    const sent = { jsonrpc: '2.0', id, method, params };
    // An identity travels with its request (as the HTTP transport passes a verified token's).
    if (claims === undefined) await connection.receive(sent);
    else
      await connection.receive(sent, {
        identity: testIdentity(claims),
        notify: () => {},
        respond: (answer) => pending.get(id)?.(answer as Json),
      });
    const message = await response;
    pending.delete(id);
    const error = message.error as { code: number; message: string } | undefined;
    if (error) throw new RequestFailed(`${error.message} (${error.code})`);
    return message.result as Json;
  };
  await request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'mcp-run-test', version: '1' },
  });
  await connection.receive({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { request, close: () => connection.close() };
}
