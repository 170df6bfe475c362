/**
 * MCP Apps views (docs/apps.md): a tool's `ui:` compiled with the tool. A view is a `ui://` resource
 * (`text/html;profile=mcp-app`) that the catalog gains beside the declared ones, and the tool names it
 * in `_meta.ui.resourceUri` (plus the flat key older hosts read, as ext-apps' `registerAppTool`
 * writes it). The protocol side (protocol/apps.ts) shows that `_meta` and shortens the model's text
 * only for a client that declared the `io.modelcontextprotocol/ui` extension.
 *
 * A built-in view (`table`, `card`, `chart`) is one bundled page (web/views/, built into
 * dist/views/view.html by scripts/bundle-views.mjs) with the tool's settings written into it as
 * JSON; the rows arrive as the tool's structuredContent. An author's own page (`html:`) is read at
 * compile time and watched: an edit reloads the catalog and tells the resource's subscribers.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Problem, problems } from '../errors.js';
import type { UiField, ViewColumn, ViewName } from '../kinds/contract/fields.js';
import type { EntryPath, KindToolView } from '../kinds/contract/kinds.js';
import { BUILD_ROOT } from '../util/build-root.js';
import { isObject } from '../util/is-object.js';
import { nodeCrypto } from '../util/lazy-node.js';
import { suggest } from '../util/suggest.js';
import type { CatalogResource, JsonSchema, ResourceContents, ToolView } from './types.js';

/** The extension a client declares in its capabilities to be shown views. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** The MIME type of a view's HTML. */
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';
/** The flat `_meta` key of the view's URI that hosts before `_meta.ui` read. */
export const LEGACY_URI_KEY = 'ui/resourceUri';
/** Where the built page takes the tool's settings (scripts/bundle-views.mjs writes it). */
export const CONFIG_MARKER = '<!--mcp-run:view-config-->';
/** Rows the model reads when the host shows the rest. */
export const COMPACT_ROWS = 5;
/** An author's HTML file larger than this is refused: a view is one page, not a site. */
const MAX_HTML_BYTES = 5 * 1024 * 1024;

export interface CompiledView {
  readonly view: ToolView;
  /** The tool descriptor's `_meta`. */
  readonly meta: Readonly<Record<string, unknown>>;
  /** The `ui://` resource, absent for an app-only tool with no view of its own. */
  readonly resource?: CatalogResource;
  /** The author's HTML file, absolute, watched for edits. */
  readonly file?: string;
}

type UiSettings = Exclude<UiField, ViewName>;

/** The `ui://` URI of a tool's view. */
export function viewUri(tool: string): string {
  return `ui://${tool}/view.html`;
}

/**
 * The source a `ui://<prefix>~<source>/…` URI belongs to: the form an upstream's page takes under
 * `expose.tools.prefix` (kinds/mcp/views.ts). `~` is in no manifest name, so only that source's
 * pages may take it; undefined for a URI of another form.
 */
export function viewUriSource(uri: string): string | undefined {
  if (!uri.startsWith('ui://')) return undefined;
  const end = uri.indexOf('/', 5);
  const authority = uri.slice(5, end === -1 ? undefined : end);
  const tilde = authority.lastIndexOf('~');
  return tilde === -1 ? undefined : authority.slice(tilde + 1);
}

