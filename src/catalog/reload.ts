/**
 * Hot reload: watch the manifest and every file it was built from; on a change, build a complete
 * new catalog, swap it in, and tell clients exactly what changed.
 *
 * - Bursts of file events are debounced into one reload.
 * - An edit that leaves the manifest's bytes unchanged (and touches no resource file) is skipped.
 * - Subscribers hear of a resource whose watched file changed, and of one whose inline content
 *   (its `version`) differs between the two catalogs.
 * - Reloads run one at a time; a reload that finishes after a newer edit arrived is dropped, so the
 *   newest edit always wins.
 * - Every reload classifies its changes as `mcp-run diff` does (src/catalog/diff.ts) and says so;
 *   with `reload: { refuseBreaking: true }` a breaking edit is refused like a failed one.
 * - A failed reload keeps the last good catalog serving and logs every error with file:line:col, in
 *   one pass as validate does (structure and compile errors together);
 *   an unexpected exception (not a ManifestError) is logged too, with the manifest's path, never
 *   swallowed.
 * - The old catalog's sources are disposed once the requests that started on it have finished, or
 *   after a grace period.
 * - A manifest reached through symlinks in its own folder (a Kubernetes ConfigMap volume:
 *   `mcp.yaml -> ..data/mcp.yaml`, `..data -> ..2026_…`) is reloaded when a link is swapped, which
 *   is how a ConfigMap update lands: the folder is watched too, for those links only.
 */
