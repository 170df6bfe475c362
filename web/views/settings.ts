/**
 * What a view knows of its tool: the settings catalog/views.ts wrote into the page as JSON, and the
 * rows it finds in a result. Pure code: no DOM beyond reading the settings element.
 */

export interface Column {
  readonly key: string;
  readonly label?: string;
  readonly format?: 'text' | 'number' | 'date' | 'currency' | 'link';
  readonly currency?: string;
}

export interface ChartSettings {
  readonly type: 'bar' | 'line' | 'area' | 'scatter' | 'pie';
  readonly x: string;
  readonly y: string | readonly string[];
  readonly series?: string;
  readonly sort?: 'x' | '-x' | 'y' | '-y';
}

export interface Action {
  readonly tool: string;
  readonly label: string;
  readonly arguments?: Readonly<Record<string, unknown>>;
}

export interface ViewSettings {
  readonly view: 'table' | 'card' | 'chart' | 'chart-vega';
  readonly title: string;
  readonly rows?: string;
  readonly columns?: readonly Column[];
  readonly pageSize?: number;
  readonly chart?: ChartSettings;
  readonly actions?: readonly Action[];
  /** chart-vega: the Vega-Lite spec, without its data. */
  readonly spec?: Readonly<Record<string, unknown>>;
}

export type Row = Readonly<Record<string, unknown>>;

const isRecord = (value: unknown): value is Row =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function readSettings(doc: Document): ViewSettings {
  const text = doc.getElementById('mcp-run-view-config')?.textContent ?? '';
  const parsed: unknown = text === '' ? undefined : JSON.parse(text);
  return isRecord(parsed) ? (parsed as unknown as ViewSettings) : { view: 'table', title: '' };
}

/** The rows of a structured result: the named key, else `rows`, else the first list of objects (as catalog/views.ts). */
export function rowsOf(structured: unknown, key: string | undefined): readonly Row[] {
  if (Array.isArray(structured)) return structured.filter(isRecord);
  if (!isRecord(structured)) return [];
  const pick = (value: unknown) => (Array.isArray(value) ? value.filter(isRecord) : []);
  if (key !== undefined) return pick(structured[key]);
  if (Array.isArray(structured.rows)) return pick(structured.rows);
  for (const value of Object.values(structured))
    if (Array.isArray(value) && value.length > 0 && value.every(isRecord)) return pick(value);
  return [structured];
}

/** The columns shown: the declared ones, else every key of the first rows in order. */
export function columnsOf(settings: ViewSettings, rows: readonly Row[]): readonly Column[] {
  if (settings.columns !== undefined && settings.columns.length > 0) return settings.columns;
  const keys = new Set<string>();
  for (const row of rows.slice(0, 50)) for (const key of Object.keys(row)) keys.add(key);
  return [...keys].map((key) => ({ key }));
}

/** An action's arguments for a row: a value that is exactly `{{field}}` takes that field of the row. */
export function actionArguments(action: Action, row: Row | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(action.arguments ?? {})) {
    const field = typeof value === 'string' ? /^\{\{\s*([^{}\s]+)\s*\}\}$/.exec(value)?.[1] : undefined;
    out[name] = field !== undefined ? row?.[field] : value;
  }
  return out;
}

/** Whether an action takes its arguments from a row (a button on each row) or not (one in the toolbar). */
export function isRowAction(action: Action): boolean {
  return Object.values(action.arguments ?? {}).some((v) => typeof v === 'string' && /^\{\{.*\}\}$/.test(v));
}

/** A value as text for a column's format; never markup (the caller renders it as a text node). */
export function formatValue(value: unknown, column: Column, locale?: string): string {
  if (value === null || value === undefined) return '';
  if (column.format === 'number' && typeof value === 'number') return value.toLocaleString(locale);
  if (column.format === 'currency' && typeof value === 'number')
    return value.toLocaleString(locale, { style: 'currency', currency: column.currency ?? 'USD' });
  if (column.format === 'date' && (typeof value === 'string' || typeof value === 'number')) {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleDateString(locale);
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Only http(s) URLs become links: a `javascript:` value stays text. */
export function safeHref(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Compares two cell values: numbers as numbers, the rest as text; empty last. */
export function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}
