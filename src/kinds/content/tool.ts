/**
 * Tool `content`: answers with content declared in the manifest. Text and URIs are Handlebars
 * templates over the arguments; images, audio and embedded files are read once when the manifest
 * loads. `structured` is a JSON tree sent as `structuredContent`: a string that is exactly
 * `{{name}}` becomes the argument's value with its JSON type (a number stays a number), other
 * strings with `{{…}}` are rendered as text, and entries whose arguments were left out are dropped
 * (see shared/value-tree.ts). Good for canned answers, stubs and showcases.
 *
 * @example
 * ```yaml
 * tools:
 *   greet:
 *     kind: content
 *     description: Greets someone, with the project logo.
 *     input:
 *       name: { type: string }
 *       times: { type: integer, default: 1 }
 *     content:
 *       - text: "Hello, {{name}}!"
 *       - image: { path: ./assets/logo.png }
 *       - resourceLink: { uri: "docs://people/{{name}}", name: profile }
 *     structured: { greeted: "{{name}}", times: "{{times}}" }
 * ```
 */

import { problems } from '../../errors.js';
import type { ToolCommon, ToolKind } from '../contract/kinds.js';
import type { ContentBlock } from '../contract/types.js';
import { type ContentItemConfig, compileContentItem, type RenderContent } from '../shared/content-blocks.js';
import { compileTree, evaluateTree } from '../shared/value-tree.js';
import { contentToolInfo } from './tool.info.js';

export interface ContentToolConfig extends ToolCommon {
  readonly content?: readonly ContentItemConfig[];
  readonly structured?: Readonly<Record<string, unknown>>;
  readonly isError?: boolean;
}

export const contentTool: ToolKind<ContentToolConfig> = {
  ...contentToolInfo,

  compile(config, ctx) {
    const declared = Object.keys(config.input ?? {});
    if (config.content === undefined && config.structured === undefined) {
      ctx.error([], problems.MANIFEST_MISSING_FIELD('content', `tool ${JSON.stringify(ctx.name)}`));
      return undefined;
    }
    const items = (config.content ?? []).map((item, i) =>
      compileContentItem(item, declared, ['content', i], ctx),
    );
    const structured =
      config.structured === undefined
        ? undefined
        : compileTree(config.structured, declared, ['structured'], ctx);
    if (items.some((item) => item === undefined) || (config.structured !== undefined && !structured)) {
      return undefined;
    }
    const renders = items as RenderContent[];
    const isError = config.isError === true;

    return {
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      async run(args) {
        const structuredContent = structured && evaluateTree(structured, args);
        // Clients that ignore structuredContent still see the data: it becomes the text by default.
        const content: ContentBlock[] =
          renders.length > 0
            ? renders.map((render) => render(args))
            : [{ type: 'text', text: JSON.stringify(structuredContent) }];
        return {
          content,
          ...(structuredContent !== undefined && { structuredContent }),
          ...(isError && { isError: true }),
        };
      },
    };
  },
};
