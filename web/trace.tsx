/** The Trace panel: every JSON-RPC message both ways, filtered, copied as JSON, a command or curl. */
import { useState } from 'preact/hooks';
import { asCallCommand, asCurl } from './copy.js';
import { store, update } from './store.js';

export function TracePanel() {
  const [filter, setFilter] = useState('');
  const [dir, setDir] = useState<'all' | 'out' | 'in'>('all');
  const [copied, setCopied] = useState('');
  const q = filter.trim().toLowerCase();
  const shown = store.trace.filter(
    (e) => (dir === 'all' || e.dir === dir) && (!q || JSON.stringify(e.message).toLowerCase().includes(q)),
  );
  const copy = (text: string) => {
    setCopied(text);
    void navigator.clipboard?.writeText(text).catch(() => undefined);
  };
  return (
    <div class="trace">
      <div class="toolbar">
        <label for="trace-filter">Filter</label>
        <input
          id="trace-filter"
          type="search"
          value={filter}
          onInput={(e) => setFilter((e.currentTarget as HTMLInputElement).value)}
        />
        <label for="trace-dir">Direction</label>
        <select
          id="trace-dir"
          value={dir}
          onChange={(e) => setDir((e.currentTarget as HTMLSelectElement).value as 'all')}
        >
          <option value="all">both</option>
          <option value="out">sent →</option>
          <option value="in">received ←</option>
        </select>
        <button
          type="button"
          onClick={() =>
            copy(
              JSON.stringify(
                shown.map((e) => e.message),
                null,
                2,
              ),
            )
          }
        >
          Copy shown as JSON
        </button>
        <button
          type="button"
          onClick={() => {
            store.trace = [];
            update();
          }}
        >
          Clear
        </button>
      </div>
      {copied && (
        <details open class="copied">
          <summary>Copied</summary>
          <pre data-testid="copied">{copied}</pre>
        </details>
      )}
      <ol class="trace-list" data-testid="trace">
        {shown
          .slice(-300)
          .reverse()
          .map((e) => {
            const m = e.message;
            const what = m.method ?? (m.error ? `error ${m.error.code}` : 'result');
            const call = e.dir === 'out' && m.method === 'tools/call';
            return (
              <li
                key={String(e.seq)}
                class={`trace-entry ${e.dir}`}
                data-testid="trace-entry"
                data-method={m.method ?? ''}
              >
                <details>
                  <summary>
                    <span class="muted">{(e.at / 1000).toFixed(3)}s</span>{' '}
                    <span title={e.dir === 'out' ? 'sent' : 'received'}>{e.dir === 'out' ? '→' : '←'}</span>
                    <span class="visually-hidden">{e.dir === 'out' ? 'sent' : 'received'}</span>{' '}
                    <strong>{what}</strong>{' '}
                    {m.id !== undefined && <span class="muted">id {JSON.stringify(m.id)}</span>}{' '}
                    {e.ms !== undefined && <span class="muted">{e.ms} ms</span>}{' '}
                    <span class="muted">{e.via}</span> <span class="muted">{e.era}</span>
                  </summary>
                  <div class="actions">
                    <button type="button" class="small" onClick={() => copy(JSON.stringify(m, null, 2))}>
                      Copy JSON
                    </button>
                    {call && (
                      <>
                        <button
                          type="button"
                          class="small"
                          onClick={() => copy(asCallCommand(e, store.dev?.manifest))}
                        >
                          Copy as mcp-run call
                        </button>
                        <button type="button" class="small" onClick={() => copy(asCurl(e))}>
                          Copy as curl
                        </button>
                      </>
                    )}
                  </div>
                  <pre>{JSON.stringify(m, null, 2)}</pre>
                </details>
              </li>
            );
          })}
      </ol>
    </div>
  );
}
