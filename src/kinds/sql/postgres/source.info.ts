/**
 * Source kind `postgres`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that opens it, so a manifest that does not use it
 * never loads that code (../../builtin.ts). The kind itself: ./source.ts.
 */

import type { KindInfo } from '../../contract/kinds.js';
import { maxBytesSchema } from '../defaults.js';
import { networkSourceSchema } from '../source-schema.js';

export const postgresSourceInfo: KindInfo = {
  kind: 'postgres',
  description: 'A PostgreSQL database (read-only by default), for `sql` tools and `sql-schema` resources.',
  configSchema: networkSourceSchema('postgres://user:password@host:5432/database', {
    schemas: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      minItems: 1,
      description:
        'The schemas whose tables `sql-schema` and the ready-made tools show, and where unqualified names resolve (default: the search path). With one schema, table names are unqualified; with several, `schema.table`.',
    },
    maxBytes: maxBytesSchema,
    role: {
      type: 'string',
      minLength: 1,
      description:
        'Every call runs as this role (`SET LOCAL ROLE` in its transaction), e.g. a read-only role the login is a member of; the privilege check inspects it rather than the login. It bounds fixed `sql` tools only: SQL the model writes can step back to the login, so `sql-query` is refused here unless `allowSqlQueryWithRole: true`.',
    },
    allowSqlQueryWithRole: {
      type: 'boolean',
      default: false,
      description:
        "Serve `sql-query` on this source although `role:` does not bound it: a function that runs SQL from a string (`query_to_xml`, `ts_stat`, …) can call `set_config('role', 'none', true)`, and what runs after it has the login's rights. The privilege check then inspects the login as well as the role. Off by default: use a login that is itself the reader instead.",
    },
  }),
};
