/**
 * Prompt `mcp`: one prompt an upstream MCP server listed, got through the source. Its arguments
 * are the upstream's as listed when the source opened (pinned until a reload); a get sends only
 * those, and a missing required one is refused here, before the upstream is asked. Its listed
 * arguments are completed by the upstream (`completion/complete` in its own prompt name).
 *
 * @example
 * ```yaml
 * prompts:
 *   simple:
 *     kind: mcp
 *     source: everything
 *     prompt: simple-prompt
 * ```
 */
import { problems } from '../../errors.js';
import { isObject } from '../../util/is-object.js';
import { suggest } from '../../util/suggest.js';
import type { PromptKind } from '../contract/kinds.js';
import { InvalidRequestParams, type PromptArgumentDescriptor } from '../contract/types.js';
import { mcpPromptInfo } from './prompt.info.js';
import { completeUpstream } from './resource.js';

export interface McpPromptConfig {
  readonly source: string;
  readonly prompt: string;
  readonly title?: string;
  readonly description?: string;
}

export const mcpPrompt: PromptKind<McpPromptConfig> = {
  ...mcpPromptInfo,
  compile(config, ctx) {
    const mcp = ctx.source(config.source, 'mcp', ['source']);
    if (!mcp) return undefined;
    if (mcp.perCaller === true) {
      ctx.error(
        ['source'],
        problems.SOURCE_TOKEN_EXCHANGE_REFUSED(
          config.source,
          "its auth is a token exchange, and only an upstream's tools are served per caller: a prompt is read with no caller",
          'serve this prompt from a source with its own credentials (a second `kind: mcp` source on the same url)',
        ),
      );
      return undefined;
    }
    const listed = mcp.listing.prompts.find((p) => p.name === config.prompt);
    if (!listed) {
      const known = mcp.listing.prompts.map((p) => p.name);
      ctx.error(
        ['prompt'],
        problems.UPSTREAM_ENTRY_UNKNOWN(
          'prompt',
          config.prompt,
          config.source,
          known,
          suggest(config.prompt, known),
        ),
      );
      return undefined;
    }
    const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const args: PromptArgumentDescriptor[] = (
      Array.isArray(listed.arguments) ? listed.arguments : []
    ).flatMap((a) => {
      if (!isObject(a) || typeof a.name !== 'string') return [];
      const description = text(a.description);
      return [
        {
          name: a.name,
          ...(description !== undefined && { description }),
          ...(a.required === true && { required: true }),
        },
      ];
    });
    const title = config.title ?? text(listed.title);
    const description = config.description ?? text(listed.description);
    const known = new Set(args.map((a) => a.name));
    return {
      descriptor: {
        name: ctx.name,
        ...(title !== undefined && { title }),
        ...(description !== undefined && { description }),
        ...(args.length > 0 && { arguments: args }),
      },
      async get(values, signal) {
        for (const a of args)
          if (a.required && values[a.name] === undefined)
            throw new InvalidRequestParams(`missing required argument "${a.name}"`);
        const sent = Object.fromEntries(Object.entries(values).filter(([name]) => known.has(name)));
        try {
          return await mcp.getPrompt(config.prompt, sent, signal);
        } catch (err) {
          throw new Error(
            `Getting ${config.prompt} from ${config.source} failed: ${mcp.redact((err as Error).message)}`,
          );
        }
      },
      // Only the upstream's listed arguments are completed, or sent as context (renamed back).
      complete: (argument, prefix, context) =>
        known.has(argument)
          ? completeUpstream(
              mcp,
              config.source,
              { type: 'ref/prompt', name: config.prompt },
              argument,
              prefix,
              Object.fromEntries(Object.entries(context).filter(([name]) => known.has(name))),
            )
          : Promise.resolve([]),
    };
  },
};