import type { Hash } from 'node:crypto';
import { createReadStream, lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
// Types only: chokidar loads when watching starts, while the first requests are being answered.
import type { FSWatcher } from 'chokidar';
import { type Diagnostic, formatDiagnostic, ManifestError, problems } from '../errors.js';
import type { KindRegistry } from '../kinds/registry.js';
import type { StderrLogger } from '../log.js';
import { loadManifestText } from '../manifest/load.js';
import { ops } from '../ops/hooks.js';
import { FILE_EVENTS_DEBOUNCE_MS, FileEventBurst } from '../util/file-events.js';
import { nodeCrypto } from '../util/lazy-node.js';
import { readFileAsync } from '../util/read-file.js';
import { compileCatalog } from './compile.js';
import { compareContracts, contractOf, describeDiff, diffCatalogs, summarizeContract } from './diff.js';
import { servesToolsets } from './toolsets.js';

const ALL_CATEGORIES: ReadonlySet<ListCategory> = new Set(['tools', 'prompts', 'resources']);

import { descriptionChanges, originChanges } from './description-changes.js';
import type { Catalog, CatalogRef, ListCategory } from './types.js';
import type { UpstreamChange } from './upstream-changes.js';

export interface ReloadListener {
  /** `change`: the catalogs before and after, for listeners that see only a toolset's view of them. */
  listChanged(
    categories: ReadonlySet<ListCategory>,
    change?: { readonly before: Catalog; readonly after: Catalog },
  ): void;
  resourceUpdated(uri: string): void;
  /**
   * A reload failed and the previous version keeps serving; `summary` is one line for clients,
   * `diagnostics` every error with its file:line:col and code frame (empty for an unexpected failure).
   */
  reloadFailed?(summary: string, diagnostics: readonly Diagnostic[]): void;
  /** A reload swapped in a new catalog; `summary` says what changed ("+1 tool, ~1 prompt"). */
  reloaded?(summary: string): void;
}

/**
 * A failed reload as the author's client reads it in the log notification: the summary, then every
 * error as `mcp-run validate` prints it (file:line:col, code frame, hint). It names the manifest's
 * paths and shows its lines, so the server sends it only to clients that may see them (serve.ts).
 */
export function reloadFailureDetail(summary: string, diagnostics: readonly Diagnostic[]): string {
  return [summary, ...diagnostics.map(formatDiagnostic)].join('\n\n');
}

export interface ReloaderOptions {
  /** Absolute path of the manifest. */
  readonly file: string;
  readonly ref: CatalogRef;
  readonly registry: KindRegistry;
  readonly log: StderrLogger;
  readonly listener: ReloadListener;
  readonly debounceMs?: number;
  /** How long an old catalog may wait for its in-flight requests before it is disposed anyway. */
  readonly disposeGraceMs?: number;
  /**
   * `primary`: this process does not watch; the primary process of `--workers` does, and hands
   * its file events to `changed` (cli/workers.ts), so that the workers reload on one event.
   */
  readonly watcher?: 'own' | 'primary';
  /**
   * Another process says what this reload did (the first worker of `--workers`: every worker
   * comes to the same outcome): this reloader's log lines go to debug, so the log has each once.
   */
  readonly quiet?: boolean;
}

/** `refused`: the edit built, but breaks the contract and the manifest says `reload.refuseBreaking`. */
export type ReloadOutcome = 'reloaded' | 'unchanged' | 'failed' | 'refused' | 'superseded';

export class Reloader {
  private watcher: FSWatcher | undefined;
  /** The manifest's folder, when the manifest is reached through symlinks in it. */
  private linkWatcher: FSWatcher | undefined;
  private revision = 0;
  /**
   * A digest of the manifest and included texts the last reload built, served or not (the texts
   * themselves are not kept: an imported manifest is megabytes). The same text again is unchanged.
   */
  private lastDigest: string | undefined;
  /** The digest of the text the served catalog was built from (lastDigest may be a failed edit's). */
  private servedDigest: string | undefined;
  private readonly fileHashes = new Map<string, string>();
  private readonly burst: FileEventBurst;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly name: string;
  /** The last reload failed: the next good one says so, even when it changes nothing. */
  private failing = false;
  /** Settles once the watchers exist (chokidar loaded); `start` begins it. */
  private watching: Promise<void> = Promise.resolve();
  private closed = false;
  /** Retries of a reload whose sources could not be opened (retryLater), and the text they serve. */
  private retries = 0;
  private retrying: string | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Sources' changes (UpstreamChanges) waiting for their reload. */
  private pendingUpstream: PendingUpstream = { reasons: [], refuse: false };
  private upstreamTimer: NodeJS.Timeout | undefined;
  /** When the last reload an upstream asked for began (ms since the epoch). */
  private lastUpstreamReload = 0;
  /** What a superseded reload leaves the reload queued behind it, which takes over (run()). */
  private handedOn: HandedOn | undefined;

  private readonly log: StderrLogger;

  constructor(private readonly options: ReloaderOptions) {
    this.name = basename(options.file);
    this.burst = new FileEventBurst(options.debounceMs ?? FILE_EVENTS_DEBOUNCE_MS, (paths, structural) => {
      void this.enqueue(paths, structural);
    });
    this.log = options.quiet ? quieter(options.log) : options.log;
  }

  /**
   * Starts watching. `text` is the manifest text the current catalog was built from. The watchers
   * are set up once `after` settles (the CLI passes the end of the opening exchange on stdio: loading chokidar
   * would otherwise delay it) and chokidar has loaded (`ready` says when they report). An edit made
   * before they report is caught up with then: it is not lost in the gap.
   */
  start(text: string, after: Promise<unknown> = Promise.resolve()): void {
    const included = includedTexts(this.options.ref.current, readFileSync);
    this.listenTo(this.options.ref.current);
    if (this.options.watcher === 'primary') {
      this.lastDigest ??= textDigest(text, included);
      this.servedDigest ??= this.lastDigest;
      return;
    }
    this.watching = after
      .then(() => {
        this.lastDigest ??= textDigest(text, included);
        this.servedDigest ??= this.lastDigest;
        return this.closed ? undefined : import('chokidar');
      })
      .then(
        (chokidar) => {
          if (chokidar && !this.closed) this.watch(chokidar.watch);
        },
        (err: Error) => this.log.warn(`watcher: cannot load chokidar: ${err.message}`),
      );
  }

  private watch(watch: typeof import('chokidar').watch): void {
    // The catalog of now: a reload (SIGHUP) may have swapped it while chokidar loaded.
    this.watcher = watch([this.options.file, ...watchedPaths(this.options.ref.current)], {
      ignoreInitial: true,
    });
    this.watcher.on('all', (event, path) => this.onEvent(event, path));
    this.watcher.on('error', (err) => this.log.warn(`watcher: ${(err as Error).message}`));
    this.watcher.once('ready', () => void this.catchUp());
    const links = symlinksOf(this.options.file);
    if (links.size > 0) {
      // Watched without following links: a swap is an unlink and an add of the link itself.
      this.linkWatcher = watch(dirname(this.options.file), {
        ignoreInitial: true,
        depth: 0,
        followSymlinks: false,
      });
      this.linkWatcher.on('all', (_event, path) => {
        if (links.has(resolve(path))) this.onEvent('add', this.options.file);
      });
      this.linkWatcher.on('error', (err) => this.log.warn(`watcher: ${(err as Error).message}`));
    }
  }

  /** An edit made between the load and the watcher's first report counts as a change. */
  private async catchUp(): Promise<void> {
    const { file, ref } = this.options;
    const now = await fileDigest(file, includedTexts(ref.current, readFileSync)).catch(() => undefined);
    if (now !== undefined && now !== this.lastDigest) this.onEvent('change', file);
  }

  /** Resolves once the watcher is ready to report changes (tests wait for it before editing). */
  async ready(): Promise<void> {
    await this.watching;
    const watcher = this.watcher;
    if (watcher) await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.options.ref.current.upstreamChanges?.listen(undefined);
    clearTimeout(this.upstreamTimer);
    await this.watching;
    this.burst.cancel();
    clearTimeout(this.retryTimer);
    await this.watcher?.close();
    await this.linkWatcher?.close();
    await this.queue;
  }

  /** Reloads now, even when nothing seems to have changed (SIGHUP). */
  reload(): Promise<ReloadOutcome> {
    return this.enqueue(new Set(), true);
  }

  /**
   * Reloads for file events another process's watcher saw and debounced (the primary of
   * `--workers`): as this reloader's own watcher would, so every worker comes to the same outcome.
   */
  changed(paths: readonly string[], structural: boolean): Promise<ReloadOutcome> {
    return this.enqueue(new Set(paths), structural);
  }

  /** What a watcher must watch for the current catalog: the manifest and the files it names. */
  watchedFiles(): string[] {
    return [this.options.file, ...watchedPaths(this.options.ref.current)];
  }

  private onEvent(event: string, path: string): void {
    this.burst.add(event, path);
  }

  /** The served catalog's sources' changes reload it; a swapped-out catalog's are no longer heard. */
  private listenTo(catalog: Catalog): void {
    catalog.upstreamChanges?.listen((change) => {
      if (!this.closed && this.options.ref.current === catalog) this.upstreamChanged(change);
    });
  }

  /**
   * A source said what it was built from changed (an upstream's `list_changed`): a reload re-opens
   * it and reads its lists again. A burst (tools, then prompts) is one reload.
   */
  private upstreamChanged(change: UpstreamChange): void {
    // An upstream is not trusted: however many notices it sends, its reasons are few (one per
    // source and list) and its reloads at most one each UPSTREAM_RELOAD_MS.
    const { reasons } = this.pendingUpstream;
    if (!reasons.includes(change.reason) && reasons.length < MAX_UPSTREAM_REASONS)
      reasons.push(change.reason);
    if (change.descriptions === 'refuse') this.pendingUpstream.refuse = true;
    if (this.upstreamTimer !== undefined) return;
    const wait = Math.max(
      this.options.debounceMs ?? FILE_EVENTS_DEBOUNCE_MS,
      this.lastUpstreamReload + UPSTREAM_RELOAD_MS - Date.now(),
    );
    this.upstreamTimer = setTimeout(() => {
      this.upstreamTimer = undefined;
      this.lastUpstreamReload = Date.now();
      const upstream = this.pendingUpstream;
      this.pendingUpstream = { reasons: [], refuse: false };
      this.log.info(`${upstream.reasons.join('; ')}: reloading ${this.name} to read it again`);
      void this.enqueue(new Set(), true, upstream);
    }, wait);
  }

  private enqueue(
    paths: ReadonlySet<string>,
    force: boolean,
    upstream?: PendingUpstream,
  ): Promise<ReloadOutcome> {
    const revision = ++this.revision;
    const run = this.queue.then(() => this.run(revision, paths, force, upstream));
    // Counted for metrics: 'reloaded' and 'unchanged' are good reloads; a superseded one is neither.
    run.then(
      (outcome) => {
        if (outcome === 'failed' || outcome === 'refused') ops.reload('failed');
        else if (outcome !== 'superseded') ops.reload('ok');
      },
      () => ops.reload('failed'),
    );
    // A reload started by the watcher has no caller to hear of a failure: say it here.
    this.queue = run.catch((err: unknown) =>
      this.log.error(`reload of ${this.name} did not finish: ${describeError(err)}`),
    );
    return run;
  }

  private async run(
    revision: number,
    paths: ReadonlySet<string>,
    force: boolean,
    upstream?: PendingUpstream,
  ): Promise<ReloadOutcome> {
    const { file, ref, registry } = this.options;
    const log = this.log;
    let text: string;
    try {
      text = await readFileAsync(file, 'utf8');
    } catch (err) {
      log.warn(
        `reload of ${this.name} skipped: ${(err as Error).message}; still serving the previous version`,
      );
      return 'failed';
    }
    // A reload that took over from a superseded one reloads whatever the text: the catalog that
    // one built was never served, so the same text is not "unchanged".
    const handed = this.handedOn;
    this.handedOn = undefined;
    const changedFiles = await this.changedResourceFiles(paths, ref.current);
    const updated = [...new Set([...(handed?.updated ?? []), ...changedFiles])];
    // The included files are part of the manifest: an edit to one is an edit to it. A rotated secret
    // file changes no text the comparison sees: it rebuilds whenever it fires.
    const whole = textDigest(text, includedTexts(ref.current, readFileSync));
    const rotated = [...paths].some((path) => ref.current.secretFiles?.has(path));
    if (!force && !handed && !rotated && whole === this.lastDigest && updated.length === 0)
      return 'unchanged';
    // The author's own edit since the catalog served (a failed one too) is never an upstream's.
    const authored = whole !== this.servedDigest || rotated || handed?.authored === true;
    upstream = joinUpstream(handed?.upstream, upstream);
    // A source's change with the manifest as it was: what changed came from outside (an upstream).
    const fromOutside = upstream !== undefined && !authored;
    this.lastDigest = whole;

    let next: Catalog;
    try {
      // One pass, as validate and the first load: structure and compile errors come in one report.
      const manifest = loadManifestText(text, file, registry, process.env, { deferErrors: true });
      log.addSecrets(manifest.secrets);
      next = await compileCatalog(manifest, registry, log);
    } catch (err) {
      if (err instanceof ManifestError) {
        const n = err.diagnostics.length;
        log.error(
          `reload of ${this.name} failed with ${n} error${n === 1 ? '' : 's'}; still serving the previous version\n${err.message}`,
        );
      } else {
        // A bug rather than a manifest problem (compile turns a throwing kind into a diagnostic).
        log.error(
          `reload of ${this.name} failed; still serving the previous version\n${file}: ${describeError(err)}`,
        );
      }
      // The previous catalog reads its files live, so their subscribers still need to hear of edits.
      for (const uri of updated) this.options.listener.resourceUpdated(uri);
      this.failing = true;
      // Clients hear of the failure once, not on every retry of the same text.
      const retry = this.retrying === whole;
      if (err instanceof ManifestError && onlySourcesDown(err)) this.retryLater(whole, upstream);
      else this.stopRetrying();
      if (retry) return 'failed';
      const n = err instanceof ManifestError ? err.diagnostics.length : 1;
      this.options.listener.reloadFailed?.(
        `reload of ${this.name} failed with ${n} error${n === 1 ? '' : 's'}; still serving the previous version`,
        err instanceof ManifestError ? err.diagnostics : [],
      );
      return 'failed';
    }
    if (revision !== this.revision) {
      // The reload queued behind this one builds the text as it then is, and takes over what this
      // one would have done: the watcher's event and the catch-up for one edit are two reloads.
      this.handedOn = { updated, upstream, authored };
      await next.dispose();
      return 'superseded';
    }

    this.stopRetrying();

    // The same classification as `mcp-run diff`, on what clients see of the two versions.
    const contract = compareContracts(contractOf(ref.current), contractOf(next));
    const breaking = contract.some((c) => c.class === 'breaking');
    // Descriptions an upstream changed under the author: said, and refused when its source says so.
    const redescribed = fromOutside ? descriptionChanges(contract, ref.current, next) : [];
    const hidden = fromOutside ? originChanges(ref.current, next, redescribed) : [];
    for (const change of [...redescribed, ...hidden]) log.warn(`reload of ${this.name}: ${change}`);
    const refuseRedescribed = redescribed.length > 0 && upstream?.refuse === true;
    if ((breaking && next.reload?.refuseBreaking) || refuseRedescribed) {
      await next.dispose();
      const summary = summarizeContract(contract);
      const diagnostic = {
        ...(breaking && next.reload?.refuseBreaking
          ? problems.RELOAD_BREAKING_CHANGE(summary)
          : problems.UPSTREAM_DESCRIPTION_CHANGED(redescribed.length)),
        file,
      };
      log.error(
        `reload of ${this.name} refused; still serving the previous version\n${formatDiagnostic(diagnostic)}`,
      );
      for (const uri of updated) this.options.listener.resourceUpdated(uri);
      this.failing = true;
      this.options.listener.reloadFailed?.(
        `reload of ${this.name} refused: ${summary}; still serving the previous version`,
        [diagnostic],
      );
      return 'refused';
    }

    const previous = ref.swap(next);
    this.servedDigest = whole;
    this.listenTo(next);
    const diff = diffCatalogs(previous, next);
    // With toolsets, a view can change while the whole does not (a toolset's names were edited):
    // the hub diffs each view, so it is asked about every category.
    const asked = servesToolsets(previous, next) ? ALL_CATEGORIES : new Set(diff.keys());
    if (asked.size > 0) this.options.listener.listChanged(asked, { before: previous, after: next });
    const stillServed = [
      ...new Set([
        ...updated.filter((uri) => next.resources.has(uri)),
        ...inlineChanges(previous, next),
        ...skillFileChanges(previous, next),
      ]),
    ];
    for (const uri of stillServed) this.options.listener.resourceUpdated(uri);
    const touched = stillServed.length
      ? `, ${stillServed.length} resource${stillServed.length === 1 ? '' : 's'} updated`
      : '';
    // Editor swap files and the like land in watched folders: say nothing when nothing changed.
    const quiet = diff.size === 0 && !touched && !this.failing;
    const recovered = this.failing ? ' (the errors are fixed)' : '';
    this.failing = false;
    const classified = contract.length > 0 ? ` (${summarizeContract(contract)})` : '';
    const summary = `${describeDiff(diff)}${classified}${touched}${recovered}`;
    log[quiet ? 'debug' : 'info'](`reloaded ${this.name}: ${summary}`);
    if (!quiet) this.options.listener.reloaded?.(summary);

    this.rewatch(previous, next);
    void this.retire(previous);
    return 'reloaded';
  }

  /**
   * A reload that failed only because sources could not be opened (a database down, a host not
   * answering) is tried again, 1 s after, then 2 s, 4 s… up to 30 s, until it succeeds: the edit is
   * not lost, and its catalog swaps in once its sources connect. A newer edit, a manifest error or
   * close() ends the retries; a reload that finds the same text unchanged in the meantime does not.
   */
  private retryLater(digest: string, upstream: PendingUpstream | undefined): void {
    // Another text waiting for its sources starts again from the first wait.
    if (digest !== this.retrying) this.retries = 0;
    this.retrying = digest;
    const waitMs = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** this.retries++);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      if (this.closed || digest !== this.lastDigest) return;
      // An upstream that asked (and is down, restarting) is still the reason: its checks still apply.
      void this.enqueue(new Set(), true, upstream);
    }, waitMs);
    this.retryTimer.unref();
    this.log.info(`reload of ${this.name}: a source could not be opened; trying again in ${waitMs} ms`);
  }

  private stopRetrying(): void {
    this.retries = 0;
    this.retrying = undefined;
    clearTimeout(this.retryTimer);
  }

  /** The URIs whose file content really changed among the paths that fired. */
  private async changedResourceFiles(paths: ReadonlySet<string>, catalog: Catalog): Promise<string[]> {
    const uris: string[] = [];
    for (const path of paths) {
      const owners = catalog.watched?.get(path);
      if (!owners?.length) continue;
      const hash = await readFileAsync(path).then(
        (bytes) => nodeCrypto().createHash('sha256').update(bytes).digest('hex'),
        () => 'missing',
      );
      if (this.fileHashes.get(path) === hash) continue;
      this.fileHashes.set(path, hash);
      uris.push(...owners);
    }
    return uris;
  }

  private rewatch(previous: Catalog, next: Catalog): void {
    const before = new Set(watchedPaths(previous));
    const after = new Set(watchedPaths(next));
    const added = [...after].filter((p) => !before.has(p));
    const removed = [...before].filter((p) => !after.has(p));
    if (added.length) this.watcher?.add(added);
    if (removed.length) this.watcher?.unwatch(removed);
  }

  private async retire(catalog: Catalog): Promise<void> {
    const grace = new Promise<void>((resolve) =>
      setTimeout(resolve, this.options.disposeGraceMs ?? 30_000).unref(),
    );
    await Promise.race([this.options.ref.idle(catalog), grace]);
    await catalog.dispose();
  }
}

