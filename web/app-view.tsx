/**
 * A tool's MCP Apps view beside its result, hosted the way a real host does: ext-apps' AppBridge,
 * the view's HTML read from its `ui://` resource, written into a sandboxed frame (`allow-scripts`
 * only: an opaque origin of its own) served with a CSP of its own (web/view-frame.html). The view's
 * tool calls go through this page's client, so they show in the trace like the page's own. Each
 * reload of the manifest draws the view again from its resource, with the same result.
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Json } from './mcp.js';
import { describe } from './session.js';
import { store } from './store.js';

const FRAME = '/_dev/view-frame.html';

export function AppView(props: { readonly tool: Json; readonly args: Json; readonly result: Json }) {
  const box = useRef<HTMLDivElement>(null);
  const [failure, setFailure] = useState<string | undefined>();
  const uri: string | undefined = props.tool._meta?.ui?.resourceUri;
  useEffect(() => {
    const container = box.current;
    if (uri === undefined || container === null) return;
    const done = new AbortController();
    setFailure(undefined);
    show(container, props.tool.name, uri, props.args, props.result, done.signal).catch((err: unknown) => {
      if (!done.signal.aborted) setFailure(describe(err));
    });
    return () => {
      done.abort();
      container.replaceChildren();
    };
    // A reload may change the view (its settings, its HTML): it is read and drawn again.
  }, [uri, props.result, store.reload?.at]);
  if (uri === undefined) return null;
  return (
    <section class="app-view" aria-label={`${props.tool.name} view`}>
      <h4>
        View <code>{uri}</code>
      </h4>
      {failure !== undefined && (
        <p class="field-error" role="alert">
          The view failed: {failure}
        </p>
      )}
      <div ref={box} />
    </section>
  );
}

async function show(
  container: HTMLElement,
  tool: string,
  uri: string,
  args: Json,
  result: Json,
  signal: AbortSignal,
): Promise<void> {
  const client = store.client;
  if (client === undefined) return;
  const read = await client.request('resources/read', { uri });
  const html = read?.contents?.[0]?.text;
  if (typeof html !== 'string' || signal.aborted) return;
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.title = `${tool} view`;
  frame.className = 'app-frame';
  const ready = new Promise<void>((resolve) => {
    const listen = (event: MessageEvent) => {
      if (event.source !== frame.contentWindow || event.data?.type !== 'mcp-run:view-frame-ready') return;
      removeEventListener('message', listen);
      resolve();
    };
    addEventListener('message', listen);
    signal.addEventListener('abort', () => removeEventListener('message', listen));
  });
  frame.src = FRAME;
  container.replaceChildren(frame);
  await ready;
  const view = frame.contentWindow;
  if (view === null || signal.aborted) return;
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  const bridge = new AppBridge(
    null,
    { name: 'mcp-run dev', version: '1' },
    { serverTools: {}, serverResources: {} },
    { hostContext: { theme: dark ? 'dark' : 'light', displayMode: 'inline', platform: 'web' } },
  );
  bridge.oncalltool = async (params) => client.request('tools/call', params);
  bridge.onreadresource = async (params) => client.request('resources/read', params);
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${Math.min(Math.max(height, 80), 900)}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  signal.addEventListener('abort', () => void bridge.close());
  await bridge.connect(new PostMessageTransport(view, view));
  view.postMessage({ type: 'mcp-run:view-html', html }, '*');
  await initialized;
  if (signal.aborted) return;
  await bridge.sendToolInput({ arguments: args ?? {} });
  await bridge.sendToolResult(result);
}
