/** What every item's view shares: its header (name, title, description, annotations) and its outcome. */
import type { Json } from './mcp.js';
import { PromptMessages, ResourceContents, ToolResult } from './result.js';
import { readResource } from './session.js';
import type { Kind, Outcome } from './store.js';

export function Header(props: { readonly item: Json; readonly name: string }) {
  const a = props.item.annotations ?? {};
  return (
    <>
      <h2>
        {props.name}
        {props.item.title && <span class="muted"> · {props.item.title}</span>}
      </h2>
      {props.item.description && <p class="description">{props.item.description}</p>}
      {Object.keys(a).length > 0 && (
        <p class="annotations">
          <span class="visually-hidden">annotations: </span>
          {Object.entries(a).map(([k, v]) => (
            <span class="badge" key={k}>
              {k}: {JSON.stringify(v)}
            </span>
          ))}
        </p>
      )}
    </>
  );
}

export function OutcomeView(props: { readonly outcome: Outcome | undefined; readonly kind: Kind }) {
  const o = props.outcome;
  if (!o) return null;
  if (o.cancelled)
    return (
      <p class="banner" role="status" data-testid="cancelled">
        Cancelled.
      </p>
    );
  if (o.error)
    return (
      <p class="banner error" role="alert" data-testid="rpc-error">
        {o.error}
      </p>
    );
  if (!o.result) return null;
  if (props.kind === 'tool') return <ToolResult result={o.result} onRead={readResource} />;
  if (props.kind === 'prompt') return <PromptMessages result={o.result} onRead={readResource} />;
  return <ResourceContents contents={o.result.contents ?? []} />;
}
