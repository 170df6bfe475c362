/**
 * The one list of built-in kinds. Adding a kind is one import (its info) and one line here (the info
 * and the import of its module); nothing else in the core names a kind. A kind's module is imported
 * only when a manifest uses it (registry.ts), so these lines name it twice: statically for its info,
 * dynamically for its code. This is also where the sections' common fields meet the registry: every
 * tool gets the contract's fields and the interactive steps, every prompt its `ask` forms.
 */

import { contentToolInfo } from './content/tool.info.js';
import {
  LINT_FIELDS,
  MIRROR_FIELDS,
  POLICY_FIELDS,
  PROMPT_LIMITS_FIELDS,
  READ_LIMITS_FIELDS,
  TOOL_FIELDS,
  UI_FIELD,
} from './contract/fields.js';
import { ASK_SCHEMA, STEP_FIELDS } from './contract/step-fields.js';
import { directoryResourceInfo } from './files/directory.info.js';
import { fileResourceInfo } from './files/file.info.js';
import { textResourceInfo } from './files/text.info.js';
import { httpSourceInfo } from './http/source.info.js';
import { httpToolInfo } from './http/tool.info.js';
import { mcpPromptInfo } from './mcp/prompt.info.js';
import { mcpResourceInfo } from './mcp/resource.info.js';
import { mcpSourceInfo } from './mcp/source.info.js';
import { mcpToolInfo } from './mcp/tool.info.js';
import { templatePromptInfo } from './prompts/template.info.js';
import { KindRegistry } from './registry.js';
import { shellToolInfo } from './shell/tool.info.js';
import { sqlDescribeTableToolInfo } from './sql/describe-table-tool.info.js';
import { duckdbSourceInfo } from './sql/duckdb/source.info.js';
import { sqlListTablesToolInfo } from './sql/list-tables-tool.info.js';
import { mysqlSourceInfo } from './sql/mysql/source.info.js';
import { postgresSourceInfo } from './sql/postgres/source.info.js';
import { sqlQueryToolInfo } from './sql/query-tool.info.js';
import { sqlSchemaResourceInfo } from './sql/schema-resource.info.js';
import { sqlResourceInfo } from './sql/sql-resource.info.js';
import { sqlToolInfo } from './sql/sql-tool.info.js';
import { sqliteSourceInfo } from './sql/sqlite/source.info.js';

export function builtinKinds(): KindRegistry {
  return new KindRegistry({
    tools: { ...TOOL_FIELDS, ...UI_FIELD, ...STEP_FIELDS, ...LINT_FIELDS, ...POLICY_FIELDS },
    resources: { ...LINT_FIELDS, ...MIRROR_FIELDS, ...READ_LIMITS_FIELDS, ...POLICY_FIELDS },
    prompts: { ask: ASK_SCHEMA, ...LINT_FIELDS, ...MIRROR_FIELDS, ...PROMPT_LIMITS_FIELDS, ...POLICY_FIELDS },
  })
    .register('sources', sqliteSourceInfo, async () => (await import('./sql/sqlite/source.js')).sqliteSource)
    .register(
      'sources',
      postgresSourceInfo,
      async () => (await import('./sql/postgres/source.js')).postgresSource,
    )
    .register('sources', mysqlSourceInfo, async () => (await import('./sql/mysql/source.js')).mysqlSource)
    .register('sources', duckdbSourceInfo, async () => (await import('./sql/duckdb/source.js')).duckdbSource)
    .register('sources', httpSourceInfo, async () => (await import('./http/source.js')).httpSource)
    .register('sources', mcpSourceInfo, async () => (await import('./mcp/source.js')).mcpSource)
    .register('tools', mcpToolInfo, async () => (await import('./mcp/tool.js')).mcpTool)
    .register('resources', mcpResourceInfo, async () => (await import('./mcp/resource.js')).mcpResource)
    .register('prompts', mcpPromptInfo, async () => (await import('./mcp/prompt.js')).mcpPrompt)
    .register('tools', sqlToolInfo, async () => (await import('./sql/sql-tool.js')).sqlTool)
    .register('tools', sqlQueryToolInfo, async () => (await import('./sql/query-tool.js')).sqlQueryTool)
    .register(
      'tools',
      sqlListTablesToolInfo,
      async () => (await import('./sql/list-tables-tool.js')).sqlListTablesTool,
    )
    .register(
      'tools',
      sqlDescribeTableToolInfo,
      async () => (await import('./sql/describe-table-tool.js')).sqlDescribeTableTool,
    )
    .register('tools', httpToolInfo, async () => (await import('./http/tool.js')).httpTool)
    .register('tools', shellToolInfo, async () => (await import('./shell/tool.js')).shellTool)
    .register('tools', contentToolInfo, async () => (await import('./content/tool.js')).contentTool)
    .register('resources', fileResourceInfo, async () => (await import('./files/file.js')).fileResource)
    .register(
      'resources',
      directoryResourceInfo,
      async () => (await import('./files/directory.js')).directoryResource,
    )
    .register('resources', textResourceInfo, async () => (await import('./files/text.js')).textResource)
    .register('resources', sqlResourceInfo, async () => (await import('./sql/sql-resource.js')).sqlResource)
    .register(
      'resources',
      sqlSchemaResourceInfo,
      async () => (await import('./sql/schema-resource.js')).sqlSchemaResource,
    )
    .register(
      'prompts',
      templatePromptInfo,
      async () => (await import('./prompts/template.js')).templatePrompt,
    );
}
