/** Results as a client sees them: content blocks, structured content as a tree, errors apart. */
import { useEffect, useRef } from 'preact/hooks';
import type { Json } from './mcp.js';

export function Tree(props: { readonly value: Json; readonly label?: string; readonly depth?: number }) {
  const depth = props.depth ?? 0;
  const v = props.value;
  const key = props.label !== undefined ? <span class="tree-key">{props.label}: </span> : null;
  if (v === null || typeof v !== 'object')
    return (
      <div class="tree-leaf">
        {key}
        <span class={`tree-${v === null ? 'null' : typeof v}`}>{JSON.stringify(v)}</span>
      </div>
    );
  const entries: [string, Json][] = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
  return (
    <details class="tree" open={depth < 2}>
      <summary>
        {key}
        <span class="muted">{Array.isArray(v) ? `[${v.length}]` : `{${entries.length}}`}</span>
      </summary>
      <div class="tree-children">
        {entries.map(([k, x]) => (
          <Tree key={k} label={k} value={x} depth={depth + 1} />
        ))}
      </div>
    </details>
  );
}

function Block(props: { readonly block: Json; readonly onRead: (uri: string) => void }) {
  const b = props.block;
  switch (b?.type) {
    case 'text':
      return <pre class="content-text">{b.text}</pre>;
    case 'image':
      return (
        <img
          class="content-image"
          alt={`${b.mimeType} content`}
          src={`data:${b.mimeType};base64,${b.data}`}
        />
      );
    case 'audio':
      // biome-ignore lint/a11y/useMediaCaption: tool output has no captions to offer
      return <audio controls src={`data:${b.mimeType};base64,${b.data}`} />;
    case 'resource_link':
      return (
        <div class="content-link">
          <span class="badge">resource link</span>{' '}
          <button type="button" class="link" onClick={() => props.onRead(b.uri)}>
            {b.name ?? b.uri}
          </button>{' '}
          <code>{b.uri}</code>
          {b.description && <div class="muted">{b.description}</div>}
        </div>
      );
    case 'resource':
      return <ResourceContents contents={[b.resource]} />;
    default:
      return <Tree value={b} />;
  }
}

export function ResourceContents(props: { readonly contents: Json[] }) {
  return (
    <div class="contents">
      {props.contents.map((c, i) => (
        <div class="content-resource" key={String(i)}>
          <div class="muted">
            <code>{c.uri}</code> {c.mimeType}
          </div>
          {typeof c.text === 'string' ? (
            <pre class="content-text">{c.text}</pre>
          ) : c.mimeType?.startsWith('image/') ? (
            <img class="content-image" alt={c.uri} src={`data:${c.mimeType};base64,${c.blob}`} />
          ) : (
            <p class="muted">{c.blob ? `${Math.floor((c.blob.length * 3) / 4)} bytes of binary` : 'empty'}</p>
          )}
        </div>
      ))}
    </div>
  );
}

export function ToolResult(props: { readonly result: Json; readonly onRead: (uri: string) => void }) {
  const r = props.result;
  const ref = useRef<HTMLElement>(null);
  // A new result comes into view (the form above may be long).
  useEffect(() => ref.current?.scrollIntoView?.({ block: 'nearest', behavior: 'instant' }), [r]);
  return (
    <section
      ref={ref}
      class={`result${r.isError ? ' is-error' : ''}`}
      data-testid="tool-result"
      aria-label={r.isError ? 'error result' : 'result'}
      role={r.isError ? 'alert' : undefined}
    >
      <h4>{r.isError ? 'Error result (isError: true)' : 'Result'}</h4>
      {(r.content ?? []).map((b: Json, i: number) => (
        <Block key={String(i)} block={b} onRead={props.onRead} />
      ))}
      {r.structuredContent !== undefined && (
        <div class="structured" data-testid="structured-content">
          <h5>structuredContent</h5>
          <Tree value={r.structuredContent} />
        </div>
      )}
    </section>
  );
}

export function PromptMessages(props: { readonly result: Json; readonly onRead: (uri: string) => void }) {
  return (
    <section class="result" data-testid="prompt-result">
      {props.result.description && <p>{props.result.description}</p>}
      {(props.result.messages ?? []).map((m: Json, i: number) => (
        <div class={`message role-${m.role}`} key={String(i)}>
          <span class="badge">{m.role}</span>
          <Block block={m.content} onRead={props.onRead} />
        </div>
      ))}
    </section>
  );
}
