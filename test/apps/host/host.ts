/**
 * The test host page: a host as others write one, on ext-apps' AppBridge, not the playground's code.
 * Each view is a sandboxed frame (`allow-scripts` only: an opaque origin of its own) under the
 * page's CSP, which allows no network and no eval. The MCP client is the official v2 client in Node
 * (test/apps/views.test.ts); the page reaches it through `relayCallTool`, which the test exposes.
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

declare global {
  interface Window {
    relayCallTool(params: unknown): Promise<unknown>;
    showView(
      html: string,
      args: Record<string, unknown>,
      result: unknown,
      theme: 'light' | 'dark',
    ): Promise<void>;
    appCalls: unknown[];
  }
}

window.appCalls = [];

window.showView = async (html, args, result, theme) => {
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.style.cssText = 'width: 760px; height: 520px; border: 1px solid #888';
  document.body.replaceChildren(frame);
  const view = frame.contentWindow;
  if (view === null) throw new Error('no frame window');
  const bridge = new AppBridge(
    null,
    { name: 'mcp-run test host', version: '1.0.0' },
    { serverTools: {}, openLinks: {} },
    { hostContext: { theme, locale: 'en-US', displayMode: 'inline', platform: 'web' } },
  );
  bridge.oncalltool = async (params) => {
    window.appCalls.push(params);
    return (await window.relayCallTool(params)) as never;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(view, view));
  frame.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result as never);
};
