/**
 * Source kind `sqlite`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that opens it, so a manifest that does not use it
 * never loads that code (../../builtin.ts). The kind itself: ./source.ts.
 */

import type { KindInfo } from '../../contract/kinds.js';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_MS } from '../defaults.js';

export const sqliteSourceInfo: KindInfo = {
  kind: 'sqlite',
  description: 'A SQLite database file (read-only by default), for `sql` tools.',
  configSchema: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description: 'The database file, relative to the manifest folder, or `:memory:`.',
      },
      readOnly: {
        type: 'boolean',
        default: true,
        description: 'Open the database read-only (the default). Set false to let tools write.',
      },
      timeoutMs: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_TIMEOUT_MS,
        description: 'Default time limit of a query, and how long to wait for a locked database.',
      },
      maxRows: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_MAX_ROWS,
        description: 'Default number of rows a query returns at most; tools may set their own.',
      },
      seed: {
        type: 'string',
        minLength: 1,
        description: 'A SQL file run once to create the database when the file at `path` does not exist yet.',
      },
      maxBytes: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_MAX_BYTES,
        description:
          'Bytes of values one result holds at most (text and blob lengths, 8 per number); rows past it are cut, with a note.',
      },
    },
    required: ['path'],
    additionalProperties: false,
  },
};
