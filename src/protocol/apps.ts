/**
 * MCP Apps on the wire: whether a request's client declared the `io.modelcontextprotocol/ui`
 * extension (in `initialize` for a 2025 session, in each request's capabilities in 2026), and what
 * changes for it. The catalog compiled the views (catalog/views.ts); only such a client sees their
 * `_meta` in tools/list, may call the tools only views call, and gets the model's text shortened.
 * Any other client gets exactly the answers it got before views existed.
 */
import type { CatalogTool } from '../catalog/types.js';
import { compactText, UI_EXTENSION, VIEW_MIME_TYPE } from '../catalog/views.js';
import { isObject } from './jsonrpc.js';
import type { RequestScope } from './request-scope.js';

/** Whether the request's client shows views: the extension declared, with our MIME type if it lists any. */
export function declaresApps(scope: RequestScope): boolean {
  const capabilities =
    scope.era === 'modern' ? scope.envelope?.capabilities : scope.session.clientCapabilities;
  const extensions = capabilities?.extensions;
  const ui = isObject(extensions) ? extensions[UI_EXTENSION] : undefined;
  if (!isObject(ui)) return false;
  return !Array.isArray(ui.mimeTypes) || ui.mimeTypes.includes(VIEW_MIME_TYPE);
}

/** A tool only views call is no tool at all for a client without views. */
export function callableBy(tool: CatalogTool, scope: RequestScope): boolean {
  return tool.view?.appOnly !== true || declaresApps(scope);
}

/**
 * A call's wire result as the model of a client with views reads it: the text replaced by the
 * compact summary (the view has the rows in structuredContent). Unchanged for other clients, for a
 * tool without a view or with `modelText: full`, and for an error.
 */
export function forViews(tool: CatalogTool, scope: RequestScope, wire: object): object {
  const view = tool.view;
  if (view === undefined || !view.compact || !declaresApps(scope)) return wire;
  const result = wire as {
    content: readonly { type: string }[];
    structuredContent?: unknown;
    isError?: boolean;
  };
  if (result.isError === true) return wire;
  const text = compactText(view, result.structuredContent);
  if (text === undefined) return wire;
  const others = result.content.filter((block) => block.type !== 'text');
  return { ...result, content: [{ type: 'text', text }, ...others] };
}
