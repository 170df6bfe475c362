/** The card view: one record as labelled fields (a definition list). */

import type { Column, Row } from './settings.js';
import { Cell } from './table.js';

export function Card({ columns, row, locale }: { columns: readonly Column[]; row: Row; locale?: string }) {
  return (
    <dl class="card">
      {columns.map((c) => (
        <div key={c.key} class="field">
          <dt>{c.label ?? c.key}</dt>
          <dd>
            <Cell value={row[c.key]} column={c} locale={locale} />
          </dd>
        </div>
      ))}
    </dl>
  );
}
