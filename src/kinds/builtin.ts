/**
 * The one list of built-in kinds. Adding a kind is one import and one line here; nothing else in the
 * core names a kind. This is also where the sections' common fields meet the registry: every tool
 * gets the contract's fields and the interactive steps, every prompt its `ask` forms.
 */

import { ASK_SCHEMA, STEP_FIELDS } from '../steps/schema.js';
import { contentTool } from './content/tool.js';
import { LINT_FIELDS, TOOL_FIELDS } from './contract/fields.js';
import { directoryResource } from './files/directory.js';
import { fileResource } from './files/file.js';
import { textResource } from './files/text.js';
import { httpSource } from './http/source.js';
import { httpTool } from './http/tool.js';
import { templatePrompt } from './prompts/template.js';
import { KindRegistry } from './registry.js';
import { shellTool } from './shell/tool.js';
import { sqlDescribeTableTool } from './sql/describe-table-tool.js';
import { sqlListTablesTool } from './sql/list-tables-tool.js';
import { mysqlSource } from './sql/mysql-source.js';
import { postgresSource } from './sql/postgres-source.js';
import { sqlQueryTool } from './sql/query-tool.js';
import { sqlSchemaResource } from './sql/schema-resource.js';
import { sqlResource } from './sql/sql-resource.js';
import { sqlTool } from './sql/sql-tool.js';
import { sqliteSource } from './sql/sqlite-source.js';

export function builtinKinds(): KindRegistry {
  return new KindRegistry({
    tools: { ...TOOL_FIELDS, ...STEP_FIELDS, ...LINT_FIELDS },
    resources: LINT_FIELDS,
    prompts: { ask: ASK_SCHEMA, ...LINT_FIELDS },
  })
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
