/** A resource's view (read with one click) and a resource template's (its variables filled in). */
import { useState } from 'preact/hooks';
import { Header, OutcomeView } from './item.js';
import type { Json } from './mcp.js';
import { perform } from './session.js';
import { store } from './store.js';

export function ResourceView(props: { readonly item: Json }) {
  const r = props.item;
  const key = `resource:${r.uri}`;
  return (
    <section>
      <Header item={r} name={r.name ?? r.uri} />
      <p>
        <code class="uri">{r.uri}</code> {r.mimeType && <span class="muted">{r.mimeType}</span>}{' '}
        {r.size !== undefined && <span class="muted">{r.size} bytes</span>}
      </p>
      <button type="button" onClick={() => void perform(key, 'resources/read', { uri: r.uri })}>
        Read
      </button>
      <OutcomeView outcome={store.outcomes.get(key)} kind="resource" />
    </section>
  );
}

/** RFC 6570 level 1–2 expressions: `{id}`, `{+path}`. */
function expand(template: string, values: Record<string, string>): string {
  return template.replace(/\{([+#]?)([^}]+)\}/g, (_m, op: string, names: string) =>
    names
      .split(',')
      .map((n) => {
        const v = values[n.trim()] ?? '';
        return op ? encodeURI(v) : encodeURIComponent(v);
      })
      .join(','),
  );
}

export function TemplateView(props: { readonly item: Json }) {
  const t = props.item;
  const names = [...t.uriTemplate.matchAll(/\{[+#]?([^}]+)\}/g)].flatMap((m: RegExpMatchArray) =>
    (m[1] as string).split(',').map((n) => n.trim()),
  );
  const [values, setValues] = useState<Record<string, string>>({});
  const uri = expand(t.uriTemplate, values);
  const key = `template:${t.uriTemplate}`;
  return (
    <section>
      <Header item={t} name={t.name ?? t.uriTemplate} />
      <p>
        <code class="uri">{t.uriTemplate}</code>
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void perform(key, 'resources/read', { uri });
        }}
      >
        {names.map((n) => (
          <div class="field" key={n}>
            <label for={`tv-${n}`}>{n}</label>
            <input
              id={`tv-${n}`}
              value={values[n] ?? ''}
              onInput={(e) => setValues({ ...values, [n]: (e.currentTarget as HTMLInputElement).value })}
            />
          </div>
        ))}
        <p class="muted">
          URI: <code class="uri">{uri}</code>
        </p>
        <button type="submit">Read</button>
      </form>
      <OutcomeView outcome={store.outcomes.get(key)} kind="template" />
    </section>
  );
}
