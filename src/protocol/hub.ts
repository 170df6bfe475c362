/**
 * The notification hub: the one place that knows who listens to what, and fans a change out to
 * exactly those listeners.
 *
 * - Legacy connections get unsolicited list_changed (after `notifications/initialized`, and only
 *   when listChanged is advertised) and `resources/updated` for the URIs they subscribed to.
 * - Modern listen subscriptions get only the types their acknowledged filter holds, each message
 *   tagged with the subscription id, on the listen request's own outlet.
 */

import { changesByView } from '../catalog/toolsets.js';
import type { Catalog } from '../catalog/types.js';
import { notification, type ProtocolError } from './jsonrpc.js';
import { passes } from './log-levels.js';
import type { LegacySession } from './session.js';

export type { ListCategory } from '../catalog/types.js';

import type { ListCategory, LogLevel } from '../catalog/types.js';

const LIST_CATEGORIES: readonly ListCategory[] = ['tools', 'prompts', 'resources'];
const LIST_CHANGED: Readonly<Record<ListCategory, string>> = {
  tools: 'notifications/tools/list_changed',
  prompts: 'notifications/prompts/list_changed',
  resources: 'notifications/resources/list_changed',
};
/** Shared, immutable: the same legacy notification object goes to every connection. */
const LEGACY_LIST_CHANGED: Readonly<Record<ListCategory, object>> = {
  tools: notification(LIST_CHANGED.tools),
  prompts: notification(LIST_CHANGED.prompts),
  resources: notification(LIST_CHANGED.resources),
};

/** A reload's two catalogs, for the listeners whose toolsets see only part of them. */
export interface CatalogChange {
  readonly before: Catalog;
  readonly after: Catalog;
}

/** A legacy connection's standing channel (every connection registers as one). */
export interface LegacyListener {
  readonly session: LegacySession;
  /** The toolsets the connection is served (catalog/toolsets.ts); undefined: the default endpoint's. */
  readonly toolsets?: readonly string[] | undefined;
  notify(message: object): void;
  /** A drain's last step: answers its requests in flight with `error` (Connection.abandon). */
  abandon(error: ProtocolError): number;
}

/** One open `subscriptions/listen` request, with the filter the server acknowledged. */
export interface ListenSubscription {
  readonly lists: ReadonlySet<ListCategory>;
  readonly uris: ReadonlySet<string>;
  /** The toolsets of the endpoint the listen came to; undefined: the default endpoint's. */
  readonly toolsets?: readonly string[] | undefined;
  /** `{"io.modelcontextprotocol/subscriptionId": id}`, put on every message of the stream. */
  readonly tag: object;
  send(message: object): void;
  /** Graceful end: answers the listen request with its final result. */
  end(): void;
}

export class NotificationHub {
  private readonly connections = new Set<LegacyListener>();
  private readonly listens = new Set<ListenSubscription>();

  /**
   * `resourceUpdates`: whether `resources.subscribe` is advertised; when it is not, no
   * `resources/updated` is ever sent and no subscription is accepted.
   */
  constructor(
    private readonly listChanged: boolean,
    readonly resourceUpdates: boolean,
  ) {}

  addConnection(listener: LegacyListener): void {
    this.connections.add(listener);
  }
  removeConnection(listener: LegacyListener): void {
    this.connections.delete(listener);
  }
  addListen(subscription: ListenSubscription): void {
    this.listens.add(subscription);
  }
  removeListen(subscription: ListenSubscription): void {
    this.listens.delete(subscription);
  }

  /**
   * `categories` changed in the catalog as a whole. With `change` (the catalogs before and after),
   * a listener served some toolsets hears only of what changed in their view of it.
   */
  notifyListChanged(categories: ReadonlySet<ListCategory>, change?: CatalogChange): void {
    const changedFor = changesByView(categories, change);
    for (const category of LIST_CATEGORIES) {
      if (!categories.has(category)) continue;
      if (this.listChanged) {
        const message = LEGACY_LIST_CHANGED[category];
        for (const connection of this.connections)
          if (connection.session.ready && changedFor(connection.toolsets).has(category))
            connection.notify(message);
      }
      for (const listen of this.listens) {
        if (listen.lists.has(category) && changedFor(listen.toolsets).has(category))
          listen.send(notification(LIST_CHANGED[category], { _meta: listen.tag }));
      }
    }
  }

  notifyResourceUpdated(uri: string): void {
    if (!this.resourceUpdates) return;
    const legacy = notification('notifications/resources/updated', { uri });
    for (const connection of this.connections) {
      if (connection.session.subscriptions.has(uri)) connection.notify(legacy);
    }
    for (const listen of this.listens) {
      if (listen.uris.has(uri))
        listen.send(notification('notifications/resources/updated', { uri, _meta: listen.tag }));
    }
  }

  /**
   * A message from the server itself (a failed reload) to every 2025 connection whose level lets
   * it through. 2026 listen streams carry only change notifications, so they do not get it.
   */
  notifyLog(level: LogLevel, data: unknown): void {
    const message = notification('notifications/message', { level, logger: 'mcp-run', data });
    for (const connection of this.connections) {
      const threshold = connection.session.logLevel;
      if (connection.session.ready && threshold !== undefined && passes(level, threshold))
        connection.notify(message);
    }
  }

  /** A drain's last step on every connection; returns how many requests were answered. */
  abandonAll(error: ProtocolError): number {
    let answered = 0;
    for (const connection of [...this.connections]) answered += connection.abandon(error);
    return answered;
  }

  /** Graceful shutdown: every listen request gets its final result. */
  endListens(): void {
    for (const listen of [...this.listens]) listen.end();
  }
}
