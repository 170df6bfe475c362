/**
 * compile: a loaded manifest → a Catalog, completely or not at all.
 *
 * The kinds the manifest names are imported first, together (a kind no entry names is never
 * loaded: kinds/registry.ts). Sources open next (in manifest order), then every tool, resource and
 * prompt compiles against them. Every problem from every entry is collected; if there is any, the sources already opened are
 * disposed and one ManifestError lists them all, so a broken edit never yields a partial catalog.
 *
 * With a manifest loaded with `deferErrors`, its errors are reported with compile's own, and the
 * entries that failed before (their schema, a missing variable) are skipped rather than compiled.
 * Offline, no source is opened: nothing connects, and nothing (a SQLite file from its seed) is created.
 * What kinds log as warnings while compiling goes to `onWarning`, located at the entry, when given.
 *
 * A kind that throws instead of reporting (a `stat` racing a file an editor just deleted) fails its
 * entry like a reported problem, located at the entry. Anything else that throws midway still
 * disposes the sources already opened before it propagates.
 */
import {
  type Diagnostic,
  formatDiagnostic,
  ManifestError,
  type Problem,
  problems,
  sortByPosition,
} from '../errors.js';
import { CallLimits, type LimitsAt } from '../governance/limits/gate.js';
import type { CompiledPolicy, EntryPolicy, PolicyConfig, PolicyField } from '../governance/policy/policy.js';
import type { UiField } from '../kinds/contract/fields.js';
import type { EntryPath, Logger, TaskSupport, ToolCommon } from '../kinds/contract/kinds.js';
import type { StepsConfig } from '../kinds/contract/step-fields.js';
import type { KindRegistry, KindsBySection } from '../kinds/registry.js';
import { buildInputSchema } from '../manifest/input-schema.js';
import {
  ENTRY_SECTIONS,
  type EntryConfig,
  type EntrySection,
  type LoadedManifest,
  type SkillsSection,
} from '../manifest/types.js';
import { createSchemaCompiler, internSchemas } from '../manifest/user-schemas.js';
import { entrySteps, withStepInputs } from '../steps/entry.js';
import { dataFolder } from '../util/data-folder.js';
import { escapeControls } from '../util/escape-controls.js';
import { suggest } from '../util/suggest.js';
import {
  claimArguments,
  claimInputs,
  claimPrompt,
  claimsWithoutAuth,
  claimTemplate,
  claimVariables,
  refuseVerbatimClaims,
  templateNames,
} from './claims.js';
import { resolveDisclosure, toolPlace } from './disclosure.js';
import { CompileScope, type OpenedSources } from './entry-context.js';
import { checkInputKeywords } from './input-keywords.js';
import { addMirrors, type MirroredEntry, mirrorSettings, promptMirror, resourceMirror } from './mirror.js';
import { governPrompt, governResource, governTemplate } from './policy.js';
import { guardPrompt } from './prompt.js';
import { loadSkillFolders } from './skill-folders.js';
import { addToolsetSkills, plannedSkillNames } from './skills-from-toolsets.js';
import { wrapTool } from './tool.js';
import { type ResourceEntryMembers, resolveToolsets, toolsetLimits } from './toolsets.js';
import type {
  Catalog,
  CatalogPrompt,
  CatalogResource,
  CatalogSkill,
  CatalogTemplate,
  CatalogTool,
  JsonSchema,
  ServerInfo,
  SkillsSettings,
  ToolCallContext,
  ToolDescriptor,
  ToolPlace,
  ToolTaskMode,
} from './types.js';
import { checkActions, checkViewFields, compileView, kindView, viewUriSource } from './views.js';

/**
 * Items per list page unless server.pageSize says otherwise: the largest allowed. A full tools/list
 * walk of 1,000 tools took 10 round trips at 100 a page (each costing about as much as serializing
 * the page), Toolbox answers in one, and a client that ignores nextCursor saw only the first 100
 * tools. 1,000 sql tools are about 270 KB of JSON, well within what clients read in one message.
 */
const DEFAULT_PAGE_SIZE = 1000;

export interface CompileOptions {
  /** Open no source: check only what needs no service (and no secret). */
  readonly offline?: boolean;
  /** Receives each warning; without it, warnings go to the log. */
  readonly onWarning?: (warning: Diagnostic) => void;
}

export async function compileCatalog(
  manifest: LoadedManifest,
  registry: KindRegistry,
  log: Logger,
  options: CompileOptions = {},
): Promise<Catalog> {
  const sources: OpenedSources = new Map();
  try {
    return await compileWith(sources, manifest, registry, log, options);
  } catch (err) {
    await disposeAll(sources, log);
    throw err;
  }
}

