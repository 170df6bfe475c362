/**
 * The second check of a read, by DuckDB's own parser and before anything is bound: the statement is
 * parsed (json_serialize_sql, which parses and never binds, so it touches no file) and must be
 * exactly one SELECT (DuckDB's DESCRIBE, SHOW, SUMMARIZE, FROM … and VALUES are SELECTs). Preparing
 * would be too late for this: DuckDB binds EXPORT DATABASE at prepare time, and makes its folder
 * then. The verdict depends on the text alone, so the last texts' verdicts are kept.
 */
import type { DuckDBConnection } from '@duckdb/node-api';

interface Serialized {
  readonly error?: boolean;
  readonly error_message?: string;
  readonly statements?: readonly unknown[];
}

export class ReadParser {
  private readonly kept = new Map<string, string | undefined>();

  constructor(private readonly max = 500) {}

  /** Why DuckDB's parser does not read `text` as one SELECT, or undefined when it does. */
  async refusal(conn: DuckDBConnection, text: string): Promise<string | undefined> {
    if (this.kept.has(text)) return this.kept.get(text);
    const reader = await conn.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR) AS parsed', [text]);
    const parsed = JSON.parse(String(reader.getRowsJS()[0]?.[0])) as Serialized;
    let reason: string | undefined;
    if (parsed.error) {
      reason = /Only SELECT/i.test(parsed.error_message ?? '')
        ? 'refused by DuckDB: the statement is not a SELECT; only one read (SELECT, FROM …, DESCRIBE, SHOW, SUMMARIZE) runs here'
        : `refused by DuckDB's parser: ${parsed.error_message}`;
    } else if ((parsed.statements ?? []).length !== 1) {
      reason = 'refused by DuckDB: only one statement is allowed';
    }
    if (this.kept.size >= this.max) this.kept.delete(this.kept.keys().next().value as string);
    this.kept.set(text, reason);
    return reason;
  }
}
