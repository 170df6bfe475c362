/**
 * Tool `mcp`: one tool of an upstream MCP server, called through its source (`ctx.source(…, 'mcp')`).
 * The descriptor is what this entry declares; what it leaves out (description, annotations, the
 * input schema) is the upstream's as listed when the source opened, so a later change upstream
 * shows only after a reload. `pin:` arguments are taken out of the schema and always sent with
 * their manifest values; a `fromClaim` input is bound by the catalog like any tool's.
 *
 * The upstream's result is relayed as data: its content blocks (text redacted of the source's
 * credentials) and its structuredContent; `isError` stays an error result. A call that fails on
 * the way (the upstream is down, timed out, answered a JSON-RPC error) is an error result with a
 * sentence for the model.
 *
 * A tool the upstream lists with an MCP Apps view (`_meta.ui.resourceUri`, a `ui://` page) brings it
 * along (CompiledTool.view, views.ts): the catalog serves the page and names it in the tool's `_meta`.
 *
 * @example
 * ```yaml
 * tools:
 *   read_notes:
 *     kind: mcp
 *     source: fs
 *     tool: read_text_file
 *     description: Read one of the team's notes.
 *     pin: { tail: 200 }
 * ```
 */
import { problems } from '../../errors.js';
import { isObject } from '../../util/is-object.js';
import { suggest } from '../../util/suggest.js';
import { InputRequired } from '../contract/interaction.js';
import type { ToolCommon, ToolKind } from '../contract/kinds.js';
import { errorResult } from '../contract/results.js';
import type { JsonSchema, ToolAnnotations, ToolResult } from '../contract/types.js';
import type { RenderData } from '../shared/data-template.js';
import type { Pick } from '../shared/json-pick.js';
import { compileOutput } from '../shared/output-shape.js';
import { UpstreamError } from './client.js';
import { mcpToolInfo } from './tool.info.js';
import { toolViewOf, upstreamView } from './views.js';

export interface McpToolConfig extends ToolCommon {
  readonly source: string;
  readonly tool: string;
  readonly pin?: Readonly<Record<string, unknown>>;
  readonly output?: { readonly pick?: string; readonly template?: string };
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

export const mcpTool: ToolKind<McpToolConfig> = {
  ...mcpToolInfo,
  compile(config, ctx) {
    const mcp = ctx.source(config.source, 'mcp', ['source']);
    if (!mcp) return undefined;
    const upstream = mcp.listing.tools.find((t) => t.name === config.tool);
    if (!upstream) {
      const known = mcp.listing.tools.map((t) => t.name);
      ctx.error(
        ['tool'],
        problems.UPSTREAM_ENTRY_UNKNOWN(
          'tool',
          config.tool,
          config.source,
          known,
          suggest(config.tool, known),
        ),
      );
      return undefined;
    }
    const pin = config.pin ?? {};
    const pinned = Object.keys(pin);
    const schema = isObject(upstream.inputSchema) ? upstream.inputSchema : { type: 'object' };
    const properties = isObject(schema.properties) ? schema.properties : {};
    for (const name of pinned) {
      if (config.input?.[name] !== undefined)
        ctx.error(
          ['pin', name],
          problems.MANIFEST_INVALID_VALUE(`"${name}" either pinned or an input, not both`),
        );
      else if (!(name in properties) && schema.additionalProperties === false)
        ctx.error(
          ['pin', name],
          problems.MANIFEST_INVALID_VALUE(
            `an argument of ${config.tool} upstream; it has ${Object.keys(properties).join(', ') || 'none'}`,
          ),
        );
    }
    const { pick, template } = compileOutput(config.output, ctx);
    const shape =
      pick || template ? (result: ToolResult) => shaped(result, pick, template, mcp.redact) : undefined;
    const description = typeof upstream.description === 'string' ? upstream.description : undefined;
    // Its MCP Apps view: a page served where the source's rule puts it, and who may call the tool
    // (a tool only views call stays hidden from the model, with or without a page of its own).
    const upstreamUi = toolViewOf(upstream._meta);
    const page = upstreamUi?.uri;
    const served = page === undefined ? undefined : mcp.viewUri(page);
    const visibility = upstreamUi?.visibility;
    return {
      ...(config.input === undefined && { inputSchema: withoutPinned(schema, pinned) }),
      ...(description !== undefined && { description }),
      annotations: hintsOf(upstream.annotations),
      defaultTaskSupport: 'optional',
      ...((served !== undefined || visibility !== undefined) && {
        view: {
          ...(served !== undefined && { resource: upstreamView(mcp, config.source, page!, served) }),
          origin: config.source,
          ...(visibility !== undefined && { visibility }),
        },
      }),
      async run(args, call) {
        const set = pinned.filter((name) => Object.hasOwn(args, name));
        if (set.length > 0)
          return errorResult(
            `The argument${set.length > 1 ? 's' : ''} ${set.join(', ')} ${set.length > 1 ? 'are' : 'is'} fixed by this server and cannot be set; call again without ${set.length > 1 ? 'them' : 'it'}.`,
          );
        try {
          const result = await mcp.callTool(config.tool, { ...args, ...pin }, call);
          return shape && result.isError !== true ? shape(result) : result;
        } catch (err) {
          // A 2026 round ends with the upstream's question (rounds.ts); the protocol core answers it.
          if (err instanceof InputRequired) throw err;
          if (call.signal.aborted) return errorResult('The call was cancelled.');
          const message = mcp.redact((err as Error).message);
          return errorResult(
            err instanceof UpstreamError
              ? `The upstream server ${config.source} refused ${config.tool}: ${message}`
              : `Calling ${config.tool} on ${config.source} failed: ${message}`,
          );
        }
      },
    };
  },
};

/** The upstream schema without the pinned arguments (and without `$schema`: served as 2020-12). */
function withoutPinned(schema: Readonly<Record<string, unknown>>, pinned: readonly string[]): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  if (pinned.length === 0) return rest as JsonSchema;
  const properties = isObject(rest.properties) ? { ...rest.properties } : {};
  for (const name of pinned) delete properties[name];
  const required = Array.isArray(rest.required)
    ? rest.required.filter((r) => !pinned.includes(r))
    : undefined;
  return { ...rest, properties, ...(required !== undefined && { required }) } as JsonSchema;
}

/** The upstream's four boolean hints, if it gave them; the manifest's annotations win over these. */
function hintsOf(value: unknown): ToolAnnotations {
  if (!isObject(value)) return {};
  const out: Record<string, boolean> = {};
  for (const hint of HINTS) if (typeof value[hint] === 'boolean') out[hint] = value[hint] as boolean;
  return out;
}

/**
 * `output:` over the upstream's result: its structuredContent, or else the JSON of a result that is
 * one text block; picked, then wrapped as `{result: value}` when not an object (2025 clients accept
 * only objects), and shown as the template's text or as the JSON. Anything else is left as it is.
 */
function shaped(
  result: ToolResult,
  pick: Pick | undefined,
  template: RenderData | undefined,
  redact: (text: string) => string,
): ToolResult {
  let data = result.structuredContent;
  const [only] = result.content;
  if (data === undefined && result.content.length === 1 && only?.type === 'text') {
    try {
      data = JSON.parse(only.text);
    } catch {
      return result;
    }
  }
  if (data === undefined) return result;
  const picked = pick ? pick(data) : data;
  const structuredContent = isObject(picked) ? picked : { result: picked };
  const text = template ? redact(template(structuredContent)) : JSON.stringify(picked, null, 2);
  return { content: [{ type: 'text', text }], structuredContent };
}
