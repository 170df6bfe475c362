/** The panels under the page: Trace, Logs and Reload, as tabs. */
import { ReloadPanel } from './reload.js';
import { store, update } from './store.js';
import { TracePanel } from './trace.js';

// ---- panels: trace, logs, reload ----

export function Panels() {
  const tabs = [
    ['trace', `Trace (${store.trace.length})`],
    ['logs', `Logs (${store.logs.length})`],
    ['reload', 'Reload'],
  ] as const;
  return (
    <section class="panels" aria-label="panels">
      <div role="tablist" aria-label="panels">
        {tabs.map(([id, label]) => (
          <button
            type="button"
            role="tab"
            id={`tab-${id}`}
            key={id}
            aria-selected={store.panel === id}
            aria-controls={`panel-${id}`}
            onClick={() => {
              store.panel = id;
              update();
            }}
          >
            {label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${store.panel}`} aria-labelledby={`tab-${store.panel}`}>
        {store.panel === 'trace' ? <TracePanel /> : store.panel === 'logs' ? <LogsPanel /> : <ReloadPanel />}
      </div>
    </section>
  );
}

function LogsPanel() {
  return (
    <ol class="logs" data-testid="logs">
      {store.logs.map((l, i) => (
        <li key={String(i)} class={`log level-${l.level}`}>
          <span class="muted">{l.at.slice(11, 23)}</span> <span class="badge">{l.level}</span>{' '}
          {l.logger && <span class="muted">{l.logger}</span>}{' '}
          {typeof l.data === 'string' ? l.data : JSON.stringify(l.data)}
        </li>
      ))}
    </ol>
  );
}
