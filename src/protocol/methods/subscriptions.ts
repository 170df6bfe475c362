/**
 * Change subscriptions in both eras: `resources/subscribe` / `unsubscribe` record URIs on a legacy
 * connection; `subscriptions/listen` (2026) opens a stream that the hub feeds until the client
 * cancels it, the connection goes away, or the server shuts down gracefully.
 */
import { KEEP_OPEN, type MethodSpec } from '../context.js';
import type { ListCategory, ListenSubscription } from '../hub.js';
import { invalidParams, notification } from '../jsonrpc.js';
import { requireObject, requireString } from '../params.js';
import type { RequestScope } from '../request-scope.js';
import { Meta } from '../versions.js';

const FILTER_FIELDS: readonly (readonly [string, ListCategory])[] = [
  ['toolsListChanged', 'tools'],
  ['promptsListChanged', 'prompts'],
  ['resourcesListChanged', 'resources'],
];

function listen(scope: RequestScope): typeof KEEP_OPEN {
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
  if (uris !== undefined) honoured.resourceSubscriptions = uris;
  const tag = { [Meta.subscriptionId]: scope.id };
  const { hub } = scope.server;
  const subscription: ListenSubscription = {
    lists,
    uris: new Set(uris as string[] | undefined),
    tag,
    send: (message) => scope.outlet.notify(message),
    end: () => {
      hub.removeListen(subscription);
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
      scope.end();
    },
    { once: true },
  );
  return KEEP_OPEN;
}

function subscribe(scope: RequestScope): object {
  scope.session.subscriptions.add(requireString(scope.params, 'uri', 'resources/subscribe'));
  return {};
}

function unsubscribe(scope: RequestScope): object {
  scope.session.subscriptions.delete(requireString(scope.params, 'uri', 'resources/unsubscribe'));
  return {};
}

export const subscriptionMethods: Record<string, MethodSpec> = {
  'subscriptions/listen': { era: 'modern', handle: listen },
  'resources/subscribe': { era: 'legacy', handle: subscribe },
  'resources/unsubscribe': { era: 'legacy', handle: unsubscribe },
};
