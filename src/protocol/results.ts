/**
 * What results say about the server: capabilities, serverInfo, and the 2026-07-28 decoration
 * (resultType, ttlMs + cacheScope, `_meta` serverInfo) added to every modern result in one place.
 */
import type { Catalog } from '../catalog/types.js';
import { isObject } from './jsonrpc.js';
import { Meta } from './versions.js';

/**
 * All three categories always, even when a list is empty, so clients never have to re-initialize.
 * `resources.subscribe` only when resource updates are really sent (the manifest is watched).
 */
export function buildCapabilities(listChanged: boolean, resourceUpdates: boolean): object {
  return {
    tools: { listChanged },
    resources: resourceUpdates ? { subscribe: true, listChanged } : { listChanged },
    prompts: { listChanged },
    logging: {},
    completions: {},
  };
}

interface ServerIdentity {
  /** `serverInfo` of the initialize result. */
  readonly info: object;
  /** `_meta` of every modern result. */
  readonly meta: Readonly<Record<string, unknown>>;
}

const identities = new WeakMap<Catalog, ServerIdentity>();

function identity(catalog: Catalog): ServerIdentity {
  let found = identities.get(catalog);
  if (found === undefined) {
    const { name, version, title } = catalog.server;
    const info = title === undefined ? { name, version } : { name, version, title };
    found = { info, meta: { [Meta.serverInfo]: info } };
    identities.set(catalog, found);
  }
  return found;
}

export const serverInfo = (catalog: Catalog): object => identity(catalog).info;

/**
 * Wraps an era-neutral result for a 2026 request. `ttlMs` is given for cacheable methods only.
 * A result's own `_meta` (the listen result's subscriptionId) is kept beside serverInfo.
 */
export function modernResult(result: object, catalog: Catalog, ttlMs: number | undefined): object {
  const own = (result as { _meta?: unknown })._meta;
  const meta = isObject(own) ? { ...identity(catalog).meta, ...own } : identity(catalog).meta;
  return ttlMs === undefined
    ? { resultType: 'complete', ...result, _meta: meta }
    : { resultType: 'complete', ...result, ttlMs, cacheScope: 'public', _meta: meta };
}
