/**
 * Resource `mcp`: one resource an upstream MCP server listed, served at the same URI and read
 * through the source at every read (never cached: the upstream decides what it holds). Its name,
 * title, description and type are the upstream's as listed when the source opened, unless the
 * entry declares them. A read that fails is the upstream's "not found" when it said so, else an
 * error with a sentence.
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
import { suggest } from '../../util/suggest.js';
import type { ResourceKind } from '../contract/kinds.js';
import { ResourceNotFound } from '../contract/types.js';
import { UpstreamError } from './client.js';
import { mcpResourceInfo } from './resource.info.js';

export interface McpResourceConfig {
  readonly source: string;
  readonly uri: string;
  readonly title?: string;
  readonly description?: string;
}

/** -32002 (2025) and -32602 (2026) are how an MCP server says a resource does not exist. */
const NOT_FOUND = new Set([-32002, -32602]);

export const mcpResource: ResourceKind<McpResourceConfig> = {
  ...mcpResourceInfo,
  async compile(config, ctx) {
    const mcp = ctx.source(config.source, 'mcp', ['source']);
    if (!mcp) return undefined;
    const listed = mcp.listing.resources.find((r) => r.uri === config.uri);
    if (!listed) {
      const known = mcp.listing.resources.map((r) => String(r.uri));
      ctx.error(
        ['uri'],
        problems.UPSTREAM_ENTRY_UNKNOWN(
          'resource',
          config.uri,
          config.source,
          known,
          suggest(config.uri, known),
        ),
      );
      return undefined;
    }
    const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const title = config.title ?? text(listed.title);
    const description = config.description ?? text(listed.description);
    const mimeType = text(listed.mimeType);
    return {
      resources: [
        {
          descriptor: {
            uri: config.uri,
            name: listed.name,
            ...(title !== undefined && { title }),
            ...(description !== undefined && { description }),
            ...(mimeType !== undefined && { mimeType }),
          },
          async read(signal) {
            try {
              return await mcp.readResource(config.uri, signal);
            } catch (err) {
              if (err instanceof UpstreamError && NOT_FOUND.has(err.code))
                throw new ResourceNotFound(config.uri);
              throw new Error(
                `Reading ${config.uri} from ${config.source} failed: ${mcp.redact((err as Error).message)}`,
              );
            }
          },
        },
      ],
      templates: [],
    };
  },
};
