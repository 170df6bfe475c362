/**
 * An API description as the parts of a manifest: one `http` source and one `http` tool per selected
 * operation, plus the comments and warnings that go with them. Tool names are given over all
 * operations before selecting, so an operation keeps its name whatever `--tags` or `--operations`
 * picks (which is what lets a later `--merge` recognise it). What it returns is in manifest form:
 * the document's text is data (`$${` for each `${`, manifest/literal.ts), so the manifest, the
 * record and a later merge all hold the same strings.
 */
import { problems } from '../errors.js';
import { manifestData } from '../manifest/literal.js';
import { parsePathTemplate } from '../util/http-path.js';
import { suggest } from '../util/suggest.js';
import { ImportError, isObj, type Obj, type Spec } from './load.js';
import { envPrefix, serverName, shortApiName, sourceName, toolBaseName, UniqueNames } from './naming.js';
import { listRoutes, type Route, readOperation, routeOf } from './operations.js';
import { RefResolver } from './refs.js';
import { toJsonSchema } from './schema.js';
import { type SourceDraft, serverUrl, sourceDraft } from './source.js';
import { toolDraft } from './tool.js';

export interface ImportOptions {
  /** Import the operations with any of these tags… */
  readonly tags?: readonly string[];
  /** …and these, by operationId or tool name. Neither given: every operation. */
  readonly operations?: readonly string[];
  /** The API's short name: the source name and the prefix of the environment variables. */
  readonly name?: string;
  /** Leave out each tool's outputSchema (the largest part of a big import). Default: written. */
  readonly outputSchema?: boolean;
  /**
   * Write the document's schema components once, under `schemas:`, and reference them from the
   * output schemas (default), instead of inlining them at every use.
   */
  readonly inlineSchemas?: boolean;
  /** Folders besides the document's that file `$ref`s may read (`--allow-ref-dir`). */
  readonly allowRefDirs?: readonly string[];
}

export interface GeneratedTool {
  readonly name: string;
  /** `GET /pets/{petId}` */
  readonly route: string;
  readonly operationId?: string;
  readonly config: Obj;
  readonly notes: readonly string[];
}

export interface Generated {
  readonly title: string;
  readonly apiVersion: string;
  /** `OpenAPI 3.0.0` or `Swagger 2.0`. */
  readonly format: string;
  readonly server: Obj;
  readonly sourceName: string;
  /** The short name the import chose (or `--name`), and whether it was chosen (not given). */
  readonly apiName: string;
  readonly nameDerived: boolean;
  readonly source: SourceDraft;
  readonly tools: readonly GeneratedTool[];
  /** Shared schemas (the components the tools reference), by name; empty when inlined. */
  readonly schemas: Readonly<Record<string, Obj>>;
  /** The tags of each tool (by tool name), for `--split`. */
  readonly tags: ReadonlyMap<string, readonly string[]>;
  /** Operations selected but not imported, with the reason. */
  readonly skipped: readonly string[];
  /** Things to tell the user on stderr (remote refs left out, operations skipped). */
  readonly warnings: readonly string[];
}

