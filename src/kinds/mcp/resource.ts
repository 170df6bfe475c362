/**
 * Resource `mcp`: one resource (`uri`) or resource template (`uriTemplate`: `{name}` and
 * `{+name}` variables) an upstream MCP server listed, served at the same URI and read
 * through the source at every read (never cached: the upstream decides what it holds). Its name,
 * title, description and type are the upstream's as listed when the source opened, unless the
 * entry declares them. A read that fails is the upstream's "not found" when it said so, else an
 * error with a sentence. A `ui://` page (an MCP Apps view) is served where the source's tools name
 * it: under `expose.tools.prefix` at its rewritten URI (views.ts). A static resource of an upstream
 * that declared `resources.subscribe` can be subscribed to (`follow`: subscribed upstream while our
 * clients are, follow.ts); a template's variables are completed by the upstream.
 *
 * @example
 * ```yaml
 * resources:
 *   readme:
 *     kind: mcp
 *     source: everything
 *     uri: demo://resource/static/document/architecture.md
 * ```
 */
import { problems } from '../../errors.js';
import { JsonRpcCode } from '../../util/jsonrpc.js';
import { suggest } from '../../util/suggest.js';
import type { McpCapability, ResourceKind } from '../contract/kinds.js';
import { ResourceNotFound } from '../contract/types.js';
import { parseUriTemplate, type UriTemplate } from '../shared/uri-template.js';
import { UpstreamError } from './client.js';
import { mcpResourceInfo } from './resource.info.js';
import { upstreamView } from './views.js';

export interface McpResourceConfig {
  readonly source: string;
  readonly uri?: string;
  readonly uriTemplate?: string;
  readonly title?: string;
  readonly description?: string;
}

/**
 * A completion asked of the upstream (`ref` in its names). An upstream that does not complete
 * (-32601) completes nothing; another failure is a sentence, redacted.
 */
export async function completeUpstream(
  mcp: McpCapability,
  source: string,
  ref: Parameters<McpCapability['complete']>[0],
  argument: string,
  value: string,
  context: Readonly<Record<string, string>>,
): Promise<readonly string[]> {
  try {
    return await mcp.complete(ref, argument, value, context);
  } catch (err) {
    if (err instanceof UpstreamError && err.code === JsonRpcCode.MethodNotFound) return [];
    throw new Error(`Completing ${argument} with ${source} failed: ${mcp.redact((err as Error).message)}`);
  }
}

/** -32002 (2025) and -32602 (2026) are how an MCP server says a resource does not exist. */
const NOT_FOUND = new Set([-32002, -32602]);

export const mcpResource: ResourceKind<McpResourceConfig> = {
  ...mcpResourceInfo,
  async compile(config, ctx) {
    if ((config.uri === undefined) === (config.uriTemplate === undefined)) {
      ctx.error(
        [],
        problems.MANIFEST_INVALID_VALUE('either `uri:` or `uriTemplate:`', 'give exactly one of them'),
      );
      return undefined;
    }
    const mcp = ctx.source(config.source, 'mcp', ['source']);
    if (!mcp) return undefined;
    if (mcp.perCaller === true) {
      ctx.error(
        ['source'],
        problems.SOURCE_TOKEN_EXCHANGE_REFUSED(
          config.source,
          "its auth is a token exchange, and only an upstream's tools are served per caller: a resource is read with no caller",
          'serve this resource from a source with its own credentials (a second `kind: mcp` source on the same url)',
        ),
      );
      return undefined;
    }
    const wanted = (config.uri ?? config.uriTemplate)!;
    const field = config.uri === undefined ? 'uriTemplate' : 'uri';
    const among = config.uri === undefined ? mcp.listing.templates : mcp.listing.resources;
    const listed = among.find((r) => r[field] === wanted);
    if (!listed) {
      const known = among.map((r) => String(r[field]));
      const what = config.uri === undefined ? 'resource template' : 'resource';
      ctx.error(
        [field],
        problems.UPSTREAM_ENTRY_UNKNOWN(what, wanted, config.source, known, suggest(wanted, known)),
      );
      return undefined;
    }
    const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const title = config.title ?? text(listed.title);
    const description = config.description ?? text(listed.description);
    const mimeType = text(listed.mimeType);
    const about = {
      name: listed.name,
      ...(title !== undefined && { title }),
      ...(description !== undefined && { description }),
      ...(mimeType !== undefined && { mimeType }),
    };
    const read = async (uri: string, signal: AbortSignal) => {
      try {
        return await mcp.readResource(uri, signal);
      } catch (err) {
        if (err instanceof UpstreamError && NOT_FOUND.has(err.code)) throw new ResourceNotFound(uri);
        throw new Error(`Reading ${uri} from ${config.source} failed: ${mcp.redact((err as Error).message)}`);
      }
    };
    // An upstream's MCP Apps page: served where its tools name it (views.ts), its `_meta.ui` passed on.
    const served = config.uri === undefined ? undefined : mcp.viewUri(config.uri);
    if (served !== undefined) {
      const view = upstreamView(mcp, config.source, config.uri!, served);
      return {
        resources: [{ ...view, descriptor: { ...view.descriptor, ...about, uri: served } }],
        templates: [],
      };
    }
    if (config.uri !== undefined) {
      const uri = config.uri;
      return {
        resources: [
          {
            descriptor: { uri, ...about },
            read: (signal) => read(uri, signal),
            // Served at the upstream's URI: an update upstream is one here, under the same URI.
            ...(mcp.subscribable && {
              updates: true,
              follow: (onUpdated: () => void) => mcp.follow(uri, onUpdated),
            }),
          },
        ],
        templates: [],
      };
    }
    let template: UriTemplate;
    try {
      template = parseUriTemplate(wanted);
    } catch (err) {
      ctx.error(['uriTemplate'], problems.URI_TEMPLATE_INVALID((err as Error).message));
      return undefined;
    }
    return {
      resources: [],
      templates: [
        {
          descriptor: { uriTemplate: wanted, ...about },
          match: (uri) => template.match(uri),
          read: (uri, _vars, signal) => read(uri, signal),
          complete: (variable, prefix, context) =>
            completeUpstream(
              mcp,
              config.source,
              { type: 'ref/resource', uri: wanted },
              variable,
              prefix,
              context,
            ),
        },
      ],
    };
  },
};
