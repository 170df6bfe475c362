/**
 * The `chart-vega` view: a full Vega-Lite spec from the manifest, its data the tool's rows. A page
 * of its own (dist/views/chart-vega.html), as Vega is three times the other views together
 * (docs/apps.md). Vega runs with `ast: true` and vega-interpreter, never `Function`, so a host's
 * CSP without 'unsafe-eval' draws it; it renders SVG, whose text is text nodes.
 */
import { App, applyDocumentTheme, applyHostStyleVariables } from '@modelcontextprotocol/ext-apps';
import { parse, View } from 'vega';
import { expressionInterpreter } from 'vega-interpreter';
import { compile, type TopLevelSpec } from 'vega-lite';
import { readSettings, rowsOf } from './settings.js';

const settings = readSettings(document);
const root = document.getElementById('root') as HTMLElement;
const app = new App({ name: 'mcp-run chart-vega view', version: '1' });
let view: View | undefined;
let last: unknown;

/** Vega's colours from the page's (the host's) theme variables, so axes read in light and dark. */
function themed(): Record<string, unknown> {
  const style = getComputedStyle(document.documentElement);
  const fg = style.getPropertyValue('--fg').trim() || '#1b1f24';
  const border = style.getPropertyValue('--border').trim() || '#d0d7de';
  const labels = { labelColor: fg, titleColor: fg };
  return {
    background: null,
    axis: { ...labels, gridColor: border, domainColor: border, tickColor: border },
    legend: labels,
    title: { color: fg },
    view: { stroke: null },
  };
}

async function draw(structured: unknown): Promise<void> {
  last = structured;
  const given = (settings.spec ?? {}) as Record<string, unknown>;
  const spec = {
    width: 'container',
    ...given,
    data: { values: rowsOf(structured, settings.rows) },
    config: { ...themed(), ...(given.config as object | undefined) },
  } as unknown as TopLevelSpec;
  view?.finalize();
  const runtime = parse(compile(spec).spec, undefined, { ast: true });
  view = new View(runtime, { expr: expressionInterpreter, renderer: 'svg', container: root, hover: true });
  await view.runAsync();
}

function fail(err: unknown): void {
  const message = document.createElement('pre');
  message.className = 'error';
  message.textContent = `The chart failed: ${err instanceof Error ? err.message : String(err)}`;
  root.replaceChildren(message);
}

app.ontoolresult = (result) => {
  if (result.isError || result.structuredContent === undefined) {
    root.textContent = (result.content ?? []).map((b) => ('text' in b ? b.text : '')).join('\n');
    return;
  }
  draw(result.structuredContent).catch(fail);
};
app.onhostcontextchanged = (context) => {
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (last !== undefined) draw(last).catch(fail);
};
app.connect().then(() => {
  const context = app.getHostContext();
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
  app.setupSizeChangedNotifications();
}, fail);
