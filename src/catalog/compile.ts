/**
 * compile: a loaded manifest → a Catalog, completely or not at all.
 *
 * Sources open first (in manifest order), then every tool, resource and prompt compiles against
 * them. Every problem from every entry is collected; if there is any, the sources already opened are
 * disposed and one ManifestError lists them all, so a broken edit never yields a partial catalog.
 */
import { type Diagnostic, ManifestError, type Problem, problems, sortByPosition } from '../errors.js';
import type {
  EntryContext,
  EntryPath,
  KindContext,
  Logger,
  OpenedSource,
  SourceCapabilities,
  ToolCommon,
} from '../kinds/contract/kinds.js';
import type { KindRegistry } from '../kinds/registry.js';
import { buildInputSchema } from '../manifest/input-schema.js';
import type { EntryConfig, EntrySection, LoadedManifest } from '../manifest/types.js';
import { entrySteps, withStepInputs } from '../steps/entry.js';
import { guardPrompt } from '../steps/prompt.js';
import type { StepsConfig } from '../steps/schema.js';
import { suggest } from '../util/suggest.js';
import { checkInputKeywords } from './input-keywords.js';
import { createSchemaCompiler } from './schemas.js';
import { guardTool } from './tool.js';
import type {
  Catalog,
  CatalogPrompt,
  CatalogResource,
  CatalogTemplate,
  CatalogTool,
  JsonSchema,
  ServerInfo,
} from './types.js';

const DEFAULT_PAGE_SIZE = 100;

