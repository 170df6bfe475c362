/**
 * Resources whose changes someone else tells of (`CatalogResource.follow`: an upstream MCP
 * server's resource), followed while at least one of our subscribers holds their URI: a 2025
 * session's `resources/subscribe`, or a 2026 `subscriptions/listen` stream that lists it.
 *
 * Each of our URIs is followed once, however many subscribers hold it, and released when the last
 * one leaves (unsubscribe, a closed connection or stream, a re-initialize, shutdown). A reload
 * swaps in a catalog whose sources are new: every held URI is then followed through the new
 * catalog's resource and released from the old one. Each change reaches the hub as this URI's
 * `resources/updated`, which sends it to exactly the subscribers that hold it.
 */
import type { Catalog, CatalogRef } from '../catalog/types.js';
import type { Logger } from '../log.js';
import { escapeControls } from '../util/escape-controls.js';

interface Held {
  readonly holders: Set<object>;
  /** The catalog whose resource is followed. */
  catalog: Catalog;
  /** Settles once following started; rejects when it could not. */
  ready: Promise<void>;
  release: (() => void) | undefined;
  /** Dropped while following was starting: released as soon as it started. */
  dropped: boolean;
}

export class ResourceFollows {
  private readonly held = new Map<string, Held>();

  constructor(
    private readonly ref: CatalogRef,
    private readonly notify: (uri: string) => void,
    private readonly log: Logger,
  ) {}

  /**
   * `holder` subscribes to `uri`. Resolves at once for a resource that is not followed (its own
   * changes are told by the core); rejects with a sentence when it cannot be followed.
   */
  async hold(holder: object, uri: string): Promise<void> {
    let entry = this.held.get(uri);
    if (entry === undefined) {
      const catalog = this.ref.current;
      const resource = catalog.resources.get(uri);
      if (resource?.follow === undefined) return;
      const created: Held = {
        holders: new Set(),
        catalog,
        ready: Promise.resolve(),
        release: undefined,
        dropped: false,
      };
      created.ready = this.start(created, uri, resource.follow.bind(resource));
      entry = created;
      this.held.set(uri, entry);
    }
    entry.holders.add(holder);
    try {
      await entry.ready;
    } catch (err) {
      entry.holders.delete(holder);
      if (this.held.get(uri) === entry) this.held.delete(uri);
      throw err;
    }
  }

  drop(holder: object, uri: string): void {
    const entry = this.held.get(uri);
    if (entry === undefined || !entry.holders.delete(holder) || entry.holders.size > 0) return;
    this.held.delete(uri);
    this.end(entry);
  }

  /** Everything `holder` held (a closed connection or stream, a re-initialize). */
  dropAll(holder: object): void {
    for (const [uri, entry] of [...this.held]) if (entry.holders.has(holder)) this.drop(holder, uri);
  }

  /** The catalog was swapped: each held URI is followed through the new one, released from the old. */
  rebind(): void {
    const catalog = this.ref.current;
    for (const [uri, entry] of [...this.held]) {
      if (entry.catalog === catalog) continue;
      const previous = { ...entry };
      const resource = catalog.resources.get(uri);
      if (resource?.follow === undefined) {
        // Gone, or no longer followed: its subscribers hear nothing more of it.
        this.held.delete(uri);
        this.end(previous);
        continue;
      }
      entry.catalog = catalog;
      entry.release = undefined;
      entry.ready = this.start(entry, uri, resource.follow.bind(resource));
      entry.ready.catch((err: Error) => {
        this.log.warn(escapeControls(`after a reload, ${uri} is no longer followed: ${err.message}`));
        if (this.held.get(uri) === entry) this.held.delete(uri);
      });
      this.end(previous);
    }
  }

  /** Shutdown: every follow is released. */
  releaseAll(): void {
    for (const entry of this.held.values()) this.end(entry);
    this.held.clear();
  }

  private async start(
    entry: Held,
    uri: string,
    follow: (onUpdated: () => void) => Promise<() => void>,
  ): Promise<void> {
    const catalog = entry.catalog;
    const release = await follow(() => {
      // A follow the entry moved on from (a reload) speaks no more for the URI.
      if (this.held.get(uri) === entry && entry.catalog === catalog) this.notify(uri);
    });
    if (entry.dropped || entry.catalog !== catalog) release();
    else entry.release = release;
  }

  private end(entry: Pick<Held, 'release' | 'ready'> & { dropped: boolean }): void {
    entry.dropped = true;
    if (entry.release !== undefined) entry.release();
    entry.release = undefined;
  }
}
