import { builtinKinds } from '../kinds/builtin.js';
import { manifestJsonSchema } from '../manifest/json-schema.js';
import { renderReference } from '../manifest/reference.js';

/** `mcp-run schema`: the manifest JSON Schema (or, with --markdown, the reference generated from it). */
export function schemaCommand(options: { markdown?: boolean }): void {
  const schema = manifestJsonSchema(builtinKinds());
  process.stdout.write(options.markdown ? renderReference(schema) : `${JSON.stringify(schema, null, 2)}\n`);
}
