/**
 * The one list of built-in kinds. Adding a kind is one import and one line here; nothing else in the
 * core names a kind.
 */
import { templatePrompt } from './prompts/template.js';
import { KindRegistry } from './registry.js';
import { directoryResource } from './resources/directory.js';
import { fileResource } from './resources/file.js';
import { sqlResource } from './resources/sql.js';
import { sqlSchemaResource } from './resources/sql-schema.js';
import { textResource } from './resources/text.js';
import { httpSource } from './sources/http.js';
import { mysqlSource } from './sources/mysql.js';
import { postgresSource } from './sources/postgres.js';
import { sqliteSource } from './sources/sqlite.js';
import { contentTool } from './tools/content.js';
import { httpTool } from './tools/http.js';
import { shellTool } from './tools/shell.js';
import { sqlTool } from './tools/sql.js';
import { sqlDescribeTableTool } from './tools/sql-describe-table.js';
import { sqlListTablesTool } from './tools/sql-list-tables.js';
import { sqlQueryTool } from './tools/sql-query.js';

export function builtinKinds(): KindRegistry {
  return new KindRegistry()
    .register('sources', sqliteSource)
    .register('sources', postgresSource)
    .register('sources', mysqlSource)
    .register('sources', httpSource)
    .register('tools', sqlTool)
    .register('tools', sqlQueryTool)
    .register('tools', sqlListTablesTool)
    .register('tools', sqlDescribeTableTool)
    .register('tools', httpTool)
    .register('tools', shellTool)
    .register('tools', contentTool)
    .register('resources', fileResource)
    .register('resources', directoryResource)
    .register('resources', textResource)
    .register('resources', sqlResource)
    .register('resources', sqlSchemaResource)
    .register('prompts', templatePrompt);
}
