/**
 * The kind registry: every kind by section and name. The core never names a kind; it asks the
 * registry. Registering a name twice is a programming error and throws.
 *
 * A kind is registered as its info (name, description, fields: what validation, the JSON Schema and
 * the docs need) and a function that imports the kind itself. The import runs the first time a
 * manifest uses the kind (`load`) and is kept, so a start loads only the kinds its manifest names
 * and the drivers and helpers they import. A kind object (a test's own kind) may also be registered
 * as it is.
 *
 * The fields every entry of a section has whatever its kind (a tool's `description`, its steps) are
 * handed in by whoever builds the registry (`builtin.ts`); the registry adds them to each kind's
 * schema without knowing what they are.
 */

import type { EntrySection, KindSchemas } from '../manifest/types.js';
import type { KindInfo, PromptKind, ResourceKind, SourceKind, ToolKind } from './contract/kinds.js';
import type { JsonSchema } from './contract/types.js';

export interface KindsBySection {
  sources: SourceKind;
  tools: ToolKind;
  resources: ResourceKind;
  prompts: PromptKind;
}

interface Registered<K> {
  readonly info: KindInfo;
  readonly load: () => Promise<K>;
  /** The import, once started; a rejected one stays rejected (a module that failed stays failed). */
  loading?: Promise<K>;
}

const DEFAULT_KIND: Partial<Record<EntrySection, string>> = { prompts: 'template' };

/** Extra fields by section, added to the schema of every kind of that section. */
export type SectionFields = Partial<Record<EntrySection, Readonly<Record<string, JsonSchema>>>>;

export class KindRegistry implements KindSchemas {
  private readonly bySection: { [S in EntrySection]: Map<string, Registered<KindsBySection[S]>> } = {
    sources: new Map(),
    tools: new Map(),
    resources: new Map(),
    prompts: new Map(),
  };
  private readonly schemas = new Map<string, JsonSchema>();

  constructor(private readonly common: SectionFields = {}) {}

  /**
   * Registers a kind by its info and the import of its implementation, whose object must spread that
   * same info (`{ ...contentToolInfo, compile }`); or a kind object as it is, when `load` is left out.
   */
  register<S extends EntrySection>(section: S, kind: KindsBySection[S]): this;
  register<S extends EntrySection>(section: S, info: KindInfo, load: () => Promise<KindsBySection[S]>): this;
  register<S extends EntrySection>(
    section: S,
    info: KindInfo | KindsBySection[S],
    load?: () => Promise<KindsBySection[S]>,
  ): this {
    const map = this.bySection[section] as Map<string, Registered<KindsBySection[S]>>;
    if (map.has(info.kind))
      throw new Error(`KIND_DUPLICATE: ${section} kind "${info.kind}" is registered twice`);
    if (load) map.set(info.kind, { info, load });
    else {
      const loading = Promise.resolve(info as KindsBySection[S]);
      map.set(info.kind, { info, load: () => loading, loading });
    }
    return this;
  }

  /** A kind's name, description and fields, without loading it; undefined for an unknown name. */
  info(section: EntrySection, name: string): KindInfo | undefined {
    return this.bySection[section].get(name)?.info;
  }

  /**
   * The kind itself, imported on first use (once, however many entries and reloads ask); undefined
   * for an unknown name. Rejects when the kind's module fails to load or does not match its info.
   */
  load<S extends EntrySection>(section: S, name: string): Promise<KindsBySection[S] | undefined> {
    const entry = (this.bySection[section] as Map<string, Registered<KindsBySection[S]>>).get(name);
    if (!entry) return Promise.resolve(undefined);
    entry.loading ??= entry.load().then(
      (kind) => {
        // Validation checked the entry against the info's schema: the kind must be the one it describes.
        if (kind.kind !== name || kind.configSchema !== entry.info.configSchema)
          throw new Error(
            `KIND_MISMATCH: the module of ${section} kind "${name}" exports a kind that does not spread its info`,
          );
        return kind;
      },
      (err: unknown) => {
        throw new Error(
          `cannot load ${section} kind "${name}": ${err instanceof Error ? err.message : String(err)}`,
          { cause: err },
        );
      },
    );
    return entry.loading;
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
    const kind = this.info(section, name);
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
