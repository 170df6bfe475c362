/**
 * The full manifest JSON Schema, for editors (yaml-language-server) and `mcp-run schema`: the
 * envelope plus every kind's schema, chosen by `kind` through if/then. The loader does not use it:
 * its two-step validation gives clearer errors than one composed schema can.
 */
import { envelopeSchema } from './envelope.js';
import { isPlainObject } from './finding.js';
import { ENTRY_SECTIONS, type EntrySection, type KindSchemas } from './types.js';

/** The full manifest JSON Schema for editors (yaml-language-server), generated from the envelope plus every kind's schema via if/then on `kind`. Deterministic output (stable key order). */
export function manifestJsonSchema(kinds: KindSchemas): Record<string, unknown> {
  const envelope = envelopeSchema((s) => kinds.defaultKind(s) !== undefined) as Record<string, unknown>;
  const properties = envelope.properties as Record<string, Record<string, unknown>>;
  const definitions: Record<string, object> = {};
  for (const section of ENTRY_SECTIONS) {
    const names = [...kinds.kinds(section)].sort();
    const fallback = kinds.defaultKind(section);
    const rules: object[] = [];
    for (const kind of names) {
      const schema = kinds.schema(section, kind);
      if (!schema) continue;
      const id = `${section}.${kind}`;
      definitions[id] = clone(schema);
      // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword, not a thenable.
      rules.push({ if: { properties: { kind: { const: kind } }, required: ['kind'] }, then: ref(id) });
      if (kind === fallback) {
        // An entry without `kind` is of the default kind, which must then not insist on `kind`.
        const id = `${section}.${kind}.default`;
        definitions[id] = withoutRequiredKind(clone(schema));
        // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword, not a thenable.
        rules.push({ if: { not: { required: ['kind'] } }, then: ref(id) });
      }
    }
    const entry = properties[section]!.additionalProperties as Record<string, unknown>;
    entry.properties = { kind: kindProperty(section, names, fallback) };
    if (rules.length) entry.allOf = rules;
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'mcp-run manifest',
    description: 'One YAML manifest served as an MCP server: sources, tools, resources and prompts.',
    ...envelope,
    definitions,
  };
}

function kindProperty(section: EntrySection, names: readonly string[], fallback: string | undefined): object {
  const defaultNote = fallback ? ` Defaults to ${fallback}.` : '';
  return { type: 'string', enum: names, description: `The ${section} implementation.${defaultNote}` };
}

/** A JSON-pointer reference; `~` and `/` in a kind name are escaped as the pointer syntax requires. */
const ref = (id: string) => ({
  $ref: `#/definitions/${encodeURIComponent(id.replace(/~/g, '~0').replace(/\//g, '~1'))}`,
});

/** A deep copy, so the output never aliases (or lets a caller mutate) a kind's own schema. */
const clone = (schema: object): Record<string, unknown> => JSON.parse(JSON.stringify(schema));

function withoutRequiredKind(schema: Record<string, unknown>): Record<string, unknown> {
  if (isPlainObject(schema) && Array.isArray(schema.required)) {
    schema.required = schema.required.filter((r) => r !== 'kind');
  }
  return schema;
}
