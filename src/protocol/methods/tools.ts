/**
 * `tools/list` and `tools/call`. Argument validation belongs to the tool (it answers isError); a
 * call runs through `interactive`, so a tool's steps can ask the client (2025) or end the call with
 * `input_required` (2026).
 */
import { isDeepStrictEqual } from 'node:util';
import type { ContentBlock, ToolResult } from '../../catalog/types.js';
import type { MethodSpec } from '../context.js';
import { interactive } from '../interaction.js';
import { invalidParams, isObject } from '../jsonrpc.js';
import { listPage } from '../pagination.js';
import { requireString } from '../params.js';
import type { RequestScope } from '../request-scope.js';

async function callTool(scope: RequestScope): Promise<object> {
  const name = requireString(scope.params, 'name', 'tools/call');
  const tool = scope.catalog.tools.get(name);
  if (tool === undefined) throw invalidParams(`Unknown tool: ${name}`);
  const args = scope.params.arguments;
  if (args !== undefined && !isObject(args)) throw invalidParams('tools/call "arguments" must be an object');
  return interactive(scope, name, async (interaction) => {
    const { signal, progress, log, identity } = scope;
    const ctx = { signal, progress, log, interaction, ...(identity === undefined ? {} : { identity }) };
    return toWire(await tool.call(args ?? {}, ctx));
  });
}

/**
 * Copies only the defined fields: a kind's undefined must not become a key in the result. Structured
 * content also goes out as JSON text when no text block already carries it: the spec says a tool
 * that returns structured content SHOULD, for clients (and versions) that read only `content`.
 */
function toWire(result: ToolResult): object {
  const wire: Record<string, unknown> = { content: result.content };
  if (result.structuredContent !== undefined) {
    wire.structuredContent = result.structuredContent;
    if (!carriesJson(result.content, result.structuredContent))
      wire.content = [...result.content, { type: 'text', text: JSON.stringify(result.structuredContent) }];
  }
  if (result.isError !== undefined) wire.isError = result.isError;
  return wire;
}

function carriesJson(content: readonly ContentBlock[], structured: unknown): boolean {
  return content.some((block) => {
    if (block.type !== 'text') return false;
    try {
      return isDeepStrictEqual(JSON.parse(block.text), structured);
    } catch {
      return false;
    }
  });
}

export const toolMethods: Record<string, MethodSpec> = {
  'tools/list': {
    era: 'both',
    cacheable: true,
    handle: (scope) => listPage(scope.catalog, 'tools', scope.params, scope.access),
  },
  'tools/call': { era: 'both', routingName: 'name', routesArguments: true, handle: callTool },
};