export function generate(spec: Spec, options: ImportOptions = {}): Generated {
  const info = isObj(spec.doc.info) ? spec.doc.info : {};
  const title = typeof info.title === 'string' && info.title.trim() ? info.title.trim() : 'API';
  const apiName = options.name ?? shortApiName(serverUrl(spec, [], 'API'), title);
  const prefix = envPrefix(apiName);
  const source = sourceName(apiName);
  const refs = new RefResolver(spec.file, spec.doc, spec.major === 2, options.allowRefDirs);
  const outputs =
    options.outputSchema === false ? 'none' : options.inlineSchemas ? 'inline' : ('shared' as const);
  // The shared schemas in manifest form, converted once each, on first need.
  const converted = new Map<string, Obj>();
  const component = (name: string): Obj | undefined => {
    let schema = converted.get(name);
    if (schema === undefined) {
      const entry = refs.kept.get(name);
      if (!entry) return undefined;
      schema = toJsonSchema(refs.inline(entry.value, entry.file, [entry.key], false, true));
      converted.set(name, schema);
    }
    return schema;
  };
  const lookup = (ref: string) =>
    ref.startsWith('#/schemas/') ? component(ref.slice('#/schemas/'.length)) : undefined;

  const routes = listRoutes(spec, refs);
  if (routes.length === 0) throw new ImportError(problems.OPENAPI_INVALID('its `paths` have no operations'));
  const names = new UniqueNames();
  const named = routes.map((route) => ({
    route,
    name: names.take(toolBaseName(route.operationId, route.method, route.path)),
  }));
  const selected = select(named, options);

  const warnings: string[] = [];
  const skipped: string[] = [];
  const tools: GeneratedTool[] = [];
  const operations = [];
  const tags = new Map<string, readonly string[]>();
  for (const { route, name } of selected) {
    const op = readOperation(route, spec, refs, outputs);
    const reason =
      op.unsupported ??
      pathProblem(op.path) ??
      (op.method === 'TRACE' ? 'TRACE is not an http tool method' : undefined);
    if (reason) {
      skipped.push(`${routeOf(op)} (${reason})`);
      continue;
    }
    operations.push(op);
    const draft = toolDraft(op, source, lookup);
    tags.set(name, route.tags);
    tools.push({
      name,
      route: routeOf(op),
      ...(op.operationId && { operationId: op.operationId }),
      config: manifestData(draft.config),
      notes: draft.notes,
    });
  }
  for (const s of skipped) warnings.push(`not imported: ${s}`);
  // Every component the tools reach, directly or through other components (the map grows as
  // converting one finds the next).
  const schemas: Record<string, Obj> = {};
  for (const name of refs.kept.keys()) schemas[name] = manifestData(component(name)!);
  const drafted = sourceDraft(spec, operations, prefix, refs);
  warnings.push(...new Set(refs.warnings));

  const version =
    typeof info.version === 'string' || typeof info.version === 'number' ? String(info.version) : '';
  const description = typeof info.description === 'string' ? firstParagraph(info.description) : undefined;
  return {
    title,
    apiVersion: version,
    format: spec.major === 2 ? `Swagger ${spec.version}` : `OpenAPI ${spec.version}`,
    server: manifestData({
      name: serverName(apiName),
      ...(version && { version }),
      ...(description && { description }),
    }),
    sourceName: source,
    apiName,
    nameDerived: options.name === undefined,
    source: { ...drafted, config: manifestData(drafted.config) },
    tools,
    schemas,
    tags,
    skipped,
    warnings,
  };
}

interface Named {
  readonly route: Route;
  readonly name: string;
}

/** The operations `--tags` and `--operations` pick (either one matching is enough). */
function select(named: readonly Named[], options: ImportOptions): Named[] {
  const tags = options.tags ?? [];
  const wanted = options.operations ?? [];
  const knownTags = [...new Set(named.flatMap((n) => n.route.tags))];
  for (const tag of tags) {
    if (!knownTags.includes(tag)) {
      throw new ImportError(problems.OPENAPI_UNKNOWN_TAG(tag, knownTags, suggest(tag, knownTags)), 2);
    }
  }
  const ids = named.flatMap((n) => (n.route.operationId ? [n.route.operationId, n.name] : [n.name]));
  for (const id of wanted) {
    if (!ids.includes(id)) {
      const known = named.map((n) => n.route.operationId ?? n.name);
      throw new ImportError(problems.OPENAPI_UNKNOWN_OPERATION(id, known, suggest(id, ids)), 2);
    }
  }
  if (tags.length === 0 && wanted.length === 0) return [...named];
  return named.filter(
    (n) =>
      n.route.tags.some((t) => tags.includes(t)) ||
      wanted.includes(n.name) ||
      (n.route.operationId !== undefined && wanted.includes(n.route.operationId)),
  );
}

/** Why the http tool cannot use this path as written (after its placeholders are renamed). */
function pathProblem(path: string): string | undefined {
  try {
    parsePathTemplate(path.replace(/\{[^{}]*\}/g, '{p}'));
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

function firstParagraph(text: string): string | undefined {
  const first = text
    .trim()
    .split(/\n\s*\n/)[0]
    ?.replace(/\s+/g, ' ')
    .trim();
  if (!first) return undefined;
  return first.length > 300 ? `${first.slice(0, 297).replace(/\s+\S*$/, '')}…` : first;
}
