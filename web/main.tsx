/**
 * The `mcp-run dev` playground: a client of this origin's MCP endpoint. It lists the catalog,
 * builds a form per tool, shows results as a client sees them, answers the server's questions in
 * dialogs, traces every message, follows live reloads (list changes over MCP, reload outcomes over
 * the dev event stream) and speaks either protocol era. docs/dev.md describes it.
 */
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { CatalogList } from './catalog.js';
import { Detail } from './detail.js';
import { AskDialog } from './dialogs.js';
import type { Era } from './mcp.js';
import { Panels } from './panels.js';
import { ReloadBadge, ReloadErrors } from './reload.js';
import { connectSync, followDevEvents, switchEra } from './session.js';
import { onUpdate, store, update } from './store.js';

// ---- the page: the header, the catalog, the picked item, the panels, the server's questions ----

function App() {
  const [, setTick] = useState(0);
  onUpdate(() => setTick((n) => n + 1));
  const search = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (
        e.key === '/' &&
        !(e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement)
      ) {
        e.preventDefault();
        search.current?.focus();
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  const client = store.client;
  const name = client?.serverInfo?.name ?? 'MCP server';
  return (
    <div class="app">
      <header>
        <h1>
          mcp-run dev <span class="muted">·</span> <span data-testid="server-name">{name}</span>
          {client?.serverInfo?.version && <span class="muted"> {client.serverInfo.version}</span>}
        </h1>
        <div class="era">
          <label for="era">Protocol era</label>
          <select
            id="era"
            value={store.era}
            onChange={(e) => void switchEra((e.currentTarget as HTMLSelectElement).value as Era)}
          >
            <option value="2025-11-25">2025-11-25 (initialize, Mcp-Session-Id, GET stream)</option>
            <option value="2026-07-28">2026-07-28 (stateless: _meta envelope, listen, input_required)</option>
          </select>
        </div>
        <ReloadBadge />
      </header>
      {store.failure && (
        <p class="banner error" role="alert">
          {store.failure}
        </p>
      )}
      {store.reload && !store.reload.ok && <ReloadErrors reload={store.reload} />}
      <div class="columns">
        <nav aria-label="catalog">
          <label for="search" class="visually-hidden">
            Search the catalog
          </label>
          <input
            id="search"
            ref={search}
            type="search"
            placeholder="Search (press /)"
            value={store.search}
            onInput={(e) => {
              store.search = (e.currentTarget as HTMLInputElement).value;
              update();
            }}
          />
          <CatalogList />
        </nav>
        <main>
          <Detail />
        </main>
      </div>
      <Panels />
      {store.asks[0] && <AskDialog ask={store.asks[0]} key={String(store.asks.length)} />}
    </div>
  );
}

// ---- start: the catalog is read before the first paint ----

connectSync(store.era);
void Promise.resolve().then(() => {
  render(<App />, document.getElementById('app')!);
  void followDevEvents();
});
