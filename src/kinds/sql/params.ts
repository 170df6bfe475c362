/**
 * Finds the `:name` parameters of a SQL statement, so drivers can bind them as values and never
 * splice them into the text. Quoted text, comments and Postgres `::type` casts are skipped, so a
 * `:word` inside them is not a parameter.
 */
import { problems } from '../../errors.js';
import { suggest } from '../../util/suggest.js';
import type { KindContext, SqlStatement } from '../contract/kinds.js';
import { trackErrors } from '../shared/tracked-context.js';

/** A statement plus the positional placeholders (`?`, `?3`) found outside quotes and comments. */
export interface ParsedSql extends SqlStatement {
  /** Offsets of positional placeholders; the sql tool refuses them (named parameters only). */
  readonly positional: readonly number[];
}

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;

export function parseSqlParams(sql: string): ParsedSql {
  const segments: string[] = [];
  const params: string[] = [];
  const positional: number[] = [];
  let segmentStart = 0;
  let i = 0;
  const n = sql.length;

  /** Index just past the closing `close` (doubled `close` is an escape), or the end of text. */
  const skipQuoted = (from: number, close: string): number => {
    let j = from + 1;
    while (j < n) {
      if (sql[j] === close) {
        if (close !== ']' && sql[j + 1] === close) j += 2;
        else return j + 1;
      } else j++;
    }
    return n;
  };

  while (i < n) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === "'" || c === '"' || c === '`') i = skipQuoted(i, c);
    else if (c === '[') i = skipQuoted(i, ']');
    else if (c === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? n : end + 1;
    } else if (c === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? n : end + 2;
    } else if (c === '$' && !IDENT_PART.test(sql[i - 1] ?? ' ')) {
      i = skipDollarQuoted(sql, i);
    } else if (c === ':' && next === ':') {
      i += 2; // a Postgres cast: x::text
    } else if (c === ':' && next !== undefined && IDENT_START.test(next)) {
      let j = i + 2;
      while (j < n && IDENT_PART.test(sql[j]!)) j++;
      segments.push(sql.slice(segmentStart, i));
      params.push(sql.slice(i + 1, j));
      segmentStart = j;
      i = j;
    } else if (c === '?') {
      positional.push(i);
      i++;
    } else i++;
  }
  segments.push(sql.slice(segmentStart));
  return { segments, params, positional };
}

/** Postgres dollar quoting: `$$…$$` or `$tag$…$tag$`. Anything else (`$1`) is left alone. */
function skipDollarQuoted(sql: string, at: number): number {
  const open = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(at, at + 66));
  if (!open) return at + 1;
  const end = sql.indexOf(open[0], at + open[0].length);
  return end === -1 ? sql.length : end + open[0].length;
}

/** Joins the segments with one placeholder per parameter, e.g. `?` for SQLite, `$n` for Postgres. */
export function renderSql(
  statement: SqlStatement,
  placeholder: (index: number, name: string) => string,
): string {
  let text = statement.segments[0] ?? '';
  statement.params.forEach((name, index) => {
    text += placeholder(index, name) + (statement.segments[index + 1] ?? '');
  });
  return text;
}

/**
 * The statement of an entry's `sql:` field, checked for what every SQL entry requires: named
 * parameters only, each one declared (an input property, a URI variable). Problems are reported at
 * `['sql']`; the result is undefined when there was any.
 */
export function parseDeclaredSql(
  sql: string,
  declared: readonly string[],
  ctx: Pick<KindContext, 'error'>,
): ParsedSql | undefined {
  const statement = parseSqlParams(sql);
  const { ctx: tracked, failed } = trackErrors(ctx);
  if (statement.positional.length > 0) {
    tracked.error(
      ['sql'],
      problems.MANIFEST_INVALID_VALUE(
        'the SQL has a positional placeholder "?"; use named parameters like :name',
        'declare each value and write :name where it goes in the SQL',
      ),
    );
  }
  for (const param of new Set(statement.params)) {
    if (declared.includes(param)) continue;
    tracked.error(['sql'], problems.SQL_PARAM_UNDECLARED(param, declared, suggest(param, declared)));
  }
  return !failed() ? statement : undefined;
}
