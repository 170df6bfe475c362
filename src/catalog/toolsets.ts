/**
 * Toolsets: named groups of a manifest's tools, resources and prompts (`toolsets:`), each served on
 * its own HTTP path (`/mcp/<toolset>`) and selectable on stdio (`--toolset`). A client of a toolset
 * sees a view of the catalog with only its members, so every list, read, call and completion, and
 * every list_changed it hears, is about those alone.
 *
 * - Members are named by entry: a tool's name, a resource entry's name (all the URIs, templates and
 *   live sets it serves), a prompt's name; `*` matches any run of characters. A name without `*`
 *   that matches nothing is a manifest error. A mirrored tool (mirror.ts) belongs wherever its
 *   resource or prompt does, and wherever its own name is listed exactly: a `*` under `tools:`
 *   matches declared tools only, or `tools: ['*']` would take in another toolset's resources.
 * - `server.defaultToolset` makes the default endpoint (and stdio without `--toolset`) serve one
 *   toolset; without it, the default serves everything.
 * - A view is made once per catalog and selection, so its list pages are cached like the catalog's.
 */
import { type Problem, problems } from '../errors.js';
import type { LimitsAt } from '../governance/limits/gate.js';
import type { EntryPath } from '../kinds/contract/kinds.js';
import type { LimitsSection } from '../manifest/types.js';
import { suggest } from '../util/suggest.js';
import { diffCatalogs } from './diff.js';
import { inToolset } from './policy.js';
import type { Catalog, CatalogTemplate, ListCategory, ToolsetMembers } from './types.js';

/** `toolsets.<name>` as validated. */
export interface ToolsetConfig {
  readonly description?: string;
  readonly tools?: readonly string[];
  readonly resources?: readonly string[];
  readonly prompts?: readonly string[];
  readonly skills?: readonly string[];
  readonly scopes?: readonly string[];
}

/** What one resource entry serves: its URIs, uriTemplates, and indexes into the catalog's resourceLists. */
export interface ResourceEntryMembers {
  readonly uris: readonly string[];
  readonly templates: readonly string[];
  readonly lists: readonly number[];
}

/** What compile knows of each entry, to resolve the toolsets' names against. */
export interface ToolsetInputs {
  readonly tools: readonly string[];
  /** Resource entry → what it compiled to. */
  readonly resources: ReadonlyMap<string, ResourceEntryMembers>;
  readonly prompts: readonly string[];
  /** Skill names. */
  readonly skills: readonly string[];
  /** Mirror tool → the entry it mirrors. */
  readonly mirrors: ReadonlyMap<
    string,
    { readonly section: 'resources' | 'prompts'; readonly entry: string }
  >;
  /** Tool → the URI of its MCP Apps view (views.ts): a toolset with the tool serves its view. */
  readonly views?: ReadonlyMap<string, string>;
}

/** Resolves every toolset's names; reports those that name nothing, and an unknown default. */
export function resolveToolsets(
  configs: Readonly<Record<string, ToolsetConfig>>,
  inputs: ToolsetInputs,
  report: (path: EntryPath, problem: Problem) => void,
): Map<string, ToolsetMembers> {
  const resolved = new Map<string, ToolsetMembers>();
  const resourceNames = [...inputs.resources.keys()];
  for (const [name, config] of Object.entries(configs)) {
    /** `exact`: names only a name without `*` may pick (a mirror's: a wildcard would widen its scopes). */
    const pick = (
      section: 'tools' | 'resources' | 'prompts' | 'skills',
      known: readonly string[],
      exact: readonly string[] = [],
    ): Set<string> => {
      const chosen = new Set<string>();
      (config[section] ?? []).forEach((pattern, i) => {
        const test = nameMatcher(pattern);
        const found = pattern.includes('*') ? known.filter(test) : [...known, ...exact].filter(test);
        if (found.length === 0 && !pattern.includes('*')) {
          const names = [...known, ...exact];
          report(
            ['toolsets', name, section, i],
            problems.TOOLSET_UNKNOWN_MEMBER(section, pattern, names, suggest(pattern, names)),
          );
        }
        for (const entry of found) chosen.add(entry);
      });
      return chosen;
    };
    const declaredTools = inputs.tools.filter((tool) => !inputs.mirrors.has(tool));
    const tools = pick('tools', declaredTools, [...inputs.mirrors.keys()]);
    const resourceEntries = pick('resources', resourceNames);
    const prompts = pick('prompts', inputs.prompts);
    const skills = pick('skills', inputs.skills);
    for (const [tool, { section, entry }] of inputs.mirrors)
      if ((section === 'resources' ? resourceEntries : prompts).has(entry)) tools.add(tool);
    const uris = new Set<string>();
    const templates = new Set<string>();
    const lists = new Set<number>();
    for (const entry of resourceEntries) {
      const compiled = inputs.resources.get(entry);
      for (const uri of compiled?.uris ?? []) uris.add(uri);
      for (const template of compiled?.templates ?? []) templates.add(template);
      for (const list of compiled?.lists ?? []) lists.add(list);
    }
    for (const tool of tools) {
      const view = inputs.views?.get(tool);
      if (view !== undefined) uris.add(view);
    }
    resolved.set(name, {
      tools,
      resources: uris,
      templates,
      resourceEntries,
      lists,
      prompts,
      skills,
      ...(config.scopes !== undefined && { scopes: config.scopes }),
    });
  }
  return resolved;
}