export async function compileCatalog(
  manifest: LoadedManifest,
  registry: KindRegistry,
  log: Logger,
): Promise<Catalog> {
  const diagnostics: Diagnostic[] = [];
  const report = (path: EntryPath, problem: Problem) => diagnostics.push(manifest.diagnose(path, problem));
  const data = manifest.data;

  const watched = new Map<string, string[]>();
  const kindContext = (section: EntrySection, name: string): KindContext => ({
    name,
    baseDir: manifest.baseDir,
    log,
    error: (at, problem) => report([section, name, ...at], problem),
    watch: (path, uri) => {
      const uris = watched.get(path) ?? [];
      if (uri !== undefined && !uris.includes(uri)) uris.push(uri);
      watched.set(path, uris);
    },
  });

  const sources = new Map<string, { kind: string; opened: OpenedSource }>();
  for (const [name, cfg] of entries(data.sources)) {
    const kind = registry.get('sources', cfg.kind);
    const opened = await kind?.open(cfg, kindContext('sources', name));
    if (opened) sources.set(name, { kind: cfg.kind, opened });
  }
  const disposeSources = () => Promise.all([...sources.values()].map((s) => s.opened.dispose()));

  const entryContext = (section: EntrySection, name: string): EntryContext => ({
    ...kindContext(section, name),
    source<K extends keyof SourceCapabilities>(sourceName: string, capability: K, at: EntryPath) {
      const found = sources.get(sourceName);
      if (found) {
        const cap = found.opened.capabilities[capability];
        if (!cap)
          report([section, name, ...at], problems.SOURCE_INCOMPATIBLE(sourceName, found.kind, capability));
        return cap;
      }
      // A declared source that failed to open has its own error already; do not pile on.
      if (!data.sources?.[sourceName]) {
        const known = Object.keys(data.sources ?? {});
        report(
          [section, name, ...at],
          problems.SOURCE_UNKNOWN(sourceName, known, suggest(sourceName, known)),
        );
      }
      return undefined;
    },
  });

  const compileSchema = createSchemaCompiler();
  const tools = new Map<string, CatalogTool>();
  for (const [name, cfg] of entries(data.tools)) {
    const common = cfg as unknown as ToolCommon;
    const ctx = entryContext('tools', name);
    // The interactive steps (roots, ask, confirm, sample): their answers are values the kind may use.
    const steps = entrySteps(common, Object.keys(common.input ?? {}), ctx);
    const compiled = registry.get('tools', cfg.kind)?.compile(withStepInputs(common, 'input', steps), ctx);
    checkInputKeywords(common.input, ['tools', name, 'input'], report);
    // A kind may add arguments of its own and supply a description and outputSchema the manifest left out.
    const inputSchema = buildInputSchema({ ...common.input, ...compiled?.input }) as JsonSchema;
    const validateArgs = tryCompile(compileSchema, inputSchema, ['tools', name, 'input'], report);
    // A tool whose result is the model's reply (a sample after the action) has no structured result.
    const outputSchema = common.outputSchema ?? (steps?.after ? undefined : compiled?.outputSchema);
    const validateOutput = outputSchema
      ? tryCompile(compileSchema, outputSchema, ['tools', name, 'outputSchema'], report)
      : undefined;
    if (!compiled || steps === null || !validateArgs || (outputSchema && !validateOutput)) continue;
    const annotations = { ...compiled.annotations, ...common.annotations };
    const description = common.description ?? compiled.description;
    const descriptor = {
      name,
      ...(common.title !== undefined && { title: common.title }),
      ...(description !== undefined && { description }),
      inputSchema,
      ...(outputSchema !== undefined && { outputSchema }),
      ...(Object.keys(annotations).length > 0 && { annotations }),
    };
    tools.set(name, guardTool(descriptor, compiled, validateArgs, validateOutput, log, steps));
  }

  const resources = new Map<string, CatalogResource>();
  const owners = new Map<string, string>();
  const templates: CatalogTemplate[] = [];
  const resourceLists: NonNullable<Catalog['resourceLists']>[number][] = [];
  for (const [name, cfg] of entries(data.resources)) {
    const compiled = await registry.get('resources', cfg.kind)?.compile(cfg, entryContext('resources', name));
    for (const resource of compiled?.resources ?? []) {
      const uri = resource.descriptor.uri;
      const owner = owners.get(uri);
      if (owner) report(['resources', name], problems.URI_DUPLICATE(uri, `resources.${owner}`));
      else resources.set(uri, resource);
      owners.set(uri, owner ?? name);
    }
    templates.push(...(compiled?.templates ?? []));
    if (compiled?.list) resourceLists.push(compiled.list);
  }

  const prompts = new Map<string, CatalogPrompt>();
  for (const [name, cfg] of entries(data.prompts)) {
    const ctx = entryContext('prompts', name);
    const args = Object.keys((cfg as { arguments?: object }).arguments ?? {});
    const steps = entrySteps(cfg as StepsConfig, args, ctx);
    const kindConfig = withStepInputs(cfg, 'arguments', steps, () => ({ required: false }));
    const prompt = registry.get('prompts', cfg.kind)?.compile(kindConfig, ctx);
    if (prompt && steps !== null) prompts.set(name, steps ? guardPrompt(prompt, steps) : prompt);
  }

  if (diagnostics.length > 0) {
    await disposeSources();
    throw new ManifestError(sortByPosition(diagnostics));
  }

  let disposed: Promise<unknown> | undefined;
  return {
    server: serverInfo(manifest),
    tools,
    resources,
    ...(resourceLists.length > 0 && { resourceLists }),
    templates,
    prompts,
    pageSize: data.server?.pageSize ?? DEFAULT_PAGE_SIZE,
    watched,
    dispose: async () => {
      disposed ??= disposeSources();
      await disposed;
    },
  };
}

function serverInfo(manifest: LoadedManifest): ServerInfo {
  const s = manifest.data.server ?? {};
  return {
    name: s.name ?? 'mcp-run',
    version: s.version ?? '0.0.0',
    ...(s.title !== undefined && { title: s.title }),
    ...(s.description !== undefined && { description: s.description }),
    ...(s.instructions !== undefined && { instructions: s.instructions }),
  };
}

function entries(section: Readonly<Record<string, EntryConfig>> | undefined): [string, EntryConfig][] {
  return Object.entries(section ?? {});
}

function tryCompile<T>(
  compile: (schema: Record<string, unknown>) => T,
  schema: Record<string, unknown>,
  path: EntryPath,
  report: (path: EntryPath, problem: Problem) => void,
): T | undefined {
  try {
    return compile(schema);
  } catch (err) {
    report(path, problems.SCHEMA_INVALID((err as Error).message));
    return undefined;
  }
}
