/**
 * The four list methods share one pager. Descriptor arrays and pages are computed on first use and
 * cached per catalog object (a WeakMap), so a list request after the first one allocates nothing
 * but its response; a reload brings a new catalog and therefore fresh pages. A page is marked with
 * its JSON text (results.ts, withJsonText), so the transports serialize each page once, not per
 * request.
 *
 * Cursors are opaque to clients: base64url of `{"o": offset}`. A reload may shift what an offset
 * points at; the spec allows that (clients restart from the first page on -32602).
 */
import { skillResource } from '../catalog/skills.js';
import type { Catalog, ResourceDescriptor } from '../catalog/types.js';
import { invalidParams, isObject } from './jsonrpc.js';
import { privateResult, withJsonText } from './results.js';

export type ListKind = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

/**
 * A caller's view of the catalog (an HTTP route's authenticated principal): `key` is a tool's or
 * prompt's name, a resource's URI, a template's uriTemplate.
 */
export interface Access {
  allows(kind: ListKind, key: string): boolean;
}

/**
 * The forms of a list. `execution.taskSupport` exists only in 2025-11-25 (2026 moved tasks to an
 * extension that does not list it): `tasks` keeps it in the tools list. The MCP Apps views (a tool's
 * `_meta.ui`, the tools only views call, the `ui://` resources) are for a client that declared the
 * extension (`apps`); any other gets the lists it got before views existed.
 */
export interface ListForm {
  readonly tasks: boolean;
  readonly apps: boolean;
}

const PLAIN: ListForm = { tasks: false, apps: false };

function withoutExecution(descriptor: object): object {
  if (!('execution' in descriptor)) return descriptor;
  const { execution: _dropped, ...rest } = descriptor as Record<string, unknown>;
  return rest;
}

/** Only a view sets a tool's `_meta` (catalog/views.ts). */
function withoutApps(descriptor: object): object {
  if (!('_meta' in descriptor)) return descriptor;
  const { _meta: _dropped, ...rest } = descriptor as Record<string, unknown>;
  return rest;
}

/** The resources as a client without views sees them: none of the tools' `ui://` pages. */
export function withoutViews<T extends { readonly uri: string }>(c: Catalog, all: T[], form: ListForm): T[] {
  const views = c.views;
  return form.apps || views === undefined ? all : all.filter((d) => !views.has(d.uri));
}

function toolsOf(c: Catalog, form: ListForm): readonly object[] {
  const listed: object[] = [];
  for (const tool of c.tools.values()) {
    if (!form.apps && tool.view?.appOnly) continue;
    const descriptor = form.tasks ? tool.descriptor : withoutExecution(tool.descriptor);
    listed.push(form.apps ? descriptor : withoutApps(descriptor));
  }
  return listed;
}

const descriptorsOf: Record<ListKind, (catalog: Catalog, form: ListForm) => readonly object[]> = {
  tools: toolsOf,
  resources: (c, form) =>
    withoutViews(c, [...Array.from(c.resources.values(), (r) => r.descriptor), ...skillResources(c)], form),
  resourceTemplates: (c) => c.templates.map((t) => t.descriptor),
  prompts: (c) => Array.from(c.prompts.values(), (p) => p.descriptor),
};

/**
 * Each skill's SKILL.md, listed after the static resources (docs/skills.md): named and described
 * by its frontmatter, so a client without the skills extension still finds the skills. The other
 * files of a skill are not listed: its entry (skills/list) and directory reads name them.
 */
export function skillResources(catalog: Catalog): readonly ResourceDescriptor[] {
  return Array.from(catalog.skills.values(), skillResource);
}

interface CatalogLists {
  /** Key: the kind, `+tasks` for the tools list with `execution`, `+apps` with the views' `_meta`. */
  readonly descriptors: Map<string, readonly object[]>;
  /** Key: `${kind}[+tasks][+apps]:${offset}`. */
  readonly pages: Map<string, object>;
}

const cache = new WeakMap<Catalog, CatalogLists>();

function listsOf(catalog: Catalog): CatalogLists {
  let lists = cache.get(catalog);
  if (lists === undefined) {
    lists = { descriptors: new Map(), pages: new Map() };
    cache.set(catalog, lists);
  }
  return lists;
}

/** The key an Access judges a descriptor by: a resource's URI, a template's uriTemplate, else its name. */
export function accessKey(kind: ListKind, descriptor: object): string {
  const d = descriptor as { name?: unknown; uri?: unknown; uriTemplate?: unknown };
  const key = kind === 'resources' ? d.uri : kind === 'resourceTemplates' ? d.uriTemplate : d.name;
  return typeof key === 'string' ? key : '';
}

/**
 * One page of a list result: `{[kind]: items, nextCursor?}`, in manifest order. With an Access, only
 * the entries it allows, paged over that filtered list (not cached, and private: it depends on the
 * caller).
 */
export function listPage(
  catalog: Catalog,
  kind: ListKind,
  params: Record<string, unknown>,
  access?: Access,
  form: ListForm = PLAIN,
): object {
  if (access !== undefined) {
    const visible = descriptorsOf[kind](catalog, form).filter((d) => access.allows(kind, accessKey(kind, d)));
    // Another caller may see another list: a 2026 cache keeps it for this caller only.
    return privateResult(
      pageOf(kind, visible, decodeCursor(params.cursor, visible.length), catalog.pageSize),
    );
  }
  const lists = listsOf(catalog);
  const named = `${kind}${form.tasks ? '+tasks' : ''}${form.apps ? '+apps' : ''}`;
  let all = lists.descriptors.get(named);
  if (all === undefined) {
    all = descriptorsOf[kind](catalog, form);
    lists.descriptors.set(named, all);
  }
  const offset = decodeCursor(params.cursor, all.length);
  const key = `${named}:${offset}`;
  let page = lists.pages.get(key);
  if (page === undefined) {
    page = withJsonText(pageOf(kind, all, offset, catalog.pageSize));
    lists.pages.set(key, page);
  }
  return page;
}

function pageOf(kind: ListKind, all: readonly object[], offset: number, pageSize: number): object {
  const size = Math.max(1, Math.floor(pageSize) || all.length || 1);
  const end = offset + size;
  return end < all.length
    ? { [kind]: all.slice(offset, end), nextCursor: encodeCursor(end) }
    : { [kind]: all.slice(offset) };
}

export function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The offset a cursor stands for; absent (or null) means the first page. */
export function decodeCursor(cursor: unknown, length: number): number {
  if (cursor === undefined || cursor === null) return 0;
  if (typeof cursor === 'string' && BASE64URL.test(cursor)) {
    try {
      const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      const offset = isObject(decoded) ? decoded.o : undefined;
      if (typeof offset === 'number' && Number.isInteger(offset) && offset >= 0 && offset <= length)
        return offset;
    } catch {
      // falls through to the error below
    }
  }
  throw invalidParams(
    `Invalid cursor ${JSON.stringify(cursor)}: pass a nextCursor from an earlier page, or none`,
  );
}