/**
 * For a tool's name (declared or mirrored), the `limits:` of the toolsets whose `tools:` patterns
 * name it: a toolset's limits count every call of its tools, whichever endpoint the call came to.
 */
export function toolsetLimits(
  toolsets: Readonly<
    Record<string, { readonly tools?: readonly string[]; readonly limits?: LimitsSection }>
  > = {},
): (tool: string) => readonly LimitsAt[] {
  const limited = Object.entries(toolsets)
    .filter(([, config]) => config.limits !== undefined)
    .map(([name, config]) => ({
      limits: { at: `toolsets.${name}.limits`, limits: config.limits },
      names: (config.tools ?? []).map(nameMatcher),
    }));
  if (limited.length === 0) return () => [];
  return (tool) => limited.filter(({ names }) => names.some((test) => test(tool))).map((t) => t.limits);
}

/** `*` as any run of characters; everything else literal. */
export function nameMatcher(pattern: string): (name: string) => boolean {
  if (!pattern.includes('*')) return (name) => name === pattern;
  const regex = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return (name) => regex.test(name);
}

/**
 * The catalog as a client of these toolsets sees it (their union). No selection: the default
 * toolset when the manifest names one, else the whole catalog. A toolset the catalog no longer has
 * (a reload removed it) adds nothing.
 */
export function catalogView(catalog: Catalog, selection: readonly string[] | undefined): Catalog {
  const names = selection ?? (catalog.defaultToolset === undefined ? undefined : [catalog.defaultToolset]);
  if (names === undefined) return catalog;
  const key = names.join('\n');
  let views = VIEWS.get(catalog);
  const cached = views?.get(key);
  if (cached !== undefined) return cached;
  const members = names.map((name) => catalog.toolsets?.get(name)).filter((m) => m !== undefined);
  const has = (pick: (m: ToolsetMembers) => ReadonlySet<string | number>, key: string | number) =>
    members.some((m) => pick(m).has(key));
  // Each entry is served under the policies of the first selected toolset that holds it (policy.ts).
  const bound = names.filter((name) => catalog.toolsets?.has(name));
  // Entry limits are keyed by the entry served: one rebound to a toolset's policies keeps its own.
  const limits = catalog.entryLimits;
  const viewLimits = limits === undefined || catalog.policies === undefined ? undefined : new Map(limits);
  const within = <T extends object>(
    pick: (m: ToolsetMembers) => ReadonlySet<string>,
    key: string,
    entry: T,
  ): T => {
    if (catalog.policies === undefined) return entry;
    const holder = bound.find((name) => {
      const m = catalog.toolsets?.get(name);
      return m !== undefined && pick(m).has(key);
    });
    if (holder === undefined) return entry;
    const rebound = inToolset(entry as never, holder, catalog) as T;
    const own = limits?.get(entry as never);
    if (own !== undefined && rebound !== entry) viewLimits?.set(rebound as never, own);
    return rebound;
  };
  const view: Catalog = {
    ...catalog,
    tools: new Map(
      [...catalog.tools]
        .filter(([name]) => has((m) => m.tools, name))
        .map(([name, tool]) => [name, within((m) => m.tools, name, tool)]),
    ),
    resources: new Map(
      [...catalog.resources]
        .filter(([uri]) => has((m) => m.resources, uri))
        .map(([uri, resource]) => [uri, within((m) => m.resources, uri, resource)]),
    ),
    templates: catalog.templates
      .filter((t: CatalogTemplate) => has((m) => m.templates, t.descriptor.uriTemplate))
      .map((t) => within((m) => m.templates, t.descriptor.uriTemplate, t)),
    prompts: new Map(
      [...catalog.prompts]
        .filter(([name]) => has((m) => m.prompts, name))
        .map(([name, prompt]) => [name, within((m) => m.prompts, name, prompt)]),
    ),
    skills: new Map([...catalog.skills].filter(([name]) => has((m) => m.skills, name))),
    ...viewLists(catalog, (i) => has((m) => m.lists, i)),
    ...(viewLimits !== undefined && { entryLimits: viewLimits }),
    // The view is not the catalog's owner: disposing it is the catalog's own business.
    dispose: () => Promise.resolve(),
  };
  views ??= new Map();
  views.set(key, view);
  VIEWS.set(catalog, views);
  return view;
}

