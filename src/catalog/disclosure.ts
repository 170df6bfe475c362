/**
 * Disclosure for big catalogs: `catalog: { mode: search }` on the server or a toolset. A model pays
 * for tools/list on every turn, and an imported API can list more tokens than its whole window; in
 * search mode the view lists four meta-tools instead, plus the tools the author pinned:
 *
 * - `search_tools` ranks the view's tools for a request in plain words (tool-search.ts);
 * - `browse_tools` lists the groups (a tool's `group:`, else its HTTP path's first segment or its
 *   source), or one group's tools;
 * - `describe_tool` gives one tool's descriptor as tools/list would;
 * - `call_tool` calls one by name. The core resolves it to the entry itself (`CatalogTool.resolve`,
 *   protocol/methods/tools.ts) before anything else, so the call is the direct call: the same
 *   wrapper (validation, claims, policies), steps, task mode; a tool outside the view is unknown.
 *
 * A tool of the view stays callable by its own name (`Catalog.callable`): it is not listed, not
 * forbidden (hosts let a model call only listed tools; `mcp-run call` and clients that know the name
 * call it directly).
 *
 * Like a toolset, the mode is a view of the same catalog object, made once per view and cached, and
 * the search index is per view object too: a reload swaps the whole, the hub compares the views
 * under the mode (so listeners still hear when the tools change), and search, browse and describe
 * answer from the new catalog at once.
 */
import { problems } from '../errors.js';
import type { EntryPath } from '../kinds/contract/kinds.js';
import type { CatalogSection } from '../manifest/types.js';
import { suggest } from '../util/suggest.js';
import { toolIndex } from './tool-search.js';
import { catalogView, nameMatcher } from './toolsets.js';
import {
  type Catalog,
  type CatalogTool,
  type Disclosure,
  InvalidRequestParams,
  type JsonSchema,
  type ToolCallContext,
  type ToolPlace,
  type ToolResult,
} from './types.js';

/** The meta-tools' names: reserved in search mode (a pinned tool may not take one). */
export const META_TOOLS = {
  search: 'search_tools',
  browse: 'browse_tools',
  describe: 'describe_tool',
  call: 'call_tool',
} as const;

const META_NAMES: ReadonlySet<string> = new Set(Object.values(META_TOOLS));
/** search_tools answers this many tools unless asked for another number. */
const DEFAULT_HITS = 10;
/** browse_tools lists at most this many tools of a group; search narrows a bigger one. */
const BROWSE_LIMIT = 100;
/** A tool's one line in search and browse answers. */
const SUMMARY_CHARS = 100;
/**
 * The longest tool name describe_tool and call_tool take: twice what MCP clients show, far above
 * any real name, so a longer one is refused before it is looked up, suggested or logged.
 */
const MAX_NAME = 256;

/** `catalog:` as compiled: the pins resolved against the manifest's tools (reported when unknown). */
export function resolveDisclosure(
  section: CatalogSection,
  tools: readonly string[],
  at: EntryPath,
  report: (path: EntryPath, problem: ReturnType<typeof problems.MANIFEST_INVALID_VALUE>) => void,
): Disclosure {
  const pinned = new Set<string>();
  (section.pin ?? []).forEach((pattern, i) => {
    const found = tools.filter(nameMatcher(pattern));
    if (found.length === 0 && !pattern.includes('*')) {
      const hint = suggest(pattern, tools);
      report(
        [...at, 'pin', i],
        problems.MANIFEST_INVALID_VALUE(
          `a pinned tool named ${JSON.stringify(pattern)}, which is not one of the manifest's tools${hint ? ` (did you mean ${JSON.stringify(hint)}?)` : ''}`,
          'pin names tools of the manifest; a name with * matches many',
        ),
      );
    }
    for (const name of found) {
      if (META_NAMES.has(name))
        report(
          [...at, 'pin', i],
          problems.MANIFEST_INVALID_VALUE(
            `a pinned tool that is not named ${JSON.stringify(name)}: search mode lists its own tool of that name`,
            'rename the tool, or leave it unpinned: call_tool still reaches it',
          ),
        );
      else pinned.add(name);
    }
  });
  return { mode: section.mode, pinned };
}

/**
 * Where each tool sits for browse and search: its `group:`, else an http tool's path's first literal
 * segment, else its source, else `other`.
 */
export function toolPlace(config: Readonly<Record<string, unknown>>): ToolPlace {
  const path = typeof config.path === 'string' ? config.path : undefined;
  const segment = path?.split('/').find((part) => part !== '' && !part.includes('{') && !/^v\d+$/.test(part));
  const group =
    typeof config.group === 'string'
      ? config.group
      : (segment ?? (typeof config.source === 'string' ? config.source : 'other'));
  return { group, ...(path !== undefined && { path }) };
}

