/** The catalog on the left: tools (with their token estimate), resources, templates and prompts. */
import { estimateJsonTokens, modelEntry } from '../src/lint/estimate.js';
import type { Json } from './mcp.js';
import { type Kind, keyOf, store, update } from './store.js';

function matches(item: Json, kind: Kind): boolean {
  const q = store.search.trim().toLowerCase();
  if (!q) return true;
  return [keyOf(kind, item), item.title, item.description, item.name].some(
    (s) => typeof s === 'string' && s.toLowerCase().includes(q),
  );
}

export function CatalogList() {
  const c = store.catalog;
  const total =
    c.tools.length > 0
      ? estimateJsonTokens({ tools: c.tools.map(modelEntry).filter((t) => t !== undefined) })
      : 0;
  const group = (kind: Kind, title: string, items: Json[], extra?: string) => (
    <section class="group" aria-label={title}>
      <h2>
        {title} <span class="muted">{items.length}</span>
        {extra && (
          <span class="muted tokens" data-testid="tools-tokens">
            {' '}
            {extra}
          </span>
        )}
      </h2>
      <ul>
        {items
          .filter((x) => matches(x, kind))
          .map((x) => {
            const key = keyOf(kind, x);
            const selected = store.selected?.kind === kind && store.selected.key === key;
            return (
              <li key={key}>
                <button
                  type="button"
                  class={`item${selected ? ' selected' : ''}`}
                  aria-current={selected || undefined}
                  data-testid={`${kind}-item`}
                  // A URI can be longer than the column: the whole of it on hover too.
                  title={kind === 'resource' || kind === 'template' ? key : undefined}
                  onClick={() => {
                    store.selected = { kind, key };
                    update();
                  }}
                >
                  <span class="name">{kind === 'resource' ? (x.name ?? x.uri) : key}</span>
                  {kind === 'tool' && (
                    <span class="muted tokens">
                      {modelEntry(x) === undefined ? 'app only' : `~${estimateJsonTokens(modelEntry(x))} tok`}
                    </span>
                  )}
                  {x.title && <span class="muted title">{x.title}</span>}
                </button>
              </li>
            );
          })}
      </ul>
    </section>
  );
  return (
    <div class="catalog" data-testid="catalog">
      {group('tool', 'Tools', c.tools, c.tools.length ? `~${total} tokens in tools/list` : undefined)}
      {group('resource', 'Resources', c.resources)}
      {group('template', 'Resource templates', c.templates)}
      {group('prompt', 'Prompts', c.prompts)}
    </div>
  );
}