/**
 * Why a selection (`--toolset`, repeatable) cannot be served from this catalog: the first name it
 * has no toolset for, with the toolsets it has; undefined when every name is known.
 */
export function unknownToolset(catalog: Catalog, names: readonly string[]): Problem | undefined {
  const known = [...(catalog.toolsets?.keys() ?? [])];
  const missing = names.find((name) => !catalog.toolsets?.has(name));
  return missing === undefined
    ? undefined
    : problems.TOOLSET_UNKNOWN(missing, known, suggest(missing, known));
}

/** Whether either catalog has toolsets: then a client's view may change when the whole does not. */
export function servesToolsets(before: Catalog, after: Catalog): boolean {
  return (
    before.toolsets !== undefined ||
    after.toolsets !== undefined ||
    before.defaultToolset !== undefined ||
    after.defaultToolset !== undefined
  );
}

/**
 * What changed for each view: given a reload's `categories` (changed in the catalog as a whole)
 * and its two catalogs, a function from a selection of toolsets to the categories that changed in
 * that view, each view compared once. Without toolsets (or without the catalogs) every view is the
 * whole catalog. Used by the hub (this replica's clients) and by the fan-out to the 2025 sessions
 * of every replica, so a client hears of a change the same way wherever its session lives.
 */
export function changesByView(
  categories: ReadonlySet<ListCategory>,
  change: { readonly before: Catalog; readonly after: Catalog } | undefined,
): (selection: readonly string[] | undefined) => ReadonlySet<ListCategory> {
  if (change === undefined || !servesToolsets(change.before, change.after)) return () => categories;
  const seen = new Map<string, ReadonlySet<ListCategory>>();
  return (selection) => {
    const key = selection?.join('\n') ?? '';
    let found = seen.get(key);
    if (found === undefined) {
      const diff = diffCatalogs(catalogView(change.before, selection), catalogView(change.after, selection));
      found = new Set([...diff.keys()].filter((c) => categories.has(c)));
      seen.set(key, found);
    }
    return found;
  };
}

/** The toolsets' required scopes, for an HTTP endpoint's requests. */
export function toolsetScopes(catalog: Catalog, selection: readonly string[] | undefined): readonly string[] {
  const names = selection ?? (catalog.defaultToolset === undefined ? [] : [catalog.defaultToolset]);
  return [...new Set(names.flatMap((name) => catalog.toolsets?.get(name)?.scopes ?? []))];
}

const VIEWS = new WeakMap<Catalog, Map<string, Catalog>>();

function viewLists(catalog: Catalog, keep: (index: number) => boolean): Pick<Catalog, 'resourceLists'> {
  const lists = catalog.resourceLists?.filter((_list, i) => keep(i));
  return { resourceLists: lists !== undefined && lists.length > 0 ? lists : undefined };
}
