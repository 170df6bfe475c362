/**
 * The shape stage: a result as this caller may see it. A tool's structured content, its `_meta` and
 * every text block, a resource's text contents, a prompt's text messages, masked by one Masking
 * (mask.ts).
 */
import type { PromptResult, ResourceContents, ToolResult } from '../../kinds/contract/types.js';
import { type Masking, maskText, maskValue } from './mask.js';

export function shapeToolResult(result: ToolResult, masking: Masking): ToolResult {
  // The values masked in the structure, to find them again in the text written from it.
  const seen = new Set<string>();
  const structured =
    result.structuredContent === undefined ? undefined : maskValue(result.structuredContent, masking, seen);
  const content = result.content.map((block) => {
    if (block.type === 'text') return { ...block, text: maskText(block.text, masking, seen) };
    if (block.type === 'resource' && 'text' in block.resource)
      return {
        ...block,
        resource: { ...block.resource, text: maskText(block.resource.text, masking, seen) },
      };
    return block;
  });
  // A result's `_meta` is the view's data (MCP Apps): masked as the structured result is.
  const meta = result._meta === undefined ? undefined : maskValue(result._meta, masking, seen);
  return {
    ...result,
    content,
    ...(structured !== undefined && { structuredContent: structured }),
    ...(meta !== undefined && { _meta: meta as Readonly<Record<string, unknown>> }),
  };
}

export function shapeContents(contents: readonly ResourceContents[], masking: Masking): ResourceContents[] {
  return contents.map((c) =>
    'text' in c && typeof c.text === 'string' ? { ...c, text: maskText(c.text, masking, new Set()) } : c,
  );
}

export function shapePrompt(result: PromptResult, masking: Masking): PromptResult {
  return {
    ...result,
    messages: result.messages.map((m) =>
      m.content.type === 'text'
        ? { ...m, content: { ...m.content, text: maskText(m.content.text, masking, new Set()) } }
        : m,
    ),
  };
}
