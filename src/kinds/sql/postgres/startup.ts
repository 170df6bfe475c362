/**
 * A PostgreSQL source's session defaults (statement_timeout, default_transaction_read_only,
 * standard_conforming_strings, the search path) as the `options` startup parameter of each pool
 * connection, so that a read-only call begins with a plain BEGIN, and one whose limits are those
 * defaults needs no `set_config` step (source.ts).
 *
 * The options are a convenience, never trusted blindly: a pooler may drop them (PgBouncer with
 * `ignore_startup_parameters = options`) or refuse them (`unsupported startup parameter`), so each
 * new connection is checked once (`inForce`), and a connection where they are not in force keeps
 * the step. The server reads `options` as libpq does: words split at white space, a backslash
 * taking the next character as it is.
 */

/** The name and value of each setting, as `SET` would take them. */
export type StartupSettings = readonly (readonly [name: string, value: string])[];

/**
 * Options this long are not sent (the server refuses a startup packet past 10,000 bytes): the
 * connection then keeps the step.
 */
const MAX_OPTIONS = 4096;

/** `-c name=value` for each setting, spaces and backslashes escaped. */
export function startupOptions(settings: StartupSettings): string | undefined {
  const text = settings.map(([name, value]) => `-c ${name}=${escapeOption(value)}`).join(' ');
  return text.length <= MAX_OPTIONS ? text : undefined;
}

/** A value as one word of `options`: the server's pg_split_opts splits at isspace. */
export function escapeOption(value: string): string {
  return value.replace(/[ \t\n\v\f\r\\]/g, (c) => `\\${c}`);
}

/**
 * The user's options (from the URL or PGOPTIONS) first, then ours: `-c` given twice takes the last,
 * so the source's defaults win, as its per-call settings always did. Options that end in a lone
 * backslash would swallow the space before ours; they are kept as they are (and the step with them).
 */
export function mergeOptions(theirs: string | undefined, ours: string): string {
  if (!theirs?.trim()) return ours;
  const trailing = /\\*$/.exec(theirs)![0].length;
  return trailing % 2 === 1 ? theirs : `${theirs} ${ours}`;
}

/**
 * One row, `ok`: every setting has its value on this connection. pg_settings shows
 * statement_timeout in milliseconds, whatever unit it was written in.
 */
export function inForceQuery(settings: StartupSettings): { text: string; values: [string[], string[]] } {
  return {
    text: `SELECT count(*) = ${settings.length} AS ok FROM pg_settings s
      JOIN unnest($1::text[], $2::text[]) AS d(name, value) ON s.name = d.name AND s.setting = d.value`,
    values: [settings.map(([name]) => name), settings.map(([, value]) => value)],
  };
}

/** The server (or a pooler in front of it) refused the `options` startup parameter. */
export function refusesOptions(err: unknown): boolean {
  const { code, message } = err as { code?: string; message?: string };
  return code === '08P01' && /startup parameter/i.test(message ?? '');
}