/** Compiles into `sources` as it opens them; whoever calls it disposes them if it throws. */
async function compileWith(
  sources: OpenedSources,
  manifest: LoadedManifest,
  registry: KindRegistry,
  log: Logger,
  options: CompileOptions,
): Promise<Catalog> {
  const diagnostics: Diagnostic[] = [...(manifest.errors ?? [])];
  const warn = (warning: Diagnostic) =>
    options.onWarning ? options.onWarning(warning) : log.warn(formatDiagnostic(warning));
  for (const warning of manifest.warnings ?? []) warn(warning);
  const { data, baseDir } = manifest;
  // The files the manifest includes and its `${file:…}` secrets shape the catalog: watched, with no
  // resource of their own.
  const watched = new Map<string, string[]>((manifest.includes ?? []).map((file) => [file, []]));
  for (const path of manifest.secretFiles ?? []) watched.set(path, []);
  // Every entry's context (entry-context.ts) reaches the manifest through `scope`, which lets go of
  // it when the compile is over: the contexts outlive it.
  const dataDir = dataFolder(data.server?.name ?? 'mcp-run');
  const scope = new CompileScope(manifest, baseDir, dataDir, log, diagnostics, warn, sources, watched);
  const report = (path: EntryPath, problem: Problem) => scope.report(path, problem);
  /** Runs one kind's open or compile; a throw, sync or async, fails the entry instead of escaping. */
  const guard = async <T>(section: EntrySection, name: string, call: () => T | Promise<T>) => {
    try {
      return await call();
    } catch (err) {
      log.debug(
        `${section}.${name} threw: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
      report([section, name], kindThrew(section, name, err));
      return undefined;
    }
  };
  // What sources add (OpenedSource.entries), once they are open: compiled after the declared ones.
  const contributed = new Map<EntrySection, [string, EntryConfig][]>();
  // Through the scope too: `manifest.skipped` reaches the parsed YAML document.
  const entries = (section: EntrySection): [string, EntryConfig][] => {
    const loaded = scope.manifest;
    const declared = Object.entries(loaded?.data[section] ?? {}).filter(
      ([name]) => !loaded?.skipped?.(section, name),
    );
    const added = contributed.get(section);
    return added === undefined ? declared : [...declared, ...added];
  };

  // The kinds this manifest names, imported together before anything compiles; no other is loaded.
  const kinds = await loadKinds(registry, entries, options.offline === true);

  for (const [name, cfg] of options.offline ? [] : entries('sources')) {
    const kind = kinds.sources.get(cfg.kind);
    const opened = await guard('sources', name, () => kind?.open(cfg, scope.entry('sources', name)));
    if (opened) sources.set(name, { kind: cfg.kind, opened });
  }
  await addContributed(sources, contributed, entries, scope, registry, kinds);

  // Policies (governance/policy/): compiled only when the manifest declares one anywhere, so a
  // manifest without them serves exactly as before, and loads neither their compiler nor CEL.
  const policies = declaresPolicies(data)
    ? new (await import('../governance/policy/compile.js')).PolicyCompiler(
        data.server?.policies as Record<string, PolicyConfig> | undefined,
        (path, problem, needle) => scope.report(path as EntryPath, problem, needle),
        (message) => log.warn(message),
      )
    : undefined;
  /** Each resource entry's and prompt's policy, for its mirror. */
  const entryPolicies = new Map<string, EntryPolicy>();
  const compileSchema = createSchemaCompiler();
  const intern = internSchemas();
  const deriveOutputs = data.server?.outputSchemas === 'derived';
  // The limits per caller a tool's calls count against: the server's, its toolsets', its own. A
  // tool with none of its own shares one object (10,000 tools, one server-wide limit).
  const toolsetLimitsOf = toolsetLimits(data.toolsets);
  const serverLimits: LimitsAt = { at: 'server.limits', limits: data.server?.limits };
  const serverOnly = CallLimits.of([serverLimits]);
  const limitsOf = (tool: string, own: ToolCommon['limits'], entry?: LimitsAt) => {
    const sets = toolsetLimitsOf(tool);
    if (sets.length === 0 && own === undefined && entry?.limits === undefined) return serverOnly;
    return CallLimits.of([serverLimits, ...sets, entry ?? { at: `tools.${tool}.limits`, limits: own }]);
  };
  const tools = new Map<string, CatalogTool>();
  const groups = new Map<string, ToolPlace>();
  // `origin`: a view a kind brought (an upstream's page); one origin's views at one URI are one resource.
  const viewResources: { tool: string; resource: CatalogResource; origin?: string }[] = [];
  for (const [name, cfg] of entries('tools')) {
    groups.set(name, toolPlace(cfg));
    const given = cfg as unknown as ToolCommon & { inputSchema?: JsonSchema };
    const ctx = scope.entry('tools', name);
    const verbatim = given.inputSchema;
    if (verbatim !== undefined && given.input !== undefined)
      report(
        ['tools', name, 'inputSchema'],
        problems.MANIFEST_INVALID_VALUE(
          'either `input:` or `inputSchema:`, not both',
          'keep `input:` for plain arguments, or move them into the `inputSchema` properties',
        ),
      );
    const inputAt: EntryPath = ['tools', name, verbatim === undefined ? 'input' : 'inputSchema'];
    // Claim-bound inputs (`fromClaim`): the kind sees them, the model does not (claims.ts).
    const claims = claimInputs(
      verbatim === undefined ? given.input : undefined,
      inputAt,
      report,
      compileSchema,
    );
    if (verbatim !== undefined) refuseVerbatimClaims(verbatim, inputAt, report);
    if (claims.bindings.length > 0 && data.server?.auth === undefined)
      ctx.log.warn(claimsWithoutAuth('input', claims.bindings, 'every call of this tool is refused'));
    // Kinds (SQL :params, templates) and steps read the argument names from `input`: with a verbatim
    // schema, they are its top-level properties.
    const common: ToolCommon =
      verbatim === undefined
        ? claims.bindings.length === 0
          ? given
          : { ...given, input: claims.kindInput as Record<string, JsonSchema> }
        : { ...given, input: topLevelProperties(verbatim) };
    // The interactive steps (roots, ask, confirm, sample): their answers are values the kind may use.
    const steps = entrySteps(common, Object.keys(common.input ?? {}), ctx);
    const kind = kinds.tools.get(cfg.kind);
    const compiled = await guard('tools', name, () =>
      kind?.compile(withStepInputs(common, 'input', steps), ctx),
    );
    if (verbatim === undefined) checkInputKeywords(common.input, inputAt, report);
    // A kind may add arguments of its own and supply a description and outputSchema the manifest
    // left out, or the whole input schema (an upstream MCP tool's) when the manifest has none.
    const kindSchema =
      verbatim === undefined && given.input === undefined ? compiled?.inputSchema : undefined;
    const wholeSchema = verbatim ?? kindSchema;
    const inputSchema = intern(
      wholeSchema === undefined
        ? (buildInputSchema({ ...claims.shownInput, ...compiled?.input }) as JsonSchema)
        : withKindArguments(wholeSchema, compiled?.input),
    );
    // A verbatim inputSchema meets the meta-schema here; `input:`'s properties did at validation.
    const validateArgs = tryCompile(
      (schema) => compileSchema(schema, wholeSchema === undefined ? 'meta-checked' : undefined),
      inputSchema,
      inputAt,
      report,
    );
    // A tool whose result is the model's reply (a sample after the action) has no structured result.
    // A kind's derived schema is listed only with `server.outputSchemas: derived`: it was two thirds
    // of a sql tool's descriptor, paid for in every tools/list (and by models whose host sends it).
    const derived = deriveOutputs && !steps?.after ? compiled?.outputSchema : undefined;
    const declaredOutput = common.outputSchema ?? derived;
    const outputSchema = declaredOutput === undefined ? undefined : intern(declaredOutput);
    const validateOutput = outputSchema
      ? tryCompile(
          (schema) => compileSchema(schema, 'meta-checked'),
          outputSchema,
          ['tools', name, 'outputSchema'],
          report,
        )
      : undefined;
    // The MCP Apps view (views.ts): its `ui://` resource joins the catalog's after the declared ones.
    // A view the kind brings (an upstream MCP tool's) serves unless the entry declares `ui:`.
    const brought = common.ui === undefined ? compiled?.view : undefined;
    const view =
      common.ui === undefined
        ? brought && kindView(brought)
        : compileView(name, common.title, common.ui, baseDir, report);
    // Offline a query's tool is not compiled: its fields are then left to run time, with a warning.
    if (common.ui !== undefined)
      checkViewFields(name, common.ui, common.outputSchema ?? compiled?.outputSchema, report, (at, message) =>
        scope.warnAt(at, message),
      );
    if (!compiled || steps === null || !validateArgs || (outputSchema && !validateOutput)) continue;
    if (scope.isLeftOut('tools', name)) {
      groups.delete(name);
      continue;
    }
    if (common.ui !== undefined && view === undefined) continue;
    if (view?.resource)
      viewResources.push({ tool: name, resource: view.resource, ...(brought && { origin: brought.origin }) });
    if (view?.file !== undefined && view.resource)
      watched.set(view.file, [...(watched.get(view.file) ?? []), view.resource.descriptor.uri]);
    // The kind's own object when the manifest adds none (the tool keeps `compiled` anyway).
    const annotations =
      common.annotations === undefined
        ? (compiled.annotations ?? {})
        : { ...compiled.annotations, ...common.annotations };
    const description = common.description ?? compiled.description;
    const task = taskMode(common.task, compiled.defaultTaskSupport);
    const descriptor = {
      name,
      ...(common.title !== undefined && { title: common.title }),
      ...(description !== undefined && { description }),
      inputSchema,
      ...(outputSchema !== undefined && { outputSchema }),
      ...(Object.keys(annotations).length > 0 && { annotations }),
      ...(task.support !== 'forbidden' && { execution: { taskSupport: task.support } }),
      ...(view !== undefined && { _meta: view.meta }),
    };
    const maxConcurrency = common.maxConcurrency ?? compiled.defaultConcurrency;
    const policy = policies?.forEntry(
      { name, section: 'tools', annotations: annotations as Readonly<Record<string, unknown>> },
      (cfg as { policy?: PolicyField }).policy,
      inputSchema,
      topLevelDefaults(inputSchema),
    );
    tools.set(
      name,
      wrapTool(
        descriptor,
        compiled,
        {
          validateArgs,
          validateOutput,
          maxConcurrency,
          task,
          claims: claims.bindings,
          limits: limitsOf(name, common.limits),
          ...(policy !== undefined && { policy }),
          ...(view !== undefined && { view: view.view }),
        },
        log,
        steps,
      ),
    );
  }

  // `limits:` of resource entries and prompts, by what the catalog serves (Catalog.entryLimits).
  const entryLimits = new Map<CatalogResource | CatalogTemplate | CatalogPrompt, CallLimits>();
  const entryLimitsOf = (section: 'resources' | 'prompts', name: string, cfg: EntryConfig) =>
    CallLimits.of([{ at: `${section}.${name}.limits`, limits: cfg.limits as ToolCommon['limits'] }]);
  const resources = new Map<string, CatalogResource>();
  const owners = new Map<string, string>();
  /** The source a resource entry reads (its `source:`), by URI: only its own pages are its to serve. */
  const ownerSources = new Map<string, string>();
  const templates: CatalogTemplate[] = [];
  const resourceLists: NonNullable<Catalog['resourceLists']>[number][] = [];
  // Resources and prompts served as tools too (mirror.ts), in manifest order after the declared tools.
  const mirrored: MirroredEntry[] = [];
  const mirrorDefaults = data.server?.mirror;
  // What each resource entry serves, for the toolsets that name it.
  const served = new Map<string, ResourceEntryMembers>();
  for (const [name, cfg] of entries('resources')) {
    const kind = kinds.resources.get(cfg.kind);
    const ctx = scope.entry('resources', name);
    // Claim-bound template variables (`fromClaim`): the kind sees plain variables; reads are bound (claims.ts).
    const declared = (cfg as { variables?: Record<string, object> }).variables;
    const claims = claimVariables(declared, ['resources', name, 'variables'], report);
    if (claims.bindings.length > 0 && data.server?.auth === undefined)
      ctx.log.warn(claimsWithoutAuth('variable', claims.bindings, 'every read of this template is refused'));
    const kindConfig = claims.bindings.length > 0 ? { ...cfg, variables: claims.kindVariables } : cfg;
    const raw = await guard('resources', name, () => kind?.compile(kindConfig, ctx));
    const claimed =
      raw && claims.bindings.length > 0
        ? { ...raw, templates: raw.templates.map((t) => claimTemplate(t, claims.bindings)) }
        : raw;
    const policy = policies?.forEntry(
      { name, section: 'resources', annotations: {} },
      (cfg as { policy?: PolicyField }).policy,
      undefined,
    );
    if (policy !== undefined) entryPolicies.set(`resources\n${name}`, policy);
    const compiled =
      claimed && policy !== undefined
        ? {
            ...claimed,
            resources: claimed.resources.map((r) => governResource(r, policy)),
            templates: claimed.templates.map((t) => governTemplate(t, policy)),
          }
        : claimed;
    // A bound variable no template of the entry has would bind nothing: an error, as some kinds say too.
    for (const { name: variable, claim } of raw ? claims.bindings : [])
      if (!raw?.templates.some((t) => templateNames(t.descriptor.uriTemplate).has(variable)))
        report(
          ['resources', name, 'variables', variable, 'fromClaim'],
          problems.MANIFEST_INVALID_VALUE(
            `variable "${variable}" comes from the "${claim}" claim, but the uri has no {${variable}}`,
            `put {${variable}} in the uri template, or remove the variable`,
          ),
        );
    // Each URI once: one an earlier entry (or this one) serves is an error, and the first keeps it.
    // A page of the form `ui://<prefix>~<source>/` is that source's alone; an entry a source added
    // never takes the URI of a view of the manifest's own (an upstream's list must not fail the load).
    const seen = new Set<string>();
    const source = (cfg as { source?: unknown }).source;
    for (const resource of compiled?.resources ?? []) {
      const uri = resource.descriptor.uri;
      const owner = owners.get(uri) ?? (seen.has(uri) ? name : undefined);
      const reserved = viewUriSource(uri);
      const ownView = scope.isAdded('resources', name)
        ? viewResources.find((v) => v.origin === undefined && v.resource.descriptor.uri === uri)
        : undefined;
      if (owner) report(['resources', name], problems.URI_DUPLICATE(uri, `resources.${owner}`));
      else if (reserved !== undefined && reserved !== source)
        report(['resources', name], problems.URI_DUPLICATE(uri, reservedFor(reserved)));
      else if (ownView !== undefined)
        report(['resources', name], problems.URI_DUPLICATE(uri, `the view of tools.${ownView.tool}`));
      seen.add(uri);
    }
    if (scope.isLeftOut('resources', name)) continue;
    served.set(name, {
      uris: (compiled?.resources ?? []).map((r) => r.descriptor.uri),
      templates: (compiled?.templates ?? []).map((t) => t.descriptor.uriTemplate),
      lists: compiled?.list ? [resourceLists.length] : [],
    });
    const settings = mirrorSettings('resources', name, cfg.mirror, mirrorDefaults);
    // The mirror is built from the entry before its policy: it carries the entry's policy itself.
    const mirror = settings && claimed ? resourceMirror(settings, claimed) : undefined;
    if (mirror) mirrored.push({ section: 'resources', entry: name, given: 'mirror' in cfg, mirror });
    for (const resource of compiled?.resources ?? []) {
      const uri = resource.descriptor.uri;
      if (owners.has(uri)) continue;
      resources.set(uri, resource);
      owners.set(uri, name);
      if (typeof source === 'string') ownerSources.set(uri, source);
    }
    templates.push(...(compiled?.templates ?? []));
    if (compiled?.list) resourceLists.push(compiled.list);
    const limits = entryLimitsOf('resources', name, cfg);
    if (limits !== undefined)
      for (const served of [...(compiled?.resources ?? []), ...(compiled?.templates ?? [])])
        entryLimits.set(served, limits);
  }
  // Against the declared names: offline, or with one tool broken, the others' actions still check.
  const declaredTools = new Set(entries('tools').map(([name]) => name));
  for (const [name, cfg] of entries('tools')) {
    const ui = (cfg as { ui?: UiField }).ui;
    if (ui !== undefined) checkActions(name, ui, declaredTools, report);
  }
  // The tools' views, after the declared resources; a declared resource at a view's URI is an error.
  // An upstream's page at a resource entry's URI is that entry's to serve when the entry reads the
  // same source (so the same page); two tools of one upstream may share a page; a page of the form
  // `ui://<prefix>~<source>/` comes from that source only; any other meeting at one URI is an error.
  const views = new Map<string, string>();
  const viewOwners = new Map<string, { tool: string; origin?: string }>();
  for (const { tool, resource, origin } of viewResources) {
    const uri = resource.descriptor.uri;
    const owner = owners.get(uri);
    const shared = viewOwners.get(uri);
    const reserved = origin === undefined ? undefined : viewUriSource(uri);
    if (reserved !== undefined && reserved !== origin)
      report(['tools', tool], problems.URI_DUPLICATE(uri, reservedFor(reserved)));
    else if (owner && origin === undefined)
      report(['tools', tool, 'ui'], problems.URI_DUPLICATE(uri, `resources.${owner}`));
    else if (owner && ownerSources.get(uri) !== origin)
      report(['tools', tool], problems.URI_DUPLICATE(uri, `resources.${owner}`));
    else if (shared !== undefined && (origin === undefined || shared.origin !== origin))
      report(['tools', tool], problems.URI_DUPLICATE(uri, `the view of tools.${shared.tool}`));
    else {
      if (!owner && shared === undefined) resources.set(uri, resource);
      if (shared === undefined) viewOwners.set(uri, { tool, ...(origin !== undefined && { origin }) });
      views.set(tool, uri);
    }
  }
  // A tool a source added that a problem left out (its view's, above, came after it was compiled)
  // is not served at all: "left out" means absent from tools/list and from every call.
  for (const name of [...tools.keys()])
    if (scope.isLeftOut('tools', name)) {
      tools.delete(name);
      groups.delete(name);
      views.delete(name);
    }

  const prompts = new Map<string, CatalogPrompt>();
  for (const [name, cfg] of entries('prompts')) {
    const ctx = scope.entry('prompts', name);
    const declared = (cfg as { arguments?: Record<string, object> }).arguments;
    // Claim-bound arguments (`fromClaim`): the kind sees them, the client does not (claims.ts).
    const claims = claimArguments(declared, ['prompts', name, 'arguments'], report);
    if (claims.bindings.length > 0 && data.server?.auth === undefined)
      ctx.log.warn(claimsWithoutAuth('argument', claims.bindings, 'every get of this prompt is refused'));
    const steps = entrySteps(cfg as StepsConfig, Object.keys(declared ?? {}), ctx);
    const claimed = claims.bindings.length > 0 ? { ...cfg, arguments: claims.kindArguments } : cfg;
    const kindConfig = withStepInputs(claimed, 'arguments', steps, () => ({ required: false }));
    const kind = kinds.prompts.get(cfg.kind);
    const prompt = await guard('prompts', name, () => kind?.compile(kindConfig, ctx));
    if (!prompt || steps === null || scope.isLeftOut('prompts', name)) continue;
    const guarded = steps ? guardPrompt(prompt, steps) : prompt;
    const served = claims.bindings.length > 0 ? claimPrompt(guarded, claims.bindings) : guarded;
    const policy = policies?.forEntry(
      { name, section: 'prompts', annotations: {} },
      (cfg as { policy?: PolicyField }).policy,
      promptInput(served),
    );
    if (policy !== undefined) entryPolicies.set(`prompts\n${name}`, policy);
    const governed = policy === undefined ? served : governPrompt(served, policy);
    prompts.set(name, governed);
    const limits = entryLimitsOf('prompts', name, cfg);
    if (limits !== undefined) entryLimits.set(governed, limits);
    const settings = mirrorSettings('prompts', name, cfg.mirror, mirrorDefaults);
    if (settings)
      mirrored.push({
        section: 'prompts',
        entry: name,
        given: 'mirror' in cfg,
        mirror: promptMirror(settings, served),
      });
  }

  // A mirror counts against its entry's `limits:` too: reading through it or directly is one count.
  const mirroredFrom = new Map(
    mirrored.map(({ section, entry, mirror }) => [
      mirror,
      { at: `${section}.${entry}.limits`, limits: data[section]?.[entry]?.limits as ToolCommon['limits'] },
    ]),
  );
  // Each mirror is a tool like the declared ones: validated arguments, the call limits, metrics.
  const { targets: mirrors, entries: mirrorEntries } = addMirrors(
    mirrored,
    tools,
    report,
    (mirror, section, entry) => {
      const inputSchema = intern(mirror.inputSchema);
      const descriptor = {
        name: mirror.name,
        ...(mirror.title !== undefined && { title: mirror.title }),
        description: mirror.description,
        inputSchema,
        annotations: mirror.annotations,
      };
      const checks = {
        validateArgs: compileSchema(inputSchema, 'meta-checked'),
        validateOutput: undefined,
        maxConcurrency: undefined,
        task: taskMode(undefined, undefined),
        limits: limitsOf(mirror.name, undefined, mirroredFrom.get(mirror)),
        policy: entryPolicies.get(`${section}\n${entry}`),
      };
      return wrapTool(descriptor, mirror.compiled, checks, log);
    },
  );

  // Skills: the folders' (skill-folders.ts), checked like any entry and reported with the rest.
  const skills = new Map<string, CatalogSkill>();
  /** Serves a skill unless one of its URIs is taken (a resource's, or a skill's of the same name). */
  const addSkill = (skill: CatalogSkill, at: EntryPath) => {
    const taken = skill.files.find((file) => resources.has(file.uri));
    if (taken !== undefined)
      report(at, problems.URI_DUPLICATE(taken.uri, `resources.${owners.get(taken.uri)}`));
    else if (skills.has(skill.name)) report(at, problems.URI_DUPLICATE(skill.uri, 'another skill'));
    else skills.set(skill.name, skill);
  };
  const folderSkills = await loadSkillFolders(data.skills?.folders ?? [], {
    baseDir,
    report: (index, problem) => report(['skills', 'folders', index], problem),
    reportAt: (diagnostic) => diagnostics.push(diagnostic),
    watch: (path, uri) => scope.watch(path, uri),
  });
  for (const skill of folderSkills) addSkill(skill, ['skills', 'folders']);

  const toolsets =
    data.toolsets === undefined
      ? undefined
      : resolveToolsets(
          data.toolsets,
          {
            tools: [...tools.keys()],
            resources: served,
            prompts: [...prompts.keys()],
            skills: [...skills.keys(), ...plannedSkillNames(manifest)],
            mirrors: mirrorEntries,
            views,
          },
          report,
        );
  const toolNames = [...tools.keys()];
  for (const [name, config] of Object.entries(data.toolsets ?? {})) {
    const members = toolsets?.get(name);
    if (config?.catalog !== undefined && members !== undefined)
      toolsets?.set(name, {
        ...members,
        disclosure: resolveDisclosure(config.catalog, toolNames, ['toolsets', name, 'catalog'], report),
      });
  }
  const disclosure =
    data.server?.catalog === undefined
      ? undefined
      : resolveDisclosure(data.server.catalog, toolNames, ['server', 'catalog'], report);
  const defaultToolset = data.server?.defaultToolset;
  if (defaultToolset !== undefined && !toolsets?.has(defaultToolset)) {
    const known = [...(toolsets?.keys() ?? [])];
    report(
      ['server', 'defaultToolset'],
      problems.TOOLSET_UNKNOWN(defaultToolset, known, suggest(defaultToolset, known)),
    );
  }

  // Skills made from toolsets (skills-from-toolsets.ts): from the catalog as its toolsets' clients see it.
  if (data.skills?.fromToolsets !== undefined) {
    const draft: Catalog = {
      server: serverInfo(manifest),
      tools,
      resources,
      templates,
      prompts,
      skills,
      ...(toolsets !== undefined && { toolsets }),
      pageSize: 0,
      dispose: () => Promise.resolve(),
    };
    await addToolsetSkills(manifest, draft, toolsets, {
      report,
      watch: (path, uri) => scope.watch(path, uri),
      add: addSkill,
    });
  }

  const toolsetPolicies = new Map<string, readonly CompiledPolicy[]>();
  // Every toolset, with policies or not: its view binds `toolset` for the entries' own.
  for (const [name, config] of Object.entries(data.toolsets ?? {}))
    if (policies !== undefined)
      toolsetPolicies.set(name, policies.forToolset(name, config.policy as PolicyField | undefined));

  const pageSize = data.server?.pageSize ?? DEFAULT_PAGE_SIZE;
  // compileCatalog disposes the sources opened so far.
  if (diagnostics.length > 0) throw new ManifestError(sortByPosition(diagnostics));
  scope.finish();
  const requestLimit = CallLimits.requests(data.server?.limits?.requests);
  // Search mode's meta-tools (disclosure.ts) are made per served view; they pass the policies that
  // apply to their names server-wide and count against the server's limits, as any tool.
  const governMeta =
    policies === undefined && serverOnly === undefined
      ? undefined
      : (descriptor: ToolDescriptor, call: CatalogTool['call']) =>
          wrapTool(
            descriptor,
            // The wrapper hands the run the call's own context (ToolCallContext: `sees`, `client`).
            { run: (args, ctx) => call(args, ctx as ToolCallContext) },
            {
              // Each meta-tool reads and answers its own arguments (a limit out of range is clamped).
              validateArgs: () => undefined,
              validateOutput: undefined,
              maxConcurrency: undefined,
              task: { support: 'forbidden', steps: 'in-task' },
              limits: serverOnly,
              ...(policies !== undefined && {
                policy: policies.forEntry(
                  {
                    name: descriptor.name,
                    section: 'tools',
                    annotations: (descriptor.annotations ?? {}) as Readonly<Record<string, unknown>>,
                  },
                  undefined,
                  descriptor.inputSchema,
                ),
              }),
            },
            log,
          );

  return {
    server: serverInfo(manifest),
    ...(manifest.data.server?.auth !== undefined && { auth: manifest.data.server.auth }),
    ...(manifest.data.server?.audit != null && { audit: manifest.data.server.audit }),
    tools,
    resources,
    ...(views.size > 0 && { views: new Set(views.values()) }),
    ...(resourceLists.length > 0 && { resourceLists }),
    templates,
    prompts,
    skills,
    ...(data.skills !== undefined && { skillsSettings: skillsSettings(data.skills ?? {}, pageSize) }),
    ...(mirrors.size > 0 && { mirrors }),
    ...(toolsets !== undefined && { toolsets }),
    ...(defaultToolset !== undefined && { defaultToolset }),
    ...(policies !== undefined && {
      policies: {
        toolsets: toolsetPolicies,
        filtersLists:
          [...entryPolicies.values()].some((p) => p.filtersLists) ||
          [...tools.values()].some(
            (t) => (t as { policies?: EntryPolicy }).policies?.filtersLists === true,
          ) ||
          [...toolsetPolicies.values()].some((list) => list.some(readsOnlyTheCaller)),
      },
    }),
    ...(disclosure !== undefined && { disclosure }),
    ...(governMeta !== undefined && { governMeta }),
    groups,
    pageSize,
    ...(entryLimits.size > 0 && { entryLimits }),
    ...(requestLimit !== undefined && { requestLimit }),
    watched,
    ...(manifest.secretFiles?.length ? { secretFiles: new Set(manifest.secretFiles) } : {}),
    ...(manifest.includes?.length && { includes: manifest.includes }),
    ...(data.reload && { reload: data.reload }),
    upstreamChanges: scope.upstreamChanges,
    described: describedBySource(sources),
    dispose: disposeOnce(sources, log),
  };
}

/** What each source's origin says its entries are (OpenedSource.described), for the reloader. */
function describedBySource(sources: OpenedSources): ReadonlyMap<string, ReadonlyMap<string, string>> {
  const out = new Map<string, ReadonlyMap<string, string>>();
  for (const [name, { opened }] of sources) if (opened.described) out.set(name, opened.described);
  return out;
}

/** The extension's settings from `skills:`: directory reads are on unless turned off. */
function skillsSettings(section: SkillsSection, pageSize: number): SkillsSettings {
  return { directoryRead: section.directoryRead ?? true, pageSize: section.pageSize ?? pageSize };
}

/**
 * The catalog's dispose: the sources, disposed once however often it is called. Made out here, as a
 * closure made in compileWith would keep all of compileWith's variables for the catalog's life (V8
 * keeps one context per function for its closures): the schema interning's tables were 6 MB of an
 * imported API's catalog.
 */
function disposeOnce(sources: OpenedSources, log: Logger): () => Promise<void> {
  let disposed: Promise<unknown> | undefined;
  return async () => {
    disposed ??= disposeAll(sources, log);
    await disposed;
  };
}

type LoadedKinds = { [S in EntrySection]: Map<string, KindsBySection[S]> };

/**
 * Takes in the entries the opened sources add (OpenedSource.entries): each is compiled like a
 * declared one of its section. An upstream's lists are outside text, so an added entry never fails
 * the load: one whose name the manifest or an earlier source already uses is left out with a
 * warning (the manifest's entry stays), and so is one with a problem of its own (CompileScope.report).
 * Their kinds are loaded here, after the declared ones: a source that adds `kind: mcp` tools may be
 * the only one to name it.
 */
async function addContributed(
  sources: OpenedSources,
  contributed: Map<EntrySection, [string, EntryConfig][]>,
  entries: (section: EntrySection) => [string, EntryConfig][],
  scope: CompileScope,
  registry: KindRegistry,
  kinds: LoadedKinds,
): Promise<void> {
  const owners = new Map<EntrySection, Map<string, string>>();
  for (const section of ['tools', 'resources', 'prompts'] as const)
    owners.set(
      section,
      new Map(entries(section).map(([name]) => [name, `${section}.${name} of the manifest`])),
    );
  for (const [source, { opened }] of sources)
    for (const section of ['tools', 'resources', 'prompts'] as const) {
      const taken = owners.get(section)!;
      for (const entry of opened.entries?.[section] ?? []) {
        const at: EntryPath = ['sources', source, ...entry.at];
        const origin = contributedOrigin(source, section, entry.config);
        const owner = taken.get(entry.name);
        if (owner !== undefined) {
          scope.warnAt(at, `${origin} is left out: its name "${entry.name}" is taken by ${owner}`);
          continue;
        }
        taken.set(entry.name, `the ${section.slice(0, -1)} ${source} added`);
        const list = contributed.get(section) ?? [];
        list.push([entry.name, entry.config as unknown as EntryConfig]);
        contributed.set(section, list);
        scope.relocate(section, entry.name, at, origin);
        if (!kinds[section].has(entry.config.kind)) {
          const kind = await registry.load(section, entry.config.kind);
          if (kind)
            (kinds[section] as Map<string, KindsBySection[typeof section]>).set(entry.config.kind, kind);
        }
      }
    }
}

/** "source up's tool "x"" for a warning: the upstream's name is data, quoted, cut and escaped. */
function contributedOrigin(
  source: string,
  section: EntrySection,
  config: Readonly<Record<string, unknown>>,
): string {
  const upstream = config.tool ?? config.prompt ?? config.uri ?? config.uriTemplate;
  const what = config.uriTemplate !== undefined ? 'resource template' : section.slice(0, -1);
  const quoted = JSON.stringify(String(upstream)).slice(0, 140);
  return escapeControls(`source ${source}'s ${what} ${quoted}`);
}

/**
 * Imports the kinds the entries name, all at once (unknown names were reported by validation and
 * stay absent). Offline, sources are not opened, so their kinds are not loaded either.
 */
async function loadKinds(
  registry: KindRegistry,
  entries: (section: EntrySection) => [string, EntryConfig][],
  offline: boolean,
): Promise<LoadedKinds> {
  const loaded: LoadedKinds = {
    sources: new Map(),
    tools: new Map(),
    resources: new Map(),
    prompts: new Map(),
  };
  const sections = ENTRY_SECTIONS.filter((section) => !(offline && section === 'sources'));
  await Promise.all(
    sections.flatMap((section) =>
      [...new Set(entries(section).map(([, cfg]) => cfg.kind))].map(async (name) => {
        const kind = await registry.load(section, name);
        if (kind) (loaded[section] as Map<string, KindsBySection[typeof section]>).set(name, kind);
      }),
    ),
  );
  return loaded;
}

/** Disposes every source; one that fails to (the contract says it must not) is logged, not thrown. */
async function disposeAll(sources: OpenedSources, log: Logger): Promise<void> {
  const names = [...sources.keys()];
  const results = await Promise.allSettled([...sources.values()].map((s) => s.opened.dispose()));
  for (const [i, result] of results.entries())
    if (result.status === 'rejected')
      log.warn(`disposing source ${names[i]} failed: ${reason(result.reason)}`);
}

/**
 * The problem for a kind that threw. A source is SOURCE_OPEN_FAILED with the thrown reason; an
 * entry whose file vanished (ENOENT from a `stat` or a read) is PATH_NOT_FOUND with that file's
 * path; anything else keeps the thrown message, which is all there is to go on.
 */
function kindThrew(section: EntrySection, name: string, err: unknown): Problem {
  if (section === 'sources') return problems.SOURCE_OPEN_FAILED(name, reason(err));
  const { code, path } = (err ?? {}) as { code?: unknown; path?: unknown };
  if (code === 'ENOENT' && typeof path === 'string') return problems.PATH_NOT_FOUND(path);
  return problems.MANIFEST_INVALID_VALUE(
    `compiling this entry failed: ${reason(err)}`,
    'if a file it uses was changing, save the manifest again to retry; otherwise the kind has a bug (--log-level debug shows the stack)',
  );
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function serverInfo(manifest: LoadedManifest): ServerInfo {
  const s = manifest.data.server ?? {};
  return {
    name: s.name ?? 'mcp-run',
    version: s.version ?? '0.0.0',
    ...(s.title !== undefined && { title: s.title }),
    ...(s.description !== undefined && { description: s.description }),
    ...(s.instructions !== undefined && { instructions: s.instructions }),
    ...(s.tasks !== undefined && { tasks: s.tasks }),
  };
}

/** A tool's `task` field (string or object form) with the kind's default filled in. */
function taskMode(field: ToolCommon['task'], kindDefault: TaskSupport | undefined): ToolTaskMode {
  const given = typeof field === 'string' ? { support: field } : (field ?? {});
  const support = given.support ?? kindDefault ?? 'forbidden';
  const steps = given.steps ?? 'in-task';
  // Six possible values: one frozen object each rather than one per tool.
  const key = `${support}/${steps}`;
  let mode = TASK_MODES.get(key);
  if (mode === undefined) {
    mode = Object.freeze({ support, steps });
    TASK_MODES.set(key, mode);
  }
  return mode;
}

const TASK_MODES = new Map<string, ToolTaskMode>();

/** Whether the manifest declares a policy anywhere: server-wide, on a toolset or on an entry. */
function declaresPolicies(data: LoadedManifest['data']): boolean {
  if (data.server?.policies !== undefined) return true;
  // With deferred errors, an entry or a toolset may still be any value: only a mapping declares one.
  const declares = (value: unknown) => typeof value === 'object' && value !== null && 'policy' in value;
  if (Object.values(data.toolsets ?? {}).some(declares)) return true;
  return (['tools', 'resources', 'prompts'] as const).some((section) =>
    Object.values(data[section] ?? {}).some(declares),
  );
}

/** Whether a toolset's policy can refuse a caller by claims alone (then lists are filtered). */
function readsOnlyTheCaller(policy: CompiledPolicy): boolean {
  return (
    (policy.allow !== undefined && !policy.allow.readsArgs) ||
    (policy.deny !== undefined && !policy.deny.readsArgs)
  );
}

/** The declared defaults of the top-level arguments, which a policy's `args` sees for absent ones. */
/** Who a `ui://<prefix>~<source>/` URI is reserved for, as URI_DUPLICATE's "served by" (upstream text: quoted, cut). */
function reservedFor(source: string): string {
  return `the views of source ${JSON.stringify(source.slice(0, 64))}, whose form it has`;
}

function topLevelDefaults(schema: JsonSchema): Record<string, unknown> | undefined {
  const defaults: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(topLevelProperties(schema)))
    if (typeof property === 'object' && property !== null && 'default' in property)
      Object.defineProperty(defaults, name, { value: property.default, enumerable: true });
  return Object.keys(defaults).length > 0 ? defaults : undefined;
}

/** A prompt's arguments as an input schema: every argument is a string. */
function promptInput(prompt: CatalogPrompt): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const { name } of prompt.descriptor.arguments ?? [])
    Object.defineProperty(properties, name, { value: { type: 'string' }, enumerable: true });
  return { type: 'object', properties };
}

/** The top-level `properties` of a verbatim input schema: the argument names kinds and steps see. */
function topLevelProperties(schema: JsonSchema): Record<string, JsonSchema> {
  const properties = (schema as { properties?: unknown }).properties;
  return typeof properties === 'object' && properties !== null && !Array.isArray(properties)
    ? (properties as Record<string, JsonSchema>)
    : {};
}

/**
 * A verbatim schema as given, unless the kind adds arguments of its own (a paginated query's
 * cursor) that it does not declare: only then a copy with those properties added, optional.
 */
function withKindArguments(schema: JsonSchema, added: Record<string, object> | undefined): JsonSchema {
  const own = topLevelProperties(schema);
  const missing = Object.entries(added ?? {}).filter(([key]) => !Object.hasOwn(own, key));
  if (missing.length === 0) return schema;
  const extra = Object.fromEntries(
    missing.map(([key, property]) => {
      const { required: _flag, ...rest } = property as Record<string, unknown>;
      return [key, rest];
    }),
  );
  return { ...schema, properties: { ...own, ...extra } };
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
