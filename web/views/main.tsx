/**
 * The built-in MCP Apps views (docs/apps.md): one page, bundled by scripts/bundle-views.mjs into
 * dist/views/view.html, that catalog/views.ts serves as each tool's `ui://` resource with the tool's
 * settings written in. It talks to the host through ext-apps' `App` only: the tool's result arrives
 * as `tool-result` (its structuredContent holds the rows), the host's theme as its context, and an
 * action calls a tool back through the host. Every value is rendered as a text node.
 */
import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
} from '@modelcontextprotocol/ext-apps';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Card } from './card.js';
import { Chart } from './chart.js';
import {
  type Action,
  actionArguments,
  columnsOf,
  isRowAction,
  type Row,
  readSettings,
  rowsOf,
  type ViewSettings,
} from './settings.js';
import { Table } from './table.js';

interface ToolOutcome {
  readonly structuredContent?: unknown;
  readonly content?: readonly { readonly type: string; readonly text?: string }[];
  readonly isError?: boolean;
}

const settings = readSettings(document);
const app = new App({ name: `mcp-run ${settings.view} view`, version: '1' });

/** The host's theme and style variables, applied to the document as they come and change. */
function applyContext(context: ReturnType<App['getHostContext']>): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context?.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
}

let publish: (outcome: ToolOutcome) => void = () => {};
let pending: ToolOutcome | undefined;
app.ontoolresult = (result) => {
  pending = result as ToolOutcome;
  publish(pending);
};
app.onhostcontextchanged = (context) => applyContext({ ...app.getHostContext(), ...context });

/** The text of a result that has no rows (an error, a plain message). */
function textOf(outcome: ToolOutcome): string {
  return (outcome.content ?? []).map((block) => block.text ?? '').join('\n');
}

function View({ settings }: { settings: ViewSettings }) {
  const [outcome, setOutcome] = useState<ToolOutcome | undefined>(pending);
  const [detail, setDetail] = useState<{ label: string; outcome: ToolOutcome } | undefined>();
  const [busy, setBusy] = useState('');
  useEffect(() => {
    publish = setOutcome;
  }, []);
  const locale = app.getHostContext()?.locale;
  const run = async (action: Action, row: Row | undefined) => {
    setBusy(`${action.label}…`);
    try {
      const result = (await app.callServerTool({
        name: action.tool,
        arguments: actionArguments(action, row),
      })) as ToolOutcome;
      // A toolbar action (refresh, next page) replaces the rows; a row's action shows its record.
      if (row === undefined && !result.isError) setOutcome(result);
      else setDetail({ label: action.label, outcome: result });
      setBusy('');
    } catch (err) {
      setBusy(`${action.label} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const actions = settings.actions ?? [];
  const rowActions = actions.filter(isRowAction);
  const toolbar = actions.filter((a) => !isRowAction(a));
  if (outcome === undefined) return <p class="muted">Waiting for the result…</p>;
  const rows = rowsOf(outcome.structuredContent, settings.rows);
  const columns = columnsOf(settings, rows);
  return (
    <main>
      <header>
        <h1>{settings.title}</h1>
        {toolbar.map((a) => (
          <button key={a.tool} type="button" onClick={() => run(a, undefined)}>
            {a.label}
          </button>
        ))}
        <span role="status" class="muted">
          {busy}
        </span>
      </header>
      {outcome.isError ? (
        <pre class="error">{textOf(outcome)}</pre>
      ) : outcome.structuredContent === undefined ? (
        <pre>{textOf(outcome)}</pre>
      ) : settings.view === 'card' ? (
        rows[0] !== undefined && <Card columns={columns} row={rows[0]} locale={locale} />
      ) : settings.view === 'chart' && settings.chart !== undefined ? (
        <Chart chart={settings.chart} rows={rows} title={settings.title} />
      ) : (
        <Table
          columns={columns}
          rows={rows}
          pageSize={settings.pageSize ?? 25}
          rowActions={rowActions}
          onAction={run}
          locale={locale}
        />
      )}
      {detail !== undefined && (
        <section class="detail" aria-label={detail.label}>
          <h2>{detail.label}</h2>
          {detail.outcome.isError || detail.outcome.structuredContent === undefined ? (
            <pre>{textOf(detail.outcome)}</pre>
          ) : (
            <DetailCard outcome={detail.outcome} locale={locale} />
          )}
        </section>
      )}
    </main>
  );
}

function DetailCard({ outcome, locale }: { outcome: ToolOutcome; locale?: string }) {
  const row = rowsOf(outcome.structuredContent, undefined)[0];
  if (row === undefined) return <pre>{textOf(outcome)}</pre>;
  return <Card columns={Object.keys(row).map((key) => ({ key }))} row={row} locale={locale} />;
}

const root = document.getElementById('root');
if (root) render(<View settings={settings} />, root);
app.connect().then(
  () => {
    applyContext(app.getHostContext());
    app.setupSizeChangedNotifications();
  },
  (err: unknown) => {
    if (root)
      root.textContent = `Could not connect to the host: ${err instanceof Error ? err.message : String(err)}`;
  },
);
