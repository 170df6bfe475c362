/** Limits of SQL sources that declare none of their own. */
export const DEFAULT_MAX_ROWS = 500;
export const DEFAULT_TIMEOUT_MS = 5000;
/** Bytes of values one result holds at most (as SQLite's `maxBytes`): 4 MiB. */
export const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

/** The `maxBytes` field of the network SQL sources (postgres, mysql). */
export const maxBytesSchema = {
  type: 'integer',
  minimum: 1,
  default: DEFAULT_MAX_BYTES,
  description:
    'Bytes of values one result holds at most (text and bytea lengths, 8 per number), counted as rows arrive; rows past it are cut, and a first row that alone passes it has its big values cut, with a note.',
} as const;
