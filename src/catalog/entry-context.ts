/**
 * The context compile hands each kind for one entry (the KindContext and EntryContext contracts):
 * its name, the manifest folder, the data folder, a logger, and `error`, `watch` and `source`, all about that entry.
 *
 * Kinds keep their context (a tool's run closure shares a scope with the compile that used it), so
 * there is one per entry for the life of the catalog. As object literals of arrow functions a
 * context was seven closures, their scopes and a hidden class of its own (a spread followed by a
 * method gives each object its own): about 0.9 KB per entry, 9 MB of a 10,000-tool catalog. Here
 * an entry's context is two small objects whose methods live on their classes, and what every entry
 * shares (where problems go, the opened sources) is one CompileScope. The methods must therefore be
 * called on the context (`ctx.error(…)`, `ctx.log.warn(…)`), as the contracts show them.
 */
import type { Diagnostic, Problem } from '../errors.js';
import { problems } from '../errors.js';
import type {
  EntryContext,
  EntryPath,
  Logger,
  OpenedSource,
  SourceCapabilities,
} from '../kinds/contract/kinds.js';
import type { EntrySection, LoadedManifest } from '../manifest/types.js';
import { escapeControls } from '../util/escape-controls.js';
import { suggest } from '../util/suggest.js';
import { UpstreamChanges } from './upstream-changes.js';

export type OpenedSources = Map<string, { kind: string; opened: OpenedSource }>;

/** What every entry's context of one compile shares. */
export class CompileScope {
  /**
   * The manifest while compiling, undefined after: a late report (at run time) has no effect, and
   * the contexts, which outlive the compile, must not keep the manifest (and through it the parsed
   * YAML document) alive.
   */
  private loaded: LoadedManifest | undefined;
  /**
   * Where a kind's warnings go while compiling, undefined after: compile's own function, which
   * would otherwise keep all of compile's variables (its closures share one V8 context) for the
   * catalog's life.
   */
  private warn: ((warning: Diagnostic) => void) | undefined;
  /** The names of the declared sources, opened or not (one that failed has its own error). */
  private readonly declaredSources: ReadonlySet<string>;
  /** `server.auth` is set: calls can carry a verified caller (KindContext.verifiedCallers). */
  readonly verifiedCallers: boolean;

  /** What the sources say changed outside any file; the catalog carries it to its reloader. */
  readonly upstreamChanges = new UpstreamChanges();

  constructor(
    manifest: LoadedManifest,
    readonly baseDir: string,
    /** Where created data files go when the manifest's place is an installed package (KindContext). */
    readonly dataDir: string,
    readonly log: Logger,
    private readonly diagnostics: Diagnostic[],
    warn: (warning: Diagnostic) => void,
    readonly sources: OpenedSources,
    /** File → the resource URIs whose content it is: what hot reload watches. */
    readonly watched: Map<string, string[]>,
  ) {
    this.loaded = manifest;
    this.warn = warn;
    this.declaredSources = new Set(Object.keys(manifest.data.sources ?? {}));
    this.verifiedCallers = manifest.data.server?.auth !== undefined;
  }

  /** The manifest, while compiling. */
  get manifest(): LoadedManifest | undefined {
    return this.loaded;
  }

  /** The compile is over: reports are ignored and warnings are just logged from now on. */
  finish(): void {
    this.loaded = undefined;
    this.warn = undefined;
  }

  /**
   * The entries a source added (`[section, name]`): where they live in the manifest (a path in the
   * source) and what the upstream calls them, for the warning that leaves one out.
   */
  private readonly relocated = new Map<string, { readonly at: EntryPath; readonly origin: string }>();
  /** The added entries that had a problem: left out of the catalog, the rest served. */
  private readonly leftOut = new Set<string>();

  /**
   * An entry a source added (OpenedSource.entries): its problems are warnings at `at`, inside the
   * source, and leave it out. `origin` says which source listed it under which name (escaped here).
   */
  relocate(section: EntrySection, name: string, at: EntryPath, origin: string): void {
    this.relocated.set(`${section}\n${name}`, { at, origin });
  }

