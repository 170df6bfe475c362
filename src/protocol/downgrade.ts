/**
 * Results as an older negotiated version can take them. The core builds every result in the newest
 * shape; this is the one place that removes what a client of an earlier revision does not know, so
 * a client that validates strictly against its own schema never refuses a whole result over one
 * field or one content block:
 *
 * - before 2025-06-18: no `title` (tools, resources, templates, prompts, their arguments,
 *   serverInfo), no `outputSchema` or `structuredContent` (the text block carries the JSON, see
 *   tools.ts), and no `resource_link` content: a link becomes a text line naming it;
 * - before 2025-03-26: no tool `annotations`, and no `audio` content: it becomes a text note.
 *
 * 2025-06-18 and later take every result as built.
 */
import type { ContentBlock } from '../catalog/types.js';
import { isObject } from './jsonrpc.js';

type Wire = Record<string, unknown>;

const hasTitles = (version: string): boolean => version >= '2025-06-18';
const hasAudio = (version: string): boolean => version >= '2025-03-26';

/** The result of `method` for a session of `version` (a legacy version; undefined: as built). */
export function downgradeResult(method: string, result: object, version: string | undefined): object {
  if (version === undefined || hasTitles(version)) return result;
  const r = result as Wire;
  switch (method) {
    case 'initialize':
      return { ...r, serverInfo: withoutKeys(r.serverInfo, ['title']) };
    case 'tools/list':
      return { ...r, tools: mapList(r.tools, (tool) => downgradeTool(tool, version)) };
    case 'resources/list':
      return { ...r, resources: mapList(r.resources, (x) => withoutKeys(x, ['title'])) };
    case 'resources/templates/list':
      return { ...r, resourceTemplates: mapList(r.resourceTemplates, (x) => withoutKeys(x, ['title'])) };
    case 'prompts/list':
      return { ...r, prompts: mapList(r.prompts, downgradePrompt) };
    case 'tools/call': {
      const { structuredContent: _dropped, ...rest } = r;
      return { ...rest, content: mapList(r.content, (block) => downgradeBlock(block, version)) };
    }
    case 'prompts/get':
      return {
        ...r,
        messages: mapList(r.messages, (m) => ({ ...m, content: downgradeBlock(m.content, version) })),
      };
    default:
      return result;
  }
}

function downgradeTool(tool: Wire, version: string): Wire {
  return withoutKeys(
    tool,
    hasAudio(version) ? ['title', 'outputSchema'] : ['title', 'outputSchema', 'annotations'],
  );
}

function downgradePrompt(prompt: Wire): Wire {
  const bare = withoutKeys(prompt, ['title']);
  return Array.isArray(bare.arguments)
    ? { ...bare, arguments: mapList(bare.arguments, (a) => withoutKeys(a, ['title'])) }
    : bare;
}

/** A content block the version lacks, as the text line that says what it was. */
function downgradeBlock(block: unknown, version: string): unknown {
  if (!isObject(block)) return block;
  const b = block as ContentBlock;
  if (b.type === 'resource_link') {
    const about = [b.mimeType, b.description].filter((s) => s !== undefined).join(', ');
    return { type: 'text', text: `Resource ${b.name}: ${b.uri}${about === '' ? '' : ` (${about})`}` };
  }
  if (b.type === 'audio' && !hasAudio(version)) {
    const bytes =
      Math.floor((b.data.length * 3) / 4) - (b.data.endsWith('==') ? 2 : b.data.endsWith('=') ? 1 : 0);
    return {
      type: 'text',
      text: `[audio (${b.mimeType}, ${bytes} bytes) left out: this protocol version has no audio content]`,
    };
  }
  return block;
}

function mapList(list: unknown, each: (item: Wire) => unknown): unknown {
  return Array.isArray(list) ? list.map((item) => (isObject(item) ? each(item) : item)) : list;
}

function withoutKeys(value: unknown, keys: readonly string[]): Wire {
  const out: Wire = { ...(value as Wire) };
  for (const key of keys) delete out[key];
  return out;
}

/**
 * An error reply that cannot name its request. JSON-RPC 2.0 asks for `"id": null`, and the
 * 2024-11-05 … 2025-06-18 schemas require an id (they refuse null too, so null, the JSON-RPC rule,
 * is what those sessions get). 2025-11-25 and 2026-07-28 make the id optional and refuse null, so
 * their replies leave it out, as does a connection that has negotiated nothing yet (a bad first
 * line on stdio): the official SDK clients accept a missing id and refuse null. docs/clients.md.
 */
export function unnamedErrorReply(reply: object, version: string | undefined): object {
  if (version !== undefined && version < '2025-11-25') return reply;
  const { id: _unnamed, ...rest } = reply as Wire;
  return rest;
}
