/**
 * Source kind `mysql`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that opens it, so a manifest that does not use it
 * never loads that code (../../builtin.ts). The kind itself: ./source.ts.
 */

import type { KindInfo } from '../../contract/kinds.js';
import { maxBytesSchema } from '../defaults.js';
import { networkSourceSchema } from '../source-schema.js';

export const mysqlSourceInfo: KindInfo = {
  kind: 'mysql',
  description:
    'A MySQL or MariaDB database (read-only by default), for `sql` tools and `sql-schema` resources.',
  configSchema: networkSourceSchema('mysql://user:password@host:3306/database', { maxBytes: maxBytesSchema }),
};
