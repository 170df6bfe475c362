/** The catalog on the left: tools (with their token estimate), resources, templates, prompts and skills. */
import { estimateJsonTokens, modelEntry } from '../src/lint/estimate.js';
import type { Json } from './mcp.js';
import { type Kind, keyOf, store, update } from './store.js';

/**
 * The meta-tools a catalog in search mode lists instead of its tools (src/catalog/disclosure.ts,
 * docs/big-catalogs.md); a manifest cannot pin a tool of these names, so all four mean the mode.
 */
const META_TOOLS = ['search_tools', 'browse_tools', 'describe_tool', 'call_tool'];

const isSearchMode = (tools: readonly Json[]): boolean =>
  META_TOOLS.every((name) => tools.some((t) => t.name === name));

/** What a catalog in search mode lists, said once above its tools. */
function SearchModeNote(props: { readonly tools: readonly Json[] }) {
  const pinned = props.tools.filter((t) => !META_TOOLS.includes(t.name)).length;
  return (
    <p class="muted catalog-mode" data-testid="catalog-mode">
      <span class="badge">search mode</span> tools/list shows the meta-tools {META_TOOLS.join(', ')}
      {pinned > 0 ? ` and ${pinned} pinned` : ''}; the other tools are found and called through them.
    </p>
  );
}

function matches(item: Json, kind: Kind): boolean {
  const q = store.search.trim().toLowerCase();
  if (!q) return true;
  const about = kind === 'skill' ? (item.frontmatter ?? {}) : item;
  return [keyOf(kind, item), about.title, about.description, about.name].some(
    (s) => typeof s === 'string' && s.toLowerCase().includes(q),
  );
}

/** What the list shows for an item: a resource's name, a skill's frontmatter name, else its key. */
function itemName(kind: Kind, item: Json, key: string): string {
  if (kind === 'resource') return item.name ?? item.uri;
  if (kind === 'skill') return typeof item.frontmatter?.name === 'string' ? item.frontmatter.name : key;
  return key;
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
      {kind === 'tool' && isSearchMode(items) && <SearchModeNote tools={items} />}
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
                  <span class="name">{itemName(kind, x, key)}</span>
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
      {c.skills.length > 0 && group('skill', 'Skills', c.skills)}
    </div>
  );
}
