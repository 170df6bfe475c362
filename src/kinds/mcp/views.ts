/**
 * MCP Apps views of an upstream MCP server (docs/upstream-mcp.md, "Views"): a tool whose
 * `_meta.ui.resourceUri` (or the older flat `_meta["ui/resourceUri"]`) names a `ui://` page keeps its
 * view through mcp-run. The catalog serves the page as the tool's view (CompiledTool.view), read
 * through to the upstream at every read; its `_meta.ui` (csp, permissions, domain, prefersBorder)
 * is passed on after a check of its shape, bounded, every other key dropped. What the upstream sends
 * is data: nothing here interprets it beyond its type.
 *
 * Under `expose.tools.prefix` a view's URI is rewritten: `ui://<rest>` is served as
 * `ui://<prefix>~<source>/<rest>`. `~` is in no manifest name, so none of mcp-run's own views
 * (`ui://<tool>/view.html`) takes that form, and the source's name, unique in a manifest, keeps two
 * upstreams' views apart. Each served view reads its upstream URI; the upstream's own URI is not
 * served then. An unprefixed source's URIs are served as listed, so the catalog (compile.ts) leaves
 * out an entry of another source's form `ui://<prefix>~<other>/…`: that form is the other's alone.
 */
import { isObject } from '../../util/is-object.js';
import type { McpCapability } from '../contract/kinds.js';
import { type CatalogResource, type ResourceContents, ResourceNotFound } from '../contract/types.js';
import { UpstreamError } from './client.js';

/** The MIME type of an MCP Apps page (ext-apps' RESOURCE_MIME_TYPE). */
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';
/** The flat `_meta` key of a tool's view that hosts before `_meta.ui` read (deprecated by the spec). */
const LEGACY_URI_KEY = 'ui/resourceUri';
/** A view's URI longer than this is no view (the catalog holds it for its life). */
const MAX_URI_CHARS = 2048;
/** Origins a CSP list keeps, and the length of each. */
const MAX_DOMAINS = 64;
const MAX_DOMAIN_CHARS = 512;
const PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;
const CSP_LISTS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
/** No space, control character, quote, comma or semicolon: a host writing a CSP header gets one source. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters refused
const ORIGIN = /^[^\s\x00-\x1f\x7f;,'"\\]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters refused
const URI_TEXT = /^ui:\/\/[^\s\x00-\x1f\x7f]+$/;
/** -32002 (2025) and -32602 (2026) are how an MCP server says a resource does not exist. */
const NOT_FOUND = new Set([-32002, -32602]);

/**
 * The rule that maps the upstream's view URIs to the ones served: `ui://<prefix>~<source>/<rest>`
 * under a prefix, else the same. Undefined for a URI that is no `ui://` page (or too long, or with
 * spaces or control characters).
 */
export function viewUriRule(source: string, prefix: string | undefined): (uri: string) => string | undefined {
  return (uri) => {
    if (uri.length > MAX_URI_CHARS || !URI_TEXT.test(uri)) return undefined;
    return prefix === undefined || prefix === '' ? uri : `ui://${prefix}~${source}/${uri.slice(5)}`;
  };
}

/**
 * A tool's view as its upstream listed it: the page's URI and who may call the tool (a tool only
 * views call may have no page of its own). Undefined when it names neither.
 */
export function toolViewOf(
  meta: unknown,
): { readonly uri?: string; readonly visibility?: readonly ('model' | 'app')[] } | undefined {
  if (!isObject(meta)) return undefined;
  const ui = isObject(meta.ui) ? meta.ui : {};
  const named = typeof ui.resourceUri === 'string' ? ui.resourceUri : meta[LEGACY_URI_KEY];
  const uri = typeof named === 'string' ? named : undefined;
  const given = Array.isArray(ui.visibility) ? ui.visibility : [];
  const visibility = (['model', 'app'] as const).filter((v) => given.includes(v));
  if (uri === undefined && visibility.length === 0) return undefined;
  return { ...(uri !== undefined && { uri }), ...(visibility.length > 0 && { visibility }) };
}

/**
 * `_meta` of a view (its list entry, its read content) as passed on: `{ui: …}` with only the fields
 * the spec names, each of its type, the CSP lists bounded; undefined when nothing is left.
 */
export function viewMetaOf(meta: unknown): Readonly<Record<string, unknown>> | undefined {
  const ui = isObject(meta) && isObject(meta.ui) ? meta.ui : undefined;
  if (ui === undefined) return undefined;
  const out: Record<string, unknown> = {};
  if (isObject(ui.csp)) {
    const csp: Record<string, string[]> = {};
    for (const list of CSP_LISTS) {
      const given = ui.csp[list];
      if (!Array.isArray(given)) continue;
      csp[list] = given
        .filter((o): o is string => typeof o === 'string' && o.length <= MAX_DOMAIN_CHARS && ORIGIN.test(o))
        .slice(0, MAX_DOMAINS);
    }
    out.csp = csp;
  }
  if (isObject(ui.permissions)) {
    const asked = ui.permissions;
    out.permissions = Object.fromEntries(PERMISSIONS.filter((p) => isObject(asked[p])).map((p) => [p, {}]));
  }
  if (typeof ui.domain === 'string' && ui.domain.length <= MAX_DOMAIN_CHARS && ORIGIN.test(ui.domain))
    out.domain = ui.domain;
  if (typeof ui.prefersBorder === 'boolean') out.prefersBorder = ui.prefersBorder;
  return Object.keys(out).length > 0 ? { ui: out } : undefined;
}

/**
 * The view served at `served`, read through to the upstream's `upstreamUri` at every read (never
 * cached). Named and described as the upstream listed it, when it did (the spec lets a server leave
 * its views out of `resources/list`); its contents carry the served URI.
 */
export function upstreamView(
  mcp: McpCapability,
  source: string,
  upstreamUri: string,
  served: string,
): CatalogResource {
  const listed = mcp.listing.resources.find((r) => r.uri === upstreamUri);
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const title = text(listed?.title);
  const description = text(listed?.description);
  const listedMeta = viewMetaOf(listed?._meta);
  return {
    descriptor: {
      uri: served,
      name: listed?.name ?? served,
      ...(title !== undefined && { title }),
      ...(description !== undefined && { description }),
      mimeType: text(listed?.mimeType) ?? VIEW_MIME_TYPE,
      ...(listedMeta !== undefined && { _meta: listedMeta }),
    },
    async read(signal): Promise<readonly ResourceContents[]> {
      let contents: readonly ResourceContents[];
      try {
        contents = await mcp.readResource(upstreamUri, signal);
      } catch (err) {
        if (err instanceof UpstreamError && NOT_FOUND.has(err.code)) throw new ResourceNotFound(served);
        throw new Error(`Reading ${served} from ${source} failed: ${mcp.redact((err as Error).message)}`);
      }
      // The spec has hosts read the page's `_meta.ui` from its content, the list entry's as a fallback.
      return contents.map((c) =>
        c.uri !== upstreamUri
          ? c
          : {
              ...c,
              uri: served,
              ...(c._meta === undefined && listedMeta !== undefined && { _meta: listedMeta }),
            },
      );
    },
  };
}