/** Compiles a tool's `ui:`; reports what is wrong and returns undefined then. */
export function compileView(
  tool: string,
  title: string | undefined,
  field: UiField,
  baseDir: string,
  report: (path: EntryPath, problem: Problem) => void,
): CompiledView | undefined {
  const ui: UiSettings = typeof field === 'string' ? { view: field } : field;
  const at: EntryPath = ['tools', tool, 'ui'];
  if (ui.view !== undefined && ui.html !== undefined) {
    report(at, problems.MANIFEST_INVALID_VALUE('either `view:` or `html:`, not both'));
    return undefined;
  }
  if (ui.view === 'chart-vega' && ui.spec === undefined) {
    report(
      [...at, 'view'],
      problems.MANIFEST_INVALID_VALUE(
        'a chart-vega view has its Vega-Lite `spec`',
        'e.g. `spec: { mark: bar, encoding: {…} }`',
      ),
    );
    return undefined;
  }
  if (ui.view === 'chart' && (ui.x === undefined || ui.y === undefined)) {
    report(
      [...at, 'view'],
      problems.MANIFEST_INVALID_VALUE('a chart names its `x` and `y` fields', 'e.g. `x: month, y: total`'),
    );
    return undefined;
  }
  const appOnly = ui.visibility !== undefined && !ui.visibility.includes('model');
  const label = ui.view === 'chart-vega' ? 'chart' : (ui.view ?? (ui.html !== undefined ? 'view' : ''));
  const view: ToolView = {
    appOnly,
    // A card is one record: its full text is already short.
    compact: label !== '' && label !== 'card' && ui.modelText !== 'full',
    ...(ui.rows !== undefined && { rows: ui.rows }),
    label,
  };
  const visibility = ui.visibility === undefined ? {} : { visibility: ui.visibility };
  if (label === '') return { view, meta: { ui: visibility } };
  const uri = viewUri(tool);
  const meta = { ui: { resourceUri: uri, ...visibility }, [LEGACY_URI_KEY]: uri };
  const resourceMeta = resourceUiMeta(ui);
  const descriptor = {
    uri,
    name: `${tool}-view`,
    title: `${title ?? tool} (view)`,
    description: `The ${label} MCP Apps view of the ${tool} tool's result.`,
    mimeType: VIEW_MIME_TYPE,
    ...(resourceMeta !== undefined && { _meta: { ui: resourceMeta } }),
  };
  if (ui.html !== undefined) {
    const file = resolve(baseDir, ui.html);
    const html = readAuthorHtml(file, [...at, 'html'], report);
    if (html === undefined) return undefined;
    return { view, meta, resource: staticView(descriptor, () => html, digest(html)), file };
  }
  const settings = JSON.stringify(viewSettings(ui, title ?? tool));
  const page = ui.view === 'chart-vega' ? 'chart-vega.html' : 'view.html';
  return {
    view,
    meta,
    resource: staticView(descriptor, () => builtinPage(page, settings), digest(settings)),
  };
}

/**
 * A view a kind brought with its tool (CompiledTool.view: an upstream MCP tool's page), named in the
 * tool's `_meta` as a manifest's view is. Its text is the upstream's, so the model's stays whole.
 */
export function kindView(brought: KindToolView): CompiledView {
  const visibility = brought.visibility === undefined ? {} : { visibility: brought.visibility };
  const appOnly = brought.visibility !== undefined && !brought.visibility.includes('model');
  if (brought.resource === undefined)
    return { view: { appOnly, compact: false, label: '' }, meta: { ui: visibility } };
  const uri = brought.resource.descriptor.uri;
  return {
    view: { appOnly, compact: false, label: 'view' },
    meta: { ui: { resourceUri: uri, ...visibility }, [LEGACY_URI_KEY]: uri },
    resource: brought.resource,
  };
}

/** A resource whose content is known at compile time (its version tells subscribers of a change). */
function staticView(
  descriptor: CatalogResource['descriptor'],
  text: () => string,
  version: string,
): CatalogResource {
  const ui = descriptor._meta;
  return {
    descriptor,
    updates: true,
    version,
    read: async (): Promise<readonly ResourceContents[]> => [
      {
        uri: descriptor.uri,
        mimeType: VIEW_MIME_TYPE,
        text: text(),
        ...(ui !== undefined && { _meta: ui }),
      },
    ],
  };
}

/**
 * `_meta.ui` of the resource: what the host must grant the page. A built-in view reaches nothing
 * (no CSP domains) and asks only to write the clipboard (the table's copy as CSV).
 */
function resourceUiMeta(ui: UiSettings): Record<string, unknown> | undefined {
  const builtin = ui.html === undefined;
  const permissions = ui.permissions ?? (builtin && ui.view === 'table' ? ['clipboardWrite'] : []);
  const prefersBorder = ui.prefersBorder ?? (builtin ? true : undefined);
  const meta: Record<string, unknown> = {
    ...(ui.csp !== undefined && { csp: ui.csp }),
    ...(permissions.length > 0 && { permissions: Object.fromEntries(permissions.map((p) => [p, {}])) }),
    ...(ui.domain !== undefined && { domain: ui.domain }),
    ...(prefersBorder !== undefined && { prefersBorder }),
  };
  return Object.keys(meta).length > 0 ? meta : undefined;
}