/**
 * How the view of this selection discloses its tools: the first toolset that says, else the server;
 * undefined when the manifest does not say (in full).
 */
export function disclosureOf(
  catalog: Catalog,
  selection: readonly string[] | undefined,
): Disclosure | undefined {
  const names = selection ?? (catalog.defaultToolset === undefined ? [] : [catalog.defaultToolset]);
  for (const name of names) {
    const own = catalog.toolsets?.get(name)?.disclosure;
    if (own !== undefined) return own;
  }
  return catalog.disclosure;
}

const SERVED = new WeakMap<Catalog, Catalog>();

/**
 * The catalog as a client of these toolsets is served it: their view (toolsets.ts), and in search
 * mode that view with the meta-tools and the pinned tools as its tools.
 */
export function servedView(catalog: Catalog, selection: readonly string[] | undefined): Catalog {
  const view = catalogView(catalog, selection);
  const disclosure = disclosureOf(catalog, selection);
  if (disclosure?.mode !== 'search') return view;
  let served = SERVED.get(view);
  if (served === undefined) {
    const tools = new Map<string, CatalogTool>(metaTools(view).map((tool) => [tool.descriptor.name, tool]));
    for (const [name, tool] of view.tools) if (disclosure.pinned.has(name)) tools.set(name, tool);
    served = { ...view, tools, callable: view.tools, dispose: () => Promise.resolve() };
    SERVED.set(view, served);
  }
  return served;
}

const stringArg = (description: string): JsonSchema => ({ type: 'string', description });
const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

/**
 * Search, browse and describe as the server governs them (Catalog.governMeta: its policies and
 * limits); call_tool stays plain, as the core resolves it to its target, which is governed and
 * counted itself.
 */
function metaTools(view: Catalog): CatalogTool[] {
  const governed = (tool: CatalogTool): CatalogTool =>
    view.governMeta === undefined || tool.resolve !== undefined
      ? tool
      : view.governMeta(tool.descriptor, tool.call);
  return plainMetaTools(view).map(governed);
}

function plainMetaTools(view: Catalog): CatalogTool[] {
  return [
    {
      descriptor: {
        name: META_TOOLS.search,
        description:
          "Find this server's tools for a task, in plain words. Answers names with one-line summaries, best first.",
        inputSchema: {
          type: 'object',
          properties: {
            query: stringArg('What you want to do'),
            limit: { type: 'integer', minimum: 1, maximum: 50, description: `Default ${DEFAULT_HITS}` },
          },
          required: ['query'],
        },
        annotations: READ_ONLY,
      },
      call: (args, ctx) => searchTools(view, args, ctx),
    },
    {
      descriptor: {
        name: META_TOOLS.browse,
        description: 'List the tool groups, or the tools of one group.',
        inputSchema: { type: 'object', properties: { group: stringArg('A group from the list') } },
        annotations: READ_ONLY,
      },
      call: (args, ctx) => Promise.resolve(browseTools(view, args, ctx)),
    },
    {
      descriptor: {
        name: META_TOOLS.describe,
        description: "A tool's full description and input schema, to call it with call_tool.",
        inputSchema: { type: 'object', properties: { name: stringArg('Tool name') }, required: ['name'] },
        annotations: READ_ONLY,
      },
      call: (args, ctx) => Promise.resolve(describeTool(view, args, ctx)),
    },
    {
      descriptor: {
        name: META_TOOLS.call,
        description: 'Call a tool by name.',
        inputSchema: {
          type: 'object',
          properties: {
            name: stringArg('Tool name'),
            arguments: { type: 'object', description: 'Its arguments, as describe_tool shows' },
          },
          required: ['name'],
        },
      },
      resolve: (args, sees) => resolveCall(view, args, sees),
      call(args, ctx) {
        const target = resolveCall(view, args, ctx.sees);
        return target.tool.call(target.args, ctx);
      },
    },
  ];
}

/** The entry `call_tool` names in this view, and its arguments; unknown as a direct call would be. */
function resolveCall(
  view: Catalog,
  args: Readonly<Record<string, unknown>>,
  sees: ((tool: string) => boolean) | undefined,
): { readonly tool: CatalogTool; readonly args: Record<string, unknown> } {
  const { name, arguments: given } = args;
  if (typeof name !== 'string')
    throw new InvalidRequestParams(`${META_TOOLS.call} needs "name", a tool name`);
  if (name.length > MAX_NAME) throw new InvalidRequestParams(nameTooLong(META_TOOLS.call));
  if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given)))
    throw new InvalidRequestParams(`${META_TOOLS.call} "arguments" must be an object`);
  const tool = view.tools.get(name);
  if (tool === undefined || (sees !== undefined && !sees(name)))
    throw new InvalidRequestParams(`Unknown tool: ${name}`);
  return { tool, args: (given as Record<string, unknown> | undefined) ?? {} };
}

