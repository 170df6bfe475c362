/**
 * The one list of built-in kinds. Adding a kind is one import and one line here; nothing else in the
 * core names a kind.
 */
import { templatePrompt } from './prompts/template.js';
import { KindRegistry } from './registry.js';
import { directoryResource } from './resources/directory.js';
import { fileResource } from './resources/file.js';
import { sqlResource } from './resources/sql.js';
import { textResource } from './resources/text.js';
import { sqliteSource } from './sources/sqlite.js';
import { sqlTool } from './tools/sql.js';

export function builtinKinds(): KindRegistry {
  return new KindRegistry()
    .register('sources', sqliteSource)
    .register('tools', sqlTool)
    .register('resources', fileResource)
    .register('resources', directoryResource)
    .register('resources', textResource)
    .register('resources', sqlResource)
    .register('prompts', templatePrompt);
}
