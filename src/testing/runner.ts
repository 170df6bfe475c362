/**
 * Runs one test file: loads its manifest with the file's environment, points every http source at
 * the record/replay tape, compiles, and sends each case through the real protocol core in-process
 * (as `mcp-run call` does), checking the result. Snapshots live beside the test file
 * (`<name>.snap.json`): a missing one is written when its case passes (the first run), except under
 * CI, where it fails; a different one fails unless `update` is set. HTTP fixtures likewise
 * (`<name>.http.json`), written only when recording; a file without one still runs every case, and
 * those whose requests found no answer need --record (misses.ts).
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { compileCatalog } from '../catalog/compile.js';
import { unknownToolset } from '../catalog/toolsets.js';
import { ManifestError } from '../errors.js';
import { builtinKinds } from '../kinds/builtin.js';
import { StderrLogger } from '../log.js';
import { loadManifest } from '../manifest/load.js';
import type { LoadedManifest } from '../manifest/types.js';
import type { TestCase, TestFile } from './cases.js';
import { type Client, connect, perform, RequestFailed } from './client.js';
import { check, snapshotOf } from './expect.js';
import { missOutcome, verdict } from './misses.js';
import { type Fixture, startTape, type Tape } from './tape.js';

// biome-ignore lint/suspicious/noExplicitAny: protocol results are free-form JSON
type Json = Record<string, any>;

export interface RunOptions {
  /** Write missing or different snapshots instead of failing on them. */
  readonly update?: boolean;
  /** Forward http sources to their real origins and write the fixture, instead of replaying it. */
  readonly record?: boolean;
  /** Replaying, a request with no recorded answer goes to the real upstream (nothing is written). */
  readonly live?: boolean;
  /**
   * Running under CI: a missing snapshot or HTTP fixture fails, rather than being written or
   * reported as needing --record (nothing written there would be kept).
   */
  readonly ci?: boolean;
  readonly env?: NodeJS.ProcessEnv;
  /** `test --toolset`: the cases run as a client of these toolsets (their union) sees the server. */
  readonly toolsets?: readonly string[];
}

/** `needs-record`: the case made HTTP requests that no fixture answers yet; not a failure (outside CI). */
export type CaseStatus = 'pass' | 'fail' | 'skip' | 'needs-record';

export interface CaseResult {
  readonly name: string;
  readonly status: CaseStatus;
  /** Failed expectations, the reason of a skip, or what needs recording. */
  readonly messages: readonly string[];
  readonly ms: number;
  /** The snapshot file this case's snapshot was written to (its first run, or --update). */
  readonly snapshotWritten?: string;
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

/** `expect: { denied: name }`: the request must fail with the policy error naming that policy. */
async function refusedBy(client: Client, c: TestCase, policy: string): Promise<string[]> {
  try {
    await perform(client, c);
  } catch (err) {
    if (!(err instanceof RequestFailed)) throw err;
    const rule = (err.data as { rule?: unknown } | undefined)?.rule;
    if (err.code === POLICY_DENIED && rule === policy) return [];
    return [
      err.code === POLICY_DENIED
        ? `denied: expected the policy "${policy}" to refuse it, but "${String(rule)}" did`
        : `denied: expected the policy "${policy}" to refuse it, but the request failed otherwise: ${err.message}`,
    ];
  }
  return [`denied: expected the policy "${policy}" to refuse it, but it was allowed`];
}

/** The JSON-RPC code of a policy's refusal (protocol/jsonrpc.ts ErrorCode.PolicyDenied). */
const POLICY_DENIED = -32040;

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
  const fixtureFile = fixturePath(test.file);
  const fixtureExists = existsSync(fixtureFile);
  if (httpSources.size > 0) {
    // No fixture yet stops nothing: the tape replays from an empty one, and only the cases whose
    // requests find no answer are affected.
    const fixture: Fixture =
      fixtureExists && !options.record
        ? (JSON.parse(await readFile(fixtureFile, 'utf8')) as Fixture)
        : { exchanges: [] };
    tape = await startTape(httpSources, {
      mode: options.record ? 'record' : 'replay',
      fixture,
      live: options.live === true,
      secrets,
    });
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
        let unsnapped: unknown;
        try {
          if (c.expect.denied !== undefined) messages.push(...(await refusedBy(client, c, c.expect.denied)));
          else {
            const observed = await perform(client, c);
            let snapshot: string | undefined;
            if (c.expect.snapshot) {
              const current = snapshotOf(observed);
              const stored = snapshots[c.name];
              if (options.update) {
                if (stored === undefined || JSON.stringify(stored, null, 2) !== current)
                  unsnapped = observed.result;
              } else if (stored !== undefined) snapshot = JSON.stringify(stored, null, 2);
              else if (options.ci)
                messages.push(
                  `no snapshot stored for "${c.name}" in ${basename(snapFile)}: run with --update to write it, and commit it (under CI a missing snapshot fails instead of being written)`,
                );
              else unsnapped = observed.result;
            }
            messages.push(...check(c.expect, observed, snapshot));
          }
        } catch (err) {
          messages.push(err instanceof RequestFailed ? `the request failed: ${err.message}` : String(err));
        }
        const outcomes = (tape?.misses.slice(misses) ?? []).map((miss) =>
          missOutcome(miss, {
            fixture: fixtureFile,
            fixtureExists,
            record: options.record === true,
            ci: options.ci === true,
          }),
        );
        const { status, messages: reported } = verdict(messages, outcomes);
        let snapshotWritten: string | undefined;
        // --update writes what it is given; the first run writes only a result its case accepts.
        // Neither keeps a result made from a stand-in answer.
        if (unsnapped !== undefined && (options.update ? outcomes.length === 0 : status === 'pass')) {
          snapshots[c.name] = unsnapped;
          snapshotsChanged = true;
          snapshotWritten = snapFile;
        } else if (unsnapped !== undefined && !options.update && outcomes.length === 0)
          reported.push(
            `no snapshot stored for "${c.name}" in ${basename(snapFile)}: it is written on the first run where the case's other expectations pass`,
          );
        results.push({
          name: c.name,
          status,
          messages: reported.map((m) => log.redact(m)),
          ms: Math.round(performance.now() - started),
          ...(snapshotWritten && { snapshotWritten }),
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
    await writeFile(fixtureFile, `${JSON.stringify({ exchanges: tape.recorded }, null, 2)}\n`);
    wrote.push(fixtureFile);
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