async function searchTools(
  view: Catalog,
  args: Readonly<Record<string, unknown>>,
  ctx: ToolCallContext,
): Promise<ToolResult> {
  const { query, limit } = args;
  if (typeof query !== 'string' || query.trim() === '') return failed('search_tools needs a "query"');
  const count =
    typeof limit === 'number' && Number.isInteger(limit) ? Math.min(50, Math.max(1, limit)) : DEFAULT_HITS;
  const hits = (await toolIndex(view)).search(query, count, ctx.sees);
  if (hits.length === 0) return text('No tool matches. Try other words, or browse_tools.');
  return text(hits.map((hit) => toolLine(view, hit.name)).join('\n'));
}

function browseTools(
  view: Catalog,
  args: Readonly<Record<string, unknown>>,
  ctx: ToolCallContext,
): ToolResult {
  const groups = groupsOf(view, ctx.sees);
  const { group } = args;
  if (group === undefined || group === '') {
    const lines = [...groups].map(([name, tools]) => `${name} (${tools.length})`);
    return text(lines.length > 0 ? `Groups (tools):\n${lines.join('\n')}` : 'No tools.');
  }
  if (typeof group !== 'string') return failed('browse_tools "group" must be a string');
  const members = groups.get(group);
  if (members === undefined) {
    const hint = suggest(group, groups.keys());
    return failed(
      `No group ${JSON.stringify(group)}${hint ? `; did you mean ${JSON.stringify(hint)}?` : ''}`,
    );
  }
  const lines = members.slice(0, BROWSE_LIMIT).map((name) => toolLine(view, name));
  if (members.length > BROWSE_LIMIT)
    lines.push(`… ${members.length - BROWSE_LIMIT} more: narrow with search_tools`);
  return text(lines.join('\n'));
}

function describeTool(
  view: Catalog,
  args: Readonly<Record<string, unknown>>,
  ctx: ToolCallContext,
): ToolResult {
  const { name } = args;
  if (typeof name !== 'string') return failed('describe_tool needs "name", a tool name');
  if (name.length > MAX_NAME) return failed(nameTooLong(META_TOOLS.describe));
  const tool = view.tools.get(name);
  if (tool === undefined || (ctx.sees !== undefined && !ctx.sees(name))) {
    // Only names this caller sees: a hint must not reveal a tool its scopes or policies hide.
    const seen = [...view.tools.keys()].filter((known) => ctx.sees === undefined || ctx.sees(known));
    const hint = suggest(name, seen);
    return failed(`Unknown tool: ${name}${hint ? `; did you mean ${JSON.stringify(hint)}?` : ''}`);
  }
  return text(JSON.stringify(tool.descriptor));
}

const nameTooLong = (meta: string): string =>
  `${meta} "name" is longer than ${MAX_NAME} characters: no tool has such a name`;

/** `name: summary [group]`, one line whatever the description holds. */
function toolLine(view: Catalog, name: string): string {
  const { title, description } = view.tools.get(name)?.descriptor ?? {};
  const said = (title ?? description ?? '').replace(/\s+/g, ' ').trim();
  const summary = said.length > SUMMARY_CHARS ? `${said.slice(0, SUMMARY_CHARS - 1)}…` : said;
  const group = view.groups?.get(name)?.group;
  return `${name}: ${summary}${group === undefined ? '' : ` [${group}]`}`;
}

const GROUPS = new WeakMap<Catalog, Map<string, string[]>>();

/** The view's groups in first-seen order, each with its tools; only those the caller sees. */
function groupsOf(view: Catalog, sees: ((tool: string) => boolean) | undefined): Map<string, string[]> {
  let all = GROUPS.get(view);
  if (all === undefined) {
    all = new Map();
    for (const name of view.tools.keys()) {
      const group = view.groups?.get(name)?.group ?? 'other';
      const members = all.get(group) ?? [];
      members.push(name);
      all.set(group, members);
    }
    GROUPS.set(view, all);
  }
  if (sees === undefined) return all;
  const seen = new Map<string, string[]>();
  for (const [group, names] of all) {
    const visible = names.filter(sees);
    if (visible.length > 0) seen.set(group, visible);
  }
  return seen;
}

const text = (body: string): ToolResult => ({ content: [{ type: 'text', text: body }] });
const failed = (body: string): ToolResult => ({ content: [{ type: 'text', text: body }], isError: true });
