/**
 * `resources/list`, `resources/templates/list` and `resources/read`. A read tries the static
 * resources first, then the templates in manifest order; not-found is -32002 (legacy) or -32602
 * (2026), never an empty `contents`.
 */
import { declaresApps } from '../apps.js';
import type { MethodSpec } from '../context.js';
import { describe, knownError, resourceNotFound } from '../error-mapping.js';
import { ErrorCode, ProtocolError } from '../jsonrpc.js';
import { decodeCursor, encodeCursor, listPage, withoutViews } from '../pagination.js';
import { requireString } from '../params.js';
import type { RequestScope } from '../request-scope.js';
import { privateResult } from '../results.js';

async function readResource(scope: RequestScope): Promise<object> {
  const uri = requireString(scope.params, 'uri', 'resources/read');
  const { catalog, signal } = scope;
  try {
    const resource = catalog.resources.get(uri);
    if (resource !== undefined) return { contents: await resource.read(signal) };
    for (const template of catalog.templates) {
      const vars = template.match(uri);
      if (vars === undefined) continue;
      const result = { contents: await template.read(uri, vars, signal, scope.identity) };
      // A claim-bound read is the caller's own: a 2026 result says so (cacheScope private).
      return template.callerBound ? privateResult(result) : result;
    }
  } catch (err) {
    const known = knownError(err, scope.era);
    if (known !== undefined) throw known;
    // A failed read (a file vanished, a query failed) is worth telling the client about, so the
    // message goes out; the stack stays on stderr.
    scope.server.log.error(`resources/read ${uri} failed: ${describe(err)}`);
    throw new ProtocolError(ErrorCode.InternalError, err instanceof Error ? err.message : String(err));
  }
  throw resourceNotFound(uri, scope.era);
}

/**
 * Static resources come from the cached pages; live sets (a database's tables) are listed anew on
 * each request and appended in manifest order, so the offsets in cursors stay deterministic for an
 * unchanged schema. A set that fails to list is logged and left out rather than failing the list.
 */
async function listResources(scope: RequestScope): Promise<object> {
  const { catalog, signal } = scope;
  const lists = catalog.resourceLists ?? [];
  const form = { tasks: false, apps: declaresApps(scope) };
  if (lists.length === 0) return listPage(catalog, 'resources', scope.params, scope.access, form);
  const all = withoutViews(
    catalog,
    Array.from(catalog.resources.values(), (r) => r.descriptor),
    form,
  );
  const seen = new Set(catalog.resources.keys());
  for (const list of lists) {
    const listed = await list(signal).catch((err: unknown) => {
      scope.server.log.error(`resources/list: a live resource set failed: ${describe(err)}`);
      return [];
    });
    for (const { descriptor } of listed) {
      if (seen.has(descriptor.uri)) continue;
      seen.add(descriptor.uri);
      all.push(descriptor);
    }
  }
  const { access } = scope;
  const shown = access === undefined ? all : all.filter((d) => access.allows('resources', d.uri));
  const offset = decodeCursor(scope.params.cursor, shown.length);
  const end = offset + Math.max(1, Math.floor(catalog.pageSize) || shown.length || 1);
  return end < shown.length
    ? { resources: shown.slice(offset, end), nextCursor: encodeCursor(end) }
    : { resources: shown.slice(offset) };
}

export const resourceMethods: Record<string, MethodSpec> = {
  'resources/list': { era: 'both', cacheable: true, handle: listResources },
  'resources/templates/list': {
    era: 'both',
    cacheable: true,
    handle: (scope) => listPage(scope.catalog, 'resourceTemplates', scope.params, scope.access),
  },
  'resources/read': { era: 'both', cacheable: true, routingName: 'uri', handle: readResource },
};
