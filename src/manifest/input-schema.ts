/**
 * The tool inputSchema from the manifest's `input:` map (property name → JSON Schema). Arguments are
 * required by default, as a tool's parameters usually are; a `default` or `required: false` makes
 * one optional. That boolean `required` is manifest shorthand, not JSON Schema, so it is removed.
 */
export function buildInputSchema(input: Record<string, object> | undefined): Record<string, unknown> {
  const properties: Record<string, object> = {};
  const required: string[] = [];
  for (const [name, schema] of Object.entries(input ?? {})) {
    const { required: flag, ...rest } = schema as Record<string, unknown>;
    // An array `required` is standard JSON Schema (for an object argument's own fields): keep it.
    const property = typeof flag === 'boolean' || flag === undefined ? rest : { ...rest, required: flag };
    Object.defineProperty(properties, name, {
      value: property,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    const optional = flag === false || (flag !== true && 'default' in rest);
    if (!optional) required.push(name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}
