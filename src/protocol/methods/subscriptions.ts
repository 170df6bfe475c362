/**
 * Change subscriptions in both eras: `resources/subscribe` / `unsubscribe` record URIs on a legacy
 * connection; `subscriptions/listen` (2026) opens a stream that the hub feeds until the client
 * cancels it, the connection goes away, or the server shuts down gracefully.
 *
 * Only what will be honoured is accepted: resource subscriptions need `resources.subscribe`
 * (the server watches), and a URI must name a resource that sends updates. An unknown URI is
 * not found (-32002); a URI that exists but never changes notifications (a query, a template
 * match) is refused with invalid params, saying why; the 2026 acknowledgement lists neither.
 * A resource that others tell of (`follow`: an upstream's) is followed while a session or stream
 * holds it (protocol/follows.ts); one that cannot be followed (its upstream refuses, its source is
 * at its cap) is refused the same way, and left out of the acknowledgement.
 */
import { skillFileOf } from '../../catalog/skills.js';
import type { Catalog } from '../../catalog/types.js';
import { KEEP_OPEN, type MethodSpec } from '../context.js';
import { resourceNotFound } from '../error-mapping.js';
import type { ListCategory, ListenSubscription } from '../hub.js';
import { ErrorCode, invalidParams, notification, ProtocolError } from '../jsonrpc.js';
import type { Access } from '../pagination.js';
import { requireObject, requireString } from '../params.js';
import type { RequestScope } from '../request-scope.js';
import { Meta } from '../versions.js';

const FILTER_FIELDS: readonly (readonly [string, ListCategory])[] = [
  ['toolsListChanged', 'tools'],
  ['promptsListChanged', 'prompts'],
  ['resourcesListChanged', 'resources'],
];

type Subscribable = 'updates' | 'silent' | 'unknown';

/**
 * Whether `uri` exists in `catalog` for this caller, and if so whether the server tells anyone when
 * it changes. What the caller may not see in lists (its scopes, or a policy by its claims) is
 * unknown to it here too.
 */
function subscribable(catalog: Catalog, uri: string, access: Access | undefined): Subscribable {
  if (access !== undefined && !access.allows('resources', uri)) return 'unknown';
  const resource = catalog.resources.get(uri);
  if (resource !== undefined) return resource.updates === true ? 'updates' : 'silent';
  // A skill file's edit reloads the catalog, which tells its subscribers (catalog/reload.ts).
  if (skillFileOf(catalog.skills, uri) !== undefined) return 'updates';
  // Template matches (live-listed tables among them) exist, but no template sends updates.
  return catalog.templates.some((t) => t.match(uri) !== undefined) ? 'silent' : 'unknown';
}

async function listen(scope: RequestScope): Promise<typeof KEEP_OPEN> {
  const requested = requireObject(scope.params, 'notifications', 'subscriptions/listen');
  const uris = requested.resourceSubscriptions;
  if (uris !== undefined && !(Array.isArray(uris) && uris.every((u) => typeof u === 'string'))) {
    throw invalidParams(
      'subscriptions/listen "notifications.resourceSubscriptions" must be an array of strings',
    );
  }
  // The acknowledged filter is what we will honour: list-changed types only when advertised.
  const honoured: Record<string, unknown> = {};
  const lists = new Set<ListCategory>();
  for (const [field, category] of FILTER_FIELDS) {
    if (requested[field] === true && scope.server.listChanged) {
      honoured[field] = true;
      lists.add(category);
    }
  }
  const { hub, follows } = scope.server;
  // This stream's hold on followed resources (an upstream's), released when it ends.
  const holder = {};
  // Resource subscriptions only when advertised, and only the URIs whose updates will be sent.
  let honouredUris: string[] = [];
  if (uris !== undefined && hub.resourceUpdates) {
    const candidates = [...new Set(uris as string[])].filter(
      (uri) => subscribable(scope.catalog, uri, scope.access) === 'updates',
    );
    // A followed URI whose upstream refuses it (or a full source) is left out of the acknowledgement.
    const followed = await Promise.all(
      candidates.map((uri) =>
        follows.hold(holder, uri).then(
          () => true,
          () => false,
        ),
      ),
    );
    honouredUris = candidates.filter((_, i) => followed[i]);
    honoured.resourceSubscriptions = honouredUris;
    if (scope.signal.aborted) {
      follows.dropAll(holder);
      scope.end();
      return KEEP_OPEN;
    }
  }
  const tag = { [Meta.subscriptionId]: scope.id };
  const subscription: ListenSubscription = {
    lists,
    uris: new Set(honouredUris),
    toolsets: scope.toolsets,
    tag,
    send: (message) => scope.outlet.notify(message),
    end: () => {
      hub.removeListen(subscription);
      follows.dropAll(holder);
      scope.finish({ _meta: tag });
    },
  };
  // Acknowledge before registering, so nothing can reach the stream ahead of the acknowledgement.
  scope.outlet.notify(
    notification('notifications/subscriptions/acknowledged', { _meta: tag, notifications: honoured }),
  );
  hub.addListen(subscription);
  // Cancel (stdio), a closed stream (HTTP) or a closed connection: the stream ends silently.
  scope.signal.addEventListener(
    'abort',
    () => {
      hub.removeListen(subscription);
      follows.dropAll(holder);
      scope.end();
    },
    { once: true },
  );
  return KEEP_OPEN;
}

/** Without `resources.subscribe` advertised, the legacy methods are refused as a client should expect. */
function requireAdvertised(scope: RequestScope): void {
  if (!scope.server.hub.resourceUpdates)
    throw new ProtocolError(
      ErrorCode.MethodNotFound,
      `${scope.method} is not available: resources.subscribe is not advertised (the server does not watch its resources)`,
    );
}

async function subscribe(scope: RequestScope): Promise<object> {
  requireAdvertised(scope);
  const uri = requireString(scope.params, 'uri', 'resources/subscribe');
  const found = subscribable(scope.catalog, uri, scope.access);
  if (found === 'unknown') throw resourceNotFound(uri, scope.era);
  if (found === 'silent')
    throw invalidParams(
      `Resource ${uri} cannot be subscribed to: it sends no updates (nothing tells the server when it changes)`,
      { uri },
    );
  // An upstream's resource: followed upstream while anyone holds it (protocol/follows.ts).
  try {
    await scope.server.follows.hold(scope.session, uri);
  } catch (err) {
    throw invalidParams(`Resource ${uri} cannot be subscribed to: ${(err as Error).message}`, { uri });
  }
  scope.session.subscriptions.add(uri);
  return {};
}

function unsubscribe(scope: RequestScope): object {
  requireAdvertised(scope);
  const uri = requireString(scope.params, 'uri', 'resources/unsubscribe');
  scope.session.subscriptions.delete(uri);
  scope.server.follows.drop(scope.session, uri);
  return {};
}

export const subscriptionMethods: Record<string, MethodSpec> = {
  'subscriptions/listen': { era: 'modern', handle: listen },
  'resources/subscribe': { era: 'legacy', handle: subscribe },
  'resources/unsubscribe': { era: 'legacy', handle: unsubscribe },
};
