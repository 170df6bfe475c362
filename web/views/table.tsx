/** The table view: sortable (click or Enter on a header), filtered by one text box, paged, copied as CSV. */
import { useMemo, useState } from 'preact/hooks';
import { toCsv } from './csv.js';
import { type Action, type Column, compareValues, formatValue, type Row, safeHref } from './settings.js';

interface Props {
  readonly columns: readonly Column[];
  readonly rows: readonly Row[];
  readonly pageSize: number;
  readonly rowActions: readonly Action[];
  readonly onAction: (action: Action, row: Row) => void;
  readonly locale?: string;
}

export function Table({ columns, rows, pageSize, rowActions, onAction, locale }: Props) {
  const [sort, setSort] = useState<{ key: string; dir: 1 | -1 } | undefined>();
  const [filter, setFilter] = useState('');
  const [page, setPage] = useState(0);
  const [copied, setCopied] = useState('');
  const shown = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    const kept =
      needle === ''
        ? [...rows]
        : rows.filter((row) =>
            columns.some((c) => formatValue(row[c.key], c, locale).toLowerCase().includes(needle)),
          );
    if (sort) kept.sort((a, b) => sort.dir * compareValues(a[sort.key], b[sort.key]));
    return kept;
  }, [rows, columns, filter, sort, locale]);
  const pages = Math.max(1, Math.ceil(shown.length / pageSize));
  const current = Math.min(page, pages - 1);
  const visible = shown.slice(current * pageSize, (current + 1) * pageSize);
  const toggle = (key: string) =>
    setSort((s) => (s?.key === key ? (s.dir === 1 ? { key, dir: -1 } : undefined) : { key, dir: 1 }));
  const copy = async () => {
    const csv = toCsv(columns, shown);
    try {
      await navigator.clipboard.writeText(csv);
      setCopied(`Copied ${shown.length} rows as CSV.`);
    } catch {
      setCopied('The host does not allow the clipboard: select the CSV below and copy it.');
      setCsv(csv);
    }
  };
  const [csv, setCsv] = useState<string | undefined>();
  return (
    <div class="table-view">
      <div class="toolbar">
        <input
          type="search"
          aria-label="Filter rows"
          placeholder="Filter"
          value={filter}
          onInput={(e) => {
            setFilter((e.target as HTMLInputElement).value);
            setPage(0);
          }}
        />
        <span class="count" data-testid="count">
          {shown.length === rows.length ? `${rows.length} rows` : `${shown.length} of ${rows.length} rows`}
        </span>
        <button type="button" onClick={copy}>
          Copy CSV
        </button>
        <span role="status">{copied}</span>
      </div>
      {csv !== undefined && <textarea class="csv" readOnly aria-label="CSV" value={csv} />}
      <div class="scroll">
        <table>
          <thead>
            <tr>
              {columns.map((c) => (
                <th
                  key={c.key}
                  scope="col"
                  aria-sort={sort?.key === c.key ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none'}
                >
                  <button type="button" class="sort" onClick={() => toggle(c.key)}>
                    {c.label ?? c.key}
                    <span aria-hidden="true">
                      {sort?.key === c.key ? (sort.dir === 1 ? ' ▲' : ' ▼') : ''}
                    </span>
                  </button>
                </th>
              ))}
              {rowActions.length > 0 && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {visible.map((row, i) => (
              <tr key={current * pageSize + i}>
                {columns.map((c) => (
                  <td
                    key={c.key}
                    class={c.format === 'number' || c.format === 'currency' ? 'num' : undefined}
                  >
                    <Cell value={row[c.key]} column={c} locale={locale} />
                  </td>
                ))}
                {rowActions.length > 0 && (
                  <td>
                    {rowActions.map((a) => (
                      <button key={a.tool} type="button" onClick={() => onAction(a, row)}>
                        {a.label}
                      </button>
                    ))}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {pages > 1 && (
        <nav class="pager" aria-label="Pages">
          <button type="button" disabled={current === 0} onClick={() => setPage(current - 1)}>
            Previous
          </button>
          <span>
            Page {current + 1} of {pages}
          </span>
          <button type="button" disabled={current >= pages - 1} onClick={() => setPage(current + 1)}>
            Next
          </button>
        </nav>
      )}
    </div>
  );
}

/** One value as text; a `link` column's http(s) value as a link whose text is the value. */
export function Cell({ value, column, locale }: { value: unknown; column: Column; locale?: string }) {
  const text = formatValue(value, column, locale);
  const href = column.format === 'link' ? safeHref(value) : undefined;
  return href === undefined ? (
    text
  ) : (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {text}
    </a>
  );
}