  /** Whether a source added the entry (OpenedSource.entries): outside text, never the manifest's. */
  isAdded(section: EntrySection, name: string): boolean {
    return this.relocated.size > 0 && this.relocated.has(`${section}\n${name}`);
  }

  /** Whether an entry a source added had a problem: it is not served. */
  isLeftOut(section: EntrySection, name: string): boolean {
    return this.leftOut.size > 0 && this.leftOut.has(`${section}\n${name}`);
  }

  report(path: EntryPath, problem: Problem, needle?: string): void {
    if (this.loaded === undefined) return;
    const key = `${path[0]}\n${path[1]}`;
    const moved = this.relocated.size === 0 ? undefined : this.relocated.get(key);
    if (moved === undefined) {
      this.diagnostics.push(this.loaded.diagnose(path, problem, needle));
      return;
    }
    // An upstream's lists are outside text: one bad entry of them must not fail the whole load.
    this.leftOut.add(key);
    this.warnAt(moved.at, `${moved.origin} is left out: ${escapeControls(problem.message)}`);
  }

  /** While compiling, a kind's warning is about its entry; later (at run time) it is just logged. */
  warnAt(path: EntryPath, message: string): void {
    if (this.loaded === undefined || this.warn === undefined) {
      this.log.warn(message);
      return;
    }
    const at = this.relocated.get(`${path[0]}\n${path[1]}`)?.at ?? path;
    this.warn({ ...this.loaded.diagnose(at, problems.ENTRY_WARNING(message)), severity: 'warning' });
  }

  watch(path: string, uri: string | undefined): void {
    const uris = this.watched.get(path) ?? [];
    if (uri !== undefined && !uris.includes(uri)) uris.push(uri);
    this.watched.set(path, uris);
  }

  source<K extends keyof SourceCapabilities>(
    sourceName: string,
    capability: K,
    at: EntryPath,
  ): SourceCapabilities[K] | undefined {
    const found = this.sources.get(sourceName);
    if (found) {
      const cap = found.opened.capabilities[capability];
      if (!cap) this.report(at, problems.SOURCE_INCOMPATIBLE(sourceName, found.kind, capability));
      return cap;
    }
    // A declared source that failed to open has its own error already; do not pile on.
    if (!this.declaredSources.has(sourceName)) {
      const known = [...this.declaredSources];
      this.report(at, problems.SOURCE_UNKNOWN(sourceName, known, suggest(sourceName, known)));
    }
    return undefined;
  }

  /** The context of one entry (a source's too: it just does not ask for other sources). */
  entry(section: EntrySection, name: string): EntryContext {
    return new EntryScope(section, name, this);
  }
}

class EntryScope implements EntryContext {
  readonly log: Logger;
  readonly baseDir: string;
  readonly dataDir: string;
  readonly verifiedCallers: boolean;

  constructor(
    private readonly section: EntrySection,
    readonly name: string,
    private readonly scope: CompileScope,
  ) {
    this.log = new EntryLogger(section, name, scope);
    this.baseDir = scope.baseDir;
    this.dataDir = scope.dataDir;
    this.verifiedCallers = scope.verifiedCallers;
  }

  error(at: EntryPath, problem: Problem): void {
    this.scope.report([this.section, this.name, ...at], problem);
  }

  watch(path: string, uri?: string): void {
    this.scope.watch(path, uri);
  }

  changed(reason: string, descriptions: 'report' | 'refuse' = 'report'): void {
    this.scope.upstreamChanges.emit({ reason, descriptions });
  }

  source<K extends keyof SourceCapabilities>(
    sourceName: string,
    capability: K,
    at: EntryPath,
  ): SourceCapabilities[K] | undefined {
    return this.scope.source(sourceName, capability, [this.section, this.name, ...at]);
  }
}

class EntryLogger implements Logger {
  constructor(
    private readonly section: EntrySection,
    private readonly name: string,
    private readonly scope: CompileScope,
  ) {}

  debug(message: string): void {
    this.scope.log.debug(message);
  }

  info(message: string): void {
    this.scope.log.info(message);
  }

  warn(message: string): void {
    this.scope.warnAt([this.section, this.name], message);
  }

  error(message: string): void {
    this.scope.log.error(message);
  }
}
