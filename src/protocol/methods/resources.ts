/**
 * `resources/list`, `resources/templates/list` and `resources/read`. A read tries the static
 * resources first, then the templates in manifest order; not-found is -32002 (legacy) or -32602
 * (2026), never an empty `contents`.
 */
import { skillFileOf } from '../../catalog/skills.js';
import type { SkillFile } from '../../catalog/types.js';
import { withLimits } from '../../governance/limits/gate.js';
import { declaresApps } from '../apps.js';
import type { MethodSpec } from '../context.js';
import { describe, knownError, resourceNotFound } from '../error-mapping.js';
import { ErrorCode, ProtocolError } from '../jsonrpc.js';
import { decodeCursor, encodeCursor, listPage, skillResources, withoutViews } from '../pagination.js';
import { requireString } from '../params.js';
import type { RequestScope } from '../request-scope.js';
import { privateResult } from '../results.js';

async function readResource(scope: RequestScope): Promise<object> {
  const uri = requireString(scope.params, 'uri', 'resources/read');
  const { catalog, signal } = scope;
  try {
    const resource = catalog.resources.get(uri);
    // An entry's `limits:` per caller (governance/limits/): a refusal is -32041 (knownError).
    const limits = catalog.entryLimits;
    if (resource !== undefined) {
      const read = () => resource.read(signal, scope.identity);
      const result = { contents: await withLimits(limits?.get(resource), scope.client, read) };
      // Under a policy, who may read it and what they see depend on the caller.
      return resource.callerBound ? privateResult(result) : result;
    }
    const file = skillFileOf(catalog.skills, uri);
    if (file !== undefined) return { contents: [skillContents(file, await file.read(signal))] };
    for (const template of catalog.templates) {
      const vars = template.match(uri);
      if (vars === undefined) continue;
      const read = () => template.read(uri, vars, signal, scope.identity);
      const result = { contents: await withLimits(limits?.get(template), scope.client, read) };
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

/** A skill file's content: text as text, anything else as base64. */
function skillContents(file: SkillFile, content: Uint8Array | string): object {
  const { uri, mimeType } = file;
  return typeof content === 'string'
    ? { uri, mimeType, text: content }
    : { uri, mimeType, blob: Buffer.from(content).toString('base64') };
}

/**
 * Static resources come from the cached pages (each skill's SKILL.md after them: pagination.ts); live sets (a database's tables) are listed anew on
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
    [...Array.from(catalog.resources.values(), (r) => r.descriptor), ...skillResources(catalog)],
    form,
  );
  const seen = new Set(all.map((d) => d.uri));
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
  const page =
    end < shown.length
      ? { resources: shown.slice(offset, end), nextCursor: encodeCursor(end) }
      : { resources: shown.slice(offset) };
  return access === undefined ? page : privateResult(page);
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
