import { builtinKinds } from '../kinds/builtin.js';
import { manifestJsonSchema } from '../manifest/json-schema.js';

/** `mcp-run schema`: the manifest JSON Schema, generated from the envelope and every kind. */
export function schemaCommand(): void {
  process.stdout.write(`${JSON.stringify(manifestJsonSchema(builtinKinds()), null, 2)}\n`);
}