/** `log`, with what it says at info, warn and error said at debug (its secrets are the same). */
function quieter(log: StderrLogger): StderrLogger {
  const quiet = Object.create(log) as StderrLogger;
  quiet.info = quiet.warn = quiet.error = (message: string) => log.debug(message);
  return quiet;
}

interface PendingUpstream {
  readonly reasons: string[];
  /** A source that asked has `descriptions: refuse`. */
  refuse: boolean;
}

/** What a superseded reload hands the reload that takes over from it. */
interface HandedOn {
  /** Resources whose files it saw change: announced once the newer catalog is served. */
  readonly updated: readonly string[];
  /** The upstreams' reasons it reloaded for (their `refuse` still applies). */
  readonly upstream: PendingUpstream | undefined;
  /** The manifest's text or a secret file had changed: what changes is not only from outside. */
  readonly authored: boolean;
}

/** A superseded reload's upstream reasons joined to its successor's. */
function joinUpstream(a?: PendingUpstream, b?: PendingUpstream): PendingUpstream | undefined {
  if (!a || !b) return a ?? b;
  const reasons = [...new Set([...a.reasons, ...b.reasons])].slice(0, MAX_UPSTREAM_REASONS);
  return { reasons, refuse: a.refuse || b.refuse };
}

/** An upstream's list_changed reloads at most once in this long (the first one after the debounce). */
const UPSTREAM_RELOAD_MS = 2000;
/** Distinct reasons one upstream-asked reload names at most. */
const MAX_UPSTREAM_REASONS = 8;
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;

