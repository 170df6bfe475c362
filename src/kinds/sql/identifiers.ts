/**
 * Identifiers (table and column names) a caller may choose. They cannot be bound like values, so
 * they are spliced into the text, and therefore only ever from a closed list (a declared `enum`, the
 * live table list), quoted the engine's way so that even an odd name stays one identifier.
 */
import type { SqlStatement } from '../contract/kinds.js';

/** Postgres and SQLite: double quotes, a quote inside doubled. */
export function quoteDoubled(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** MySQL and MariaDB: backticks, a backtick inside doubled. */
export function quoteBackticked(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

/**
 * The statement with each identifier parameter replaced by its quoted value; the other parameters
 * stay parameters, in order. `values` must come from the declared enum (the caller checks).
 */
export function bindIdentifiers(
  statement: SqlStatement,
  identifiers: ReadonlySet<string>,
  values: Readonly<Record<string, unknown>>,
  quote: (name: string) => string,
): SqlStatement {
  if (identifiers.size === 0) return statement;
  const segments: string[] = [statement.segments[0] ?? ''];
  const params: string[] = [];
  statement.params.forEach((name, index) => {
    const following = statement.segments[index + 1] ?? '';
    if (identifiers.has(name)) {
      segments[segments.length - 1] += quote(String(values[name])) + following;
    } else {
      params.push(name);
      segments.push(following);
    }
  });
  return { segments, params };
}
