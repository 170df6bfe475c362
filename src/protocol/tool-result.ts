/** A tool's result as it goes on the wire, the same for a direct call and a task's stored result. */
import { isDeepStrictEqual } from 'node:util';
import type { ContentBlock, ToolResult } from '../catalog/types.js';

/**
 * Copies only the defined fields: a kind's undefined must not become a key in the result. Structured
 * content also goes out as JSON text when no text block already carries it: the spec says a tool
 * that returns structured content SHOULD, for clients (and versions) that read only `content`.
 */
export function toWire(result: ToolResult): object {
  const wire: Record<string, unknown> = { content: result.content };
  if (result.structuredContent !== undefined) {
    wire.structuredContent = result.structuredContent;
    if (!carriesJson(result.content, result.structuredContent))
      wire.content = [...result.content, { type: 'text', text: JSON.stringify(result.structuredContent) }];
  }
  if (result.isError !== undefined) wire.isError = result.isError;
  // MCP Apps hands it to the view with the rest (an upstream MCP tool's, bounded by its relay).
  if (result._meta !== undefined) wire._meta = result._meta;
  return wire;
}

/** Structured content is an object, so only a text that opens with `{` can be its JSON. */
const OBJECT_TEXT = /^\s*\{/;

function carriesJson(content: readonly ContentBlock[], structured: unknown): boolean {
  let pretty: string | undefined;
  return content.some((block) => {
    // A markdown table or prose would throw in JSON.parse, and a thrown error costs more than the call.
    if (block.type !== 'text' || !OBJECT_TEXT.test(block.text)) return false;
    // The kinds write the structured content as JSON.stringify(value, null, 2) (an http tool's
    // JSON answer): one stringify tells that, where a parse and a deep comparison cost twice as much.
    pretty ??= JSON.stringify(structured, null, 2);
    if (block.text === pretty) return true;
    try {
      return isDeepStrictEqual(JSON.parse(block.text), structured);
    } catch {
      return false;
    }
  });
}