/** Every error is a source that could not be opened: the manifest is fine, a dependency is down. */
function onlySourcesDown(err: ManifestError): boolean {
  const errors = err.diagnostics.filter((d) => d.severity !== 'warning');
  return errors.length > 0 && errors.every((d) => d.code === 'SOURCE_OPEN_FAILED');
}

function describeError(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/** URIs served by both catalogs whose content lives in the manifest (inline text) and changed. */
function inlineChanges(previous: Catalog, next: Catalog): string[] {
  const uris: string[] = [];
  for (const [uri, resource] of next.resources) {
    const before = previous.resources.get(uri)?.version;
    if (resource.version !== undefined && before !== undefined && before !== resource.version) uris.push(uri);
  }
  return uris;
}

/** URIs of skill files served by both catalogs whose content (digest) changed. */
function skillFileChanges(previous: Catalog, next: Catalog): string[] {
  const uris: string[] = [];
  for (const [name, skill] of next.skills) {
    const before = new Map(previous.skills.get(name)?.files.map((f) => [f.uri, f.digest]));
    for (const file of skill.files) {
      const digest = before.get(file.uri);
      if (digest !== undefined && digest !== file.digest) uris.push(file.uri);
    }
  }
  return uris;
}

/**
 * What the comparison of two loads sees: the manifest's text and its included files'. Hashed a
 * piece at a time: given whole, node:crypto encoded a text as UTF-8 into one buffer of three bytes
 * per character (9.5 MB for an imported API's 3.2 million), which the allocator kept long after.
 */
export function textDigest(text: string, included: string): string {
  const hash = nodeCrypto().createHash('sha256');
  hashInPieces(hash, text);
  hashInPieces(hash, included);
  return hash.digest('base64url');
}

/**
 * textDigest of the file's text as it is now, read and hashed a piece at a time: the catch-up
 * after the opening exchange read an imported API's manifest whole, 10 MB of bytes and text, while
 * the client was still reading its first list.
 */
export function fileDigest(file: string, included: string): Promise<string> {
  const hash = nodeCrypto().createHash('sha256');
  return new Promise((resolve, reject) => {
    // Decoded as it is read: a piece never ends inside a character.
    createReadStream(file, { encoding: 'utf8', highWaterMark: PIECE })
      .on('data', (piece) => hash.update(piece))
      .once('error', reject)
      .once('end', () => {
        hashInPieces(hash, included);
        resolve(hash.digest('base64url'));
      });
  });
}

const PIECE = 64 * 1024;

function hashInPieces(hash: Hash, text: string): void {
  for (let at = 0; at < text.length; ) {
    const end = pieceEnd(text, at);
    hash.update(text.slice(at, end));
    at = end;
  }
}

/** Where the piece of `text` from `at` ends: never between the two halves of a surrogate pair. */
function pieceEnd(text: string, at: number): number {
  const end = Math.min(at + PIECE, text.length);
  const last = text.charCodeAt(end - 1);
  return end < text.length && last >= 0xd800 && last <= 0xdbff ? end - 1 : end;
}

/** The included files' paths and texts, one string to compare (a missing file reads as missing). */
function includedTexts(catalog: Catalog, read: (file: string, encoding: 'utf8') => string): string {
  let out = '';
  for (const file of catalog.includes ?? []) {
    let text: string;
    try {
      text = read(file, 'utf8');
    } catch {
      text = '\0missing';
    }
    out += `\0${file}\0${text.length}\0${text}`;
  }
  return out;
}

function watchedPaths(catalog: Catalog): string[] {
  return [...(catalog.watched?.keys() ?? [])];
}

/** The symlinks in the manifest's own folder that its path goes through (a ConfigMap's `..data`). */
export function symlinksOf(file: string): Set<string> {
  const folder = dirname(resolve(file));
  const links = new Set<string>();
  let path = resolve(file);
  for (let hops = 0; hops < 8; hops++) {
    // The first component below the folder: `..data` of `..data/mcp.yaml`.
    const relative = path.slice(folder.length + 1);
    if (!path.startsWith(`${folder}/`) || relative === '') break;
    const first = join(folder, relative.split('/')[0] as string);
    let target: string;
    try {
      if (!lstatSync(first).isSymbolicLink()) break;
      target = readlinkSync(first);
    } catch {
      break;
    }
    links.add(first);
    path = resolve(folder, target, path.slice(first.length + 1));
  }
  return links;
}
