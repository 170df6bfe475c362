/**
 * The kind registry: every kind by section and name. The core never names a kind; it asks the
 * registry. Registering a name twice is a programming error and throws.
 */
import { ASK_SCHEMA, STEP_FIELDS } from '../catalog/steps-schema.js';
import type { JsonSchema } from '../catalog/types.js';
import type { EntrySection, KindSchemas } from '../manifest/types.js';
import type { PromptKind, ResourceKind, SourceKind, ToolKind } from './contracts.js';

interface KindsBySection {
  sources: SourceKind;
  tools: ToolKind;
  resources: ResourceKind;
  prompts: PromptKind;
}

type AnyKind = KindsBySection[EntrySection];

/** Fields every tool has, whatever its kind; the catalog compiler handles them. */
const TOOL_COMMON: Record<string, JsonSchema> = {
  title: { type: 'string', description: 'Human-friendly name shown by clients.' },
  description: {
    type: 'string',
    description: 'What the tool does and when to use it; the model reads this to choose the tool.',
  },
  input: {
    type: 'object',
    description:
      'The arguments, as JSON Schema properties by name. Each is required unless it has a `default` or `required: false`.',
    additionalProperties: { type: 'object' },
  },
  outputSchema: {
    type: 'object',
    description: 'JSON Schema that the structured result must satisfy; advertised to clients.',
  },
  annotations: {
    type: 'object',
    description: 'Hints for clients; values declared here override the defaults the kind implies.',
    properties: {
      title: { type: 'string' },
      readOnlyHint: { type: 'boolean', description: 'The tool does not change its environment.' },
      destructiveHint: { type: 'boolean', description: 'The tool may destroy or overwrite data.' },
      idempotentHint: {
        type: 'boolean',
        description: 'Calling it again with the same arguments has no further effect.',
      },
      openWorldHint: {
        type: 'boolean',
        description: 'The tool reaches outside systems (the internet, other services).',
      },
    },
    additionalProperties: false,
  },
  // Interactive steps (roots, ask, confirm, sample), run around the action by the catalog.
  ...STEP_FIELDS,
};

/** Fields every prompt has, whatever its kind: `ask` forms whose answers the messages use. */
const PROMPT_COMMON: Record<string, JsonSchema> = { ask: ASK_SCHEMA };

const DEFAULT_KIND: Partial<Record<EntrySection, string>> = { prompts: 'template' };

export class KindRegistry implements KindSchemas {
  private readonly bySection: { [S in EntrySection]: Map<string, KindsBySection[S]> } = {
    sources: new Map(),
    tools: new Map(),
    resources: new Map(),
    prompts: new Map(),
  };
  private readonly schemas = new Map<string, JsonSchema>();

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
        ...(section === 'tools' ? TOOL_COMMON : section === 'prompts' ? PROMPT_COMMON : {}),
        ...own.properties,
      },
      required: [...new Set(['kind', ...(own.required ?? [])])],
      additionalProperties: false,
    };
    this.schemas.set(key, schema);
    return schema;
  }
}
