/** The config schema the network SQL sources (postgres, mysql) share, plus their own fields. */
import type { JsonSchema } from '../contract/types.js';
import { DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_MS } from './defaults.js';

export function networkSourceSchema(example: string, extra: Record<string, JsonSchema> = {}): JsonSchema {
  return {
    type: 'object',
    properties: {
      url: {
        type: 'string',
        minLength: 1,
        description: `Connection URL, e.g. ${example}; write \${env:NAME} to keep the password out of the manifest.`,
      },
      poolSize: {
        type: 'integer',
        minimum: 1,
        maximum: 100,
        default: 5,
        description: 'Connections kept open at most; calls beyond it wait for a free one.',
      },
      timeoutMs: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_TIMEOUT_MS,
        description: 'Default time limit of a query; the server stops a query that runs longer.',
      },
      maxRows: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_MAX_ROWS,
        description: 'Default number of rows a query returns at most; tools may set their own.',
      },
      readOnly: {
        type: 'boolean',
        default: true,
        description:
          'Only reads run (the default): one read statement per call, in a read-only transaction. Set false to let tools that opt in write.',
      },
      allowPrivilegedRole: {
        type: 'boolean',
        default: false,
        description:
          'Serve `sql-query` (SQL the model writes) even though the role can escape read-only (superuser, server-file or signal roles; MySQL FILE, SUPER, PROCESS…). Off by default: the source then refuses such tools and says how to create a least-privilege role.',
      },
      ...extra,
    },
    required: ['url'],
    additionalProperties: false,
  };
}
