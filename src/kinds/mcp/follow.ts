/**
 * What an `mcp` source relays beside calls, reads and gets: the upstream's resource subscriptions
 * and its completions.
 *
 * Subscriptions: one upstream `resources/subscribe` per upstream URI, however many of our clients
 * follow it (counted here; protocol/follows.ts counts our own subscribers per our URI), and one
 * `resources/unsubscribe` when the last follower leaves. At most `max` URIs a source: past it a
 * follow is refused with a sentence. The upstream's `notifications/resources/updated` for a
 * followed URI calls its followers; any other URI is ignored. An upstream that floods updates is
 * slowed to one per URI every UPDATE_GAP_MS (the ones in between are one, told at the gap's end):
 * each reaches every subscriber, so its rate is what a flood would multiply. After a restart (a new process, a
 * new HTTP session) the upstream has forgotten them: every followed URI is subscribed again.
 *
 * Completions: forwarded as asked (the caller's entries renamed back to the upstream's by the
 * kinds), at most MAX_VALUES values, each at most MAX_VALUE_CHARS characters (a longer one is left
 * out: a cut value would be a wrong one), every value redacted of the source's credentials.
 */
import { escapeControls } from '../../util/escape-controls.js';
import { isObject } from '../../util/is-object.js';
import type { Logger } from '../contract/kinds.js';

/** The specification's maxItems for `completion.values`. */
export const MAX_VALUES = 100;
/** A completion value longer than this is left out. */
export const MAX_VALUE_CHARS = 1024;
/** Upstream URIs one source follows at once (subscribed upstream), by default. */
export const DEFAULT_MAX_SUBSCRIPTIONS = 100;

/** At most one update of a URI this often; more in between are one, told when the gap ends. */
export const UPDATE_GAP_MS = 250;

/** How long a dispose waits for the upstream to answer its unsubscribes. */
const DISPOSE_WAIT_MS = 2000;

/** One request to the upstream, within the source's timeout and concurrency. */
export type UpstreamRequest = (method: string, params: object) => Promise<unknown>;

interface Followed {
  readonly followers: Set<() => void>;
  /** When the last update was told. */
  toldAt: number;
  /** An update waiting for the gap to end. */
  pending: NodeJS.Timeout | undefined;
  /** Settles when the upstream answered the subscribe; rejects when it refused. */
  subscribed: Promise<void>;
}

export class UpstreamSubscriptions {
  private readonly followed = new Map<string, Followed>();
  private disposed = false;

  constructor(
    private readonly o: {
      readonly name: string;
      readonly max: number;
      readonly request: UpstreamRequest;
      readonly log: Logger;
      readonly redact: (text: string) => string;
    },
  ) {}

  async follow(uri: string, onUpdated: () => void): Promise<() => void> {
    if (this.disposed) throw new Error(`${this.o.name} has been shut down`);
    let entry = this.followed.get(uri);
    if (entry === undefined) {
      if (this.followed.size >= this.o.max)
        throw new Error(
          `${this.o.name} already follows ${this.o.max} resources upstream (its limit); try again when a subscription ends`,
        );
      const created: Followed = {
        followers: new Set(),
        subscribed: Promise.resolve(),
        toldAt: 0,
        pending: undefined,
      };
      created.subscribed = this.subscribe(uri).catch((err: Error) => {
        // Refused: forgotten, so that the next follower asks again.
        if (this.followed.get(uri) === created) this.followed.delete(uri);
        throw err;
      });
      entry = created;
      this.followed.set(uri, entry);
    }
    const follower = () => onUpdated();
    entry.followers.add(follower);
    try {
      await entry.subscribed;
    } catch (err) {
      entry.followers.delete(follower);
      throw new Error(
        `${this.o.name} refused the subscription to ${uri}: ${this.o.redact((err as Error).message)}`,
      );
    }
    const held = entry;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      held.followers.delete(follower);
      if (held.followers.size > 0 || this.followed.get(uri) !== held) return;
      clearTimeout(held.pending);
      this.followed.delete(uri);
      if (!this.disposed) void this.unsubscribe(uri);
    };
  }

  /** The upstream's `notifications/resources/updated`: to the URI's followers, if any. */
  updated(uri: string): void {
    const entry = this.followed.get(uri);
    if (entry === undefined || entry.pending !== undefined) return;
    const wait = entry.toldAt + UPDATE_GAP_MS - Date.now();
    if (wait > 0) {
      entry.pending = setTimeout(() => {
        entry.pending = undefined;
        if (this.followed.get(uri) === entry) this.tell(entry);
      }, wait);
      return;
    }
    this.tell(entry);
  }

  private tell(entry: Followed): void {
    entry.toldAt = Date.now();
    for (const follower of [...entry.followers]) {
      try {
        follower();
      } catch (err) {
        this.o.log.warn(`${this.o.name}: a subscriber of an update failed: ${(err as Error).message}`);
      }
    }
  }

  /** A restarted upstream has forgotten its subscriptions: each followed URI is subscribed again. */
  restarted(): void {
    for (const [uri, entry] of this.followed)
      void entry.subscribed.then(
        () =>
          this.subscribe(uri).catch((err: Error) =>
            this.o.log.warn(
              escapeControls(
                `${this.o.name} refused the subscription to ${uri} again after its restart: ${this.o.redact(err.message)}`,
              ),
            ),
          ),
        () => {},
      );
  }

  /** Unsubscribes every followed URI upstream (best effort, bounded by the request's timeout). */
  async dispose(): Promise<void> {
    this.disposed = true;
    const uris = [...this.followed.keys()];
    for (const entry of this.followed.values()) clearTimeout(entry.pending);
    this.followed.clear();
    if (uris.length === 0) return;
    // A dispose waits for no hung upstream: what is not answered by then ends with the session.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(uris.map((uri) => this.unsubscribe(uri))),
      new Promise((resolve) => {
        timer = setTimeout(resolve, DISPOSE_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  get size(): number {
    return this.followed.size;
  }

  private async subscribe(uri: string): Promise<void> {
    await this.o.request('resources/subscribe', { uri });
  }

  private async unsubscribe(uri: string): Promise<void> {
    try {
      await this.o.request('resources/unsubscribe', { uri });
    } catch (err) {
      this.o.log.debug(
        escapeControls(
          `${this.o.name}: resources/unsubscribe of ${uri} failed: ${this.o.redact((err as Error).message)}`,
        ),
      );
    }
  }
}

/** An upstream's `completion/complete` answer: its values, bounded and redacted. */
export function completionValues(result: unknown, redact: (text: string) => string): string[] {
  const completion = isObject(result) ? result.completion : undefined;
  const values = isObject(completion) && Array.isArray(completion.values) ? completion.values : [];
  const out: string[] = [];
  for (const value of values) {
    if (out.length >= MAX_VALUES) break;
    if (typeof value === 'string' && value.length <= MAX_VALUE_CHARS) out.push(redact(value));
  }
  return out;
}
