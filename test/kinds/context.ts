// A tiny EntryContext for kind tests: records every problem and log line, serves the given sources.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after } from 'node:test';
import type { CallContext } from '../../src/catalog/types.js';
import { type Problem, problems } from '../../src/errors.js';
import type { EntryContext, EntryPath, SourceCapabilities } from '../../src/kinds/contract/kinds.js';

export interface RecordedError {
  readonly at: EntryPath;
  readonly problem: Problem;
}

export interface TestContext extends EntryContext {
  readonly errors: RecordedError[];
  readonly logs: string[];
  /** What the entry asked hot reload to watch: path → resource URIs. */
  readonly watched: Map<string, string[]>;
  /** The recorded codes, in order. */
  codes(): string[];
}

export function testContext(options: {
  baseDir: string;
  /** Where created data files go from an installed package; default: a `data` folder in baseDir. */
  dataDir?: string;
  name?: string;
  sources?: Record<string, Partial<SourceCapabilities>>;
}): TestContext {
  const errors: RecordedError[] = [];
  const logs: string[] = [];
  const watched = new Map<string, string[]>();
  const log = (level: string) => (message: string) => logs.push(`${level}: ${message}`);
  return {
    name: options.name ?? 'entry',
    baseDir: options.baseDir,
    dataDir: options.dataDir ?? resolve(options.baseDir, 'data'),
    log: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    errors,
    logs,
    watched,
    codes: () => errors.map((e) => e.problem.code),
    error(at, problem) {
      errors.push({ at, problem });
    },
    watch(path, uri) {
      watched.set(path, [...(watched.get(path) ?? []), ...(uri === undefined ? [] : [uri])]);
    },
    changed(reason) {
      logs.push(`changed: ${reason}`);
    },
    source<K extends keyof SourceCapabilities>(name: string, capability: K, at: EntryPath) {
      const found = options.sources?.[name];
      if (!found) {
        errors.push({ at, problem: problems.SOURCE_UNKNOWN(name, Object.keys(options.sources ?? {})) });
        return undefined;
      }
      const cap = found[capability];
      if (!cap) errors.push({ at, problem: problems.SOURCE_INCOMPATIBLE(name, 'test', capability) });
      return cap as SourceCapabilities[K] | undefined;
    },
  };
}

export function callContext(signal: AbortSignal = new AbortController().signal): CallContext {
  return { signal, progress: () => {}, log: () => {} };
}

/** A fresh temporary folder, removed when the test file ends. Call it at top level or in a test, not in a hook. */
export function tempDir(prefix = 'mcp-run-kinds-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