/** What the built-in page reads of the manifest: the view and its settings, nothing else. */
function viewSettings(ui: UiSettings, title: string): Record<string, unknown> {
  const columns = (given: Readonly<Record<string, ViewColumn>> | readonly string[] | undefined) =>
    given === undefined
      ? undefined
      : Array.isArray(given)
        ? given.map((key: string) => ({ key }))
        : Object.entries(given as Record<string, ViewColumn>).map(([key, column]) =>
            typeof column === 'string' ? { key, label: column } : { key, ...column },
          );
  const settings = {
    view: ui.view,
    title: ui.title ?? title,
    rows: ui.rows,
    columns: columns(ui.view === 'card' ? ui.fields : ui.columns),
    pageSize: ui.pageSize,
    actions: ui.actions,
    spec: ui.spec,
    chart:
      ui.view === 'chart'
        ? { type: ui.type ?? 'bar', x: ui.x, y: ui.y, series: ui.series, sort: ui.sort }
        : undefined,
  };
  return JSON.parse(JSON.stringify(settings)) as Record<string, unknown>;
}

const templates = new Map<string, string>();

/** The built page with the tool's settings written in; JSON with `<` escaped cannot end the script. */
function builtinPage(name: string, settings: string): string {
  let template = templates.get(name);
  if (template === undefined) {
    template = readBuiltTemplate(name);
    templates.set(name, template);
  }
  const at = template.indexOf(CONFIG_MARKER);
  const script = `<script type="application/json" id="mcp-run-view-config">${settings.replace(/</g, '\\u003c')}</script>`;
  return template.slice(0, at) + script + template.slice(at + CONFIG_MARKER.length);
}

function readBuiltTemplate(name: string): string {
  const path = fileURLToPath(new URL(`../dist/views/${name}`, BUILD_ROOT));
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new Error(`the built-in views are not built (${path}): run npm run build`);
  }
  if (!text.includes(CONFIG_MARKER)) throw new Error(`${path} has no settings marker: run npm run build`);
  return text;
}

function readAuthorHtml(
  file: string,
  at: EntryPath,
  report: (path: EntryPath, problem: Problem) => void,
): string | undefined {
  try {
    if (statSync(file).size > MAX_HTML_BYTES) {
      report(at, problems.MANIFEST_INVALID_VALUE(`an HTML file of at most ${MAX_HTML_BYTES} bytes`));
      return undefined;
    }
    return readFileSync(file, 'utf8');
  } catch {
    report(at, problems.PATH_NOT_FOUND(file));
    return undefined;
  }
}

function digest(text: string): string {
  return nodeCrypto().createHash('sha256').update(text).digest('base64url').slice(0, 16);
}

/** A view's actions must name tools of the catalog (they are called through the host like any call). */
export function checkActions(
  tool: string,
  field: UiField,
  tools: ReadonlySet<string>,
  report: (path: EntryPath, problem: Problem) => void,
): void {
  if (typeof field === 'string') return;
  (field.actions ?? []).forEach((action, i) => {
    if (!tools.has(action.tool))
      report(
        ['tools', tool, 'ui', 'actions', i, 'tool'],
        problems.MANIFEST_INVALID_VALUE(`the name of a tool of this manifest, not "${action.tool}"`),
      );
  });
}

/**
 * Every field a view names (columns, card fields, chart axes and series, row actions' `{{field}}`)
 * must be a field of the tool's rows where the output is known: a declared outputSchema, or the one
 * a kind derived from an open source (a query's columns). A field that is not is an error at its own
 * key. Where the output is not known (offline, a free query) the fields are left to run time, with a
 * warning that says so.
 */
export function checkViewFields(
  tool: string,
  field: UiField,
  output: JsonSchema | undefined,
  report: (path: EntryPath, problem: Problem) => void,
  warnAt: (path: EntryPath, message: string) => void,
): void {
  if (typeof field === 'string' || field.html !== undefined) return;
  const named = namedFields(field).map(([name, at]) => [name, ['tools', tool, 'ui', ...at]] as const);
  if (named.length === 0) return;
  const known = rowProperties(output, field.rows);
  if (known === undefined) {
    warnAt(
      ['tools', tool, 'ui'],
      `the fields this view names (${named.map(([name]) => name).join(', ')}) are checked when the tool runs: its output is not known here (declare an outputSchema, or validate with its source open)`,
    );
    return;
  }
  for (const [name, at] of named) {
    if (known.includes(name)) continue;
    const near = suggest(name, known);
    report(
      at,
      problems.MANIFEST_INVALID_VALUE(
        `a field of the tool's rows (${known.join(', ')}), not "${name}"`,
        near === undefined ? undefined : `did you mean "${near}"?`,
      ),
    );
  }
}

