/**
 * What an upstream answers, turned into the contract's types: every field checked for its shape
 * before use, unknown fields dropped, every text passed through the source's redaction. The
 * upstream's answer is data: nothing here interprets it beyond its type.
 */
import { isObject } from '../../util/is-object.js';
import type { ContentBlock, PromptResult, ResourceContents, ToolResult } from '../contract/types.js';
import { viewMetaOf } from './views.js';

/** A result's `_meta` larger than this (as JSON) is not relayed: the view gets the rest of the result. */
export const MAX_RESULT_META_BYTES = 64 * 1024;

/** A log message's data with the source's credentials replaced, whatever its shape. */
export function redactData(data: unknown, redact: (text: string) => string): unknown {
  if (typeof data === 'string') return redact(data);
  try {
    return JSON.parse(redact(JSON.stringify(data) ?? 'null'));
  } catch {
    return null;
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** One content block as the contract knows it; an unknown type becomes a text note. */
function contentBlock(block: unknown, redact: (text: string) => string): ContentBlock[] {
  if (!isObject(block)) return [];
  switch (block.type) {
    case 'text':
      return [{ type: 'text', text: redact(str(block.text) ?? '') }];
    case 'image':
    case 'audio': {
      const data = str(block.data);
      const mimeType = str(block.mimeType);
      return data === undefined || mimeType === undefined ? [] : [{ type: block.type, data, mimeType }];
    }
    case 'resource': {
      const [resource] = resourceContents(block.resource, redact);
      return resource === undefined ? [] : [{ type: 'resource', resource }];
    }
    case 'resource_link': {
      const uri = str(block.uri);
      const name = str(block.name);
      if (uri === undefined || name === undefined) return [];
      const mimeType = str(block.mimeType);
      const description = str(block.description);
      return [
        {
          type: 'resource_link',
          uri,
          name,
          ...(mimeType !== undefined && { mimeType }),
          ...(description !== undefined && { description }),
        },
      ];
    }
    default:
      return [
        {
          type: 'text',
          text: `[a ${JSON.stringify(String(block.type)).slice(0, 60)} block mcp-run does not relay]`,
        },
      ];
  }
}

export function resourceContents(value: unknown, redact: (text: string) => string): ResourceContents[] {
  if (!isObject(value) || typeof value.uri !== 'string') return [];
  const mimeType = str(value.mimeType);
  // Of a content's `_meta`, only an MCP Apps view's `ui` settings, checked (views.ts).
  const meta = viewMetaOf(value._meta);
  const base = {
    uri: value.uri,
    ...(mimeType !== undefined && { mimeType }),
    ...(meta !== undefined && { _meta: meta }),
  };
  if (typeof value.text === 'string') return [{ ...base, text: redact(value.text) }];
  if (typeof value.blob === 'string') return [{ ...base, blob: value.blob }];
  return [];
}

export function toolResult(result: unknown, redact: (text: string) => string): ToolResult {
  const r = isObject(result) ? result : {};
  const content = Array.isArray(r.content) ? r.content.flatMap((b) => contentBlock(b, redact)) : [];
  const meta = resultMeta(r._meta, redact);
  return {
    content,
    ...(r.structuredContent !== undefined && { structuredContent: r.structuredContent }),
    ...(r.isError === true && { isError: true }),
    ...(meta !== undefined && { _meta: meta }),
  };
}

/**
 * A tool result's `_meta`, which MCP Apps hands to the view (data the model does not read): relayed
 * redacted and bounded, without the keys the MCP specification reserves for the protocol (a prefix
 * with a `modelcontextprotocol` or `mcp` label: the upstream's own serverInfo, related task, …) and
 * mcp-run's own (`mcp-run/contract`), which would speak for mcp-run.
 */
function resultMeta(value: unknown, redact: (text: string) => string): Record<string, unknown> | undefined {
  if (!isObject(value)) return undefined;
  const kept = Object.entries(value).filter(([key]) => !reservedKey(key));
  if (kept.length === 0) return undefined;
  const text = redact(JSON.stringify(Object.fromEntries(kept)));
  if (Buffer.byteLength(text) > MAX_RESULT_META_BYTES) return undefined;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function reservedKey(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const prefix = key.slice(0, slash).toLowerCase();
  return (
    prefix === 'mcp-run' ||
    prefix.split('.').some((label) => label === 'modelcontextprotocol' || label === 'mcp')
  );
}

export function promptResult(result: unknown, redact: (text: string) => string): PromptResult {
  const r = isObject(result) ? result : {};
  const messages = Array.isArray(r.messages) ? r.messages : [];
  const description = str(r.description);
  return {
    ...(description !== undefined && { description: redact(description) }),
    messages: messages.flatMap((m) => {
      if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant')) return [];
      const [content] = contentBlock(m.content, redact);
      return content === undefined ? [] : [{ role: m.role, content }];
    }),
  };
}
