/** Live reload on the page: the header's badge, a broken edit's errors, and the Reload panel. */
import { type Reload, store } from './store.js';

export function ReloadBadge() {
  const r = store.reload;
  if (!r)
    return (
      <span class="badge" data-testid="reload-status">
        watching {store.dev ? short(store.dev.manifest) : ''}
      </span>
    );
  return (
    <span class={`badge ${r.ok ? 'ok' : 'bad'}`} data-testid="reload-status" role="status">
      {r.ok ? `reloaded: ${r.summary}${r.names ? ` (${r.names})` : ''}` : r.summary}
    </span>
  );
}

const short = (path: string) => path.split('/').pop() ?? path;

export function ReloadErrors(props: { readonly reload: Reload }) {
  return (
    <section class="banner error" role="alert" aria-label="reload errors" data-testid="reload-errors">
      <strong>{props.reload.summary}</strong>
      {(props.reload.errors ?? []).map((d, i) => (
        <div class="diagnostic" key={String(i)}>
          <div>
            <code>
              {d.file}
              {d.line !== undefined ? `:${d.line}:${d.col ?? 1}` : ''}
            </code>{' '}
            <span class="badge bad">{d.code}</span> {d.path && <code>{d.path}</code>} {d.message}
          </div>
          {d.frame && <pre class="frame">{d.frame}</pre>}
          {d.hint && <div class="muted">hint: {d.hint}</div>}
        </div>
      ))}
    </section>
  );
}

export function ReloadPanel() {
  const r = store.reload;
  if (!r)
    return (
      <p class="muted">
        No reload yet. Edit {store.dev?.manifest ?? 'the manifest'} and save: this panel says what changed.
      </p>
    );
  return r.ok ? (
    <p>
      {r.at}: reloaded, {r.summary}
      {r.names && ` (${r.names})`}
    </p>
  ) : (
    <ReloadErrors reload={r} />
  );
}