/** The fields a view names, each with where it is named (below `ui`). */
function namedFields(ui: UiSettings): [string, (string | number)[]][] {
  const named: [string, (string | number)[]][] = [];
  const listed = ui.view === 'card' ? ui.fields : ui.columns;
  const key = ui.view === 'card' ? 'fields' : 'columns';
  if (Array.isArray(listed))
    for (const [i, name] of (listed as readonly string[]).entries()) named.push([name, [key, i]]);
  else for (const name of Object.keys(listed ?? {})) named.push([name, [key, name]]);
  if (ui.view === 'chart-vega') {
    const encoding = isObject(ui.spec?.encoding) ? ui.spec.encoding : {};
    for (const [channel, definition] of Object.entries(encoding))
      if (isObject(definition) && typeof definition.field === 'string')
        named.push([definition.field, ['spec', 'encoding', channel, 'field']]);
  }
  if (ui.view === 'chart') {
    if (ui.x !== undefined) named.push([ui.x, ['x']]);
    if (typeof ui.y === 'string') named.push([ui.y, ['y']]);
    else for (const [i, name] of (ui.y ?? []).entries()) named.push([name, ['y', i]]);
    if (ui.series !== undefined) named.push([ui.series, ['series']]);
  }
  (ui.actions ?? []).forEach((action, i) => {
    for (const [argument, value] of Object.entries(action.arguments ?? {})) {
      const field = typeof value === 'string' ? /^\{\{\s*([^{}\s]+)\s*\}\}$/.exec(value)?.[1] : undefined;
      if (field !== undefined) named.push([field, ['actions', i, 'arguments', argument]]);
    }
  });
  return named;
}

/** The field names of one row as an output schema tells them, where it does (as rowsOf finds the rows). */
function rowProperties(output: JsonSchema | undefined, rowsKey: string | undefined): string[] | undefined {
  const properties = (schema: unknown): Record<string, unknown> | undefined => {
    const found = isObject(schema) ? schema.properties : undefined;
    return isObject(found) ? found : undefined;
  };
  const top = properties(output);
  if (top === undefined) return undefined;
  const itemsOf = (value: unknown) =>
    isObject(value) && value.type === 'array' ? properties(value.items) : undefined;
  if (rowsKey !== undefined) {
    const row = itemsOf(top[rowsKey]);
    return row === undefined ? undefined : Object.keys(row);
  }
  const row =
    itemsOf(top.rows) ??
    Object.values(top)
      .map(itemsOf)
      .find((found) => found !== undefined);
  return Object.keys(row ?? top);
}

/** The rows of a structured result: the named key, else `rows`, else the first list of objects. */
export function rowsOf(structured: unknown, key: string | undefined): readonly unknown[] | undefined {
  if (!isObject(structured)) return undefined;
  if (key !== undefined) return Array.isArray(structured[key]) ? structured[key] : undefined;
  if (Array.isArray(structured.rows)) return structured.rows;
  for (const value of Object.values(structured))
    if (Array.isArray(value) && value.length > 0 && value.every(isObject)) return value;
  return undefined;
}

/**
 * The model's text when the host shows the view: how many rows, which columns, the first few as
 * JSON lines, and that more exist. The rows themselves stay whole in structuredContent for the view.
 * A result without rows, or an error, keeps its text.
 */
export function compactText(view: ToolView, structured: unknown): string | undefined {
  const rows = rowsOf(structured, view.rows);
  if (rows === undefined) return undefined;
  const columns = [...new Set(rows.slice(0, 50).flatMap((row) => (isObject(row) ? Object.keys(row) : [])))];
  const shown = rows.slice(0, COMPACT_ROWS).map((row) => JSON.stringify(row));
  const more = isObject(structured) && (structured.truncated === true || structured.nextCursor !== undefined);
  const lines = [
    `${rows.length} row${rows.length === 1 ? '' : 's'}${more ? ' (more exist)' : ''}, shown to the user in a ${view.label}.`,
    `Columns: ${columns.join(', ')}.`,
    ...(shown.length > 0 ? [`First ${shown.length}:`, ...shown] : []),
  ];
  if (isObject(structured) && typeof structured.nextCursor === 'string')
    lines.push(`Next page cursor: "${structured.nextCursor}".`);
  return lines.join('\n');
}
