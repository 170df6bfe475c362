/**
 * The kind registry: every kind by section and name. The core never names a kind; it asks the
 * registry. Registering a name twice is a programming error and throws.
 *
 * The fields every entry of a section has whatever its kind (a tool's `description`, its steps) are
 * handed in by whoever builds the registry (`builtin.ts`); the registry adds them to each kind's
 * schema without knowing what they are.
 */

import type { EntrySection, KindSchemas } from '../manifest/types.js';
import type { PromptKind, ResourceKind, SourceKind, ToolKind } from './contract/kinds.js';
import type { JsonSchema } from './contract/types.js';

interface KindsBySection {
  sources: SourceKind;
  tools: ToolKind;
  resources: ResourceKind;
  prompts: PromptKind;
}

type AnyKind = KindsBySection[EntrySection];

const DEFAULT_KIND: Partial<Record<EntrySection, string>> = { prompts: 'template' };

/** Extra fields by section, added to the schema of every kind of that section. */
export type SectionFields = Partial<Record<EntrySection, Readonly<Record<string, JsonSchema>>>>;

export class KindRegistry implements KindSchemas {
  private readonly bySection: { [S in EntrySection]: Map<string, KindsBySection[S]> } = {
    sources: new Map(),
    tools: new Map(),
    resources: new Map(),
    prompts: new Map(),
  };
  private readonly schemas = new Map<string, JsonSchema>();

  constructor(private readonly common: SectionFields = {}) {}

  register<S extends EntrySection>(section: S, kind: KindsBySection[S]): this {
    const map = this.bySection[section] as Map<string, KindsBySection[S]>;
    if (map.has(kind.kind))
      throw new Error(`KIND_DUPLICATE: ${section} kind "${kind.kind}" is registered twice`);
    map.set(kind.kind, kind);
    return this;
  }

  get<S extends EntrySection>(section: S, name: string): KindsBySection[S] | undefined {
    return (this.bySection[section] as Map<string, KindsBySection[S]>).get(name);
  }

  kinds(section: EntrySection): readonly string[] {
    return [...this.bySection[section].keys()].sort();
  }

  defaultKind(section: EntrySection): string | undefined {
    return DEFAULT_KIND[section];
  }

  /** The kind's own schema plus the section's common fields and `kind` itself; built once. */
  schema(section: EntrySection, name: string): JsonSchema | undefined {
    const key = `${section}/${name}`;
    const cached = this.schemas.get(key);
    if (cached) return cached;
    const kind: AnyKind | undefined = this.get(section, name);
    if (!kind) return undefined;
    const own = kind.configSchema as { properties?: Record<string, JsonSchema>; required?: string[] };
    const schema: JsonSchema = {
      ...kind.configSchema,
      type: 'object',
      description: kind.description,
      properties: {
        kind: { const: name, description: kind.description },
        ...this.common[section],
        ...own.properties,
      },
      required: [...new Set(['kind', ...(own.required ?? [])])],
      additionalProperties: false,
    };
    this.schemas.set(key, schema);
    return schema;
  }
}
