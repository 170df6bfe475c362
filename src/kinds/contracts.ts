/**
 * The extension contracts. A kind is one module exporting one plain object that satisfies one of
 * these interfaces; `builtin.ts` registers every built-in kind explicitly. Kinds import only this
 * file, `../catalog/types.ts`, `../errors.ts` and the helpers in `./shared/`, never the protocol or
 * transport code.
 *
 * Lifecycle, once, for all kinds:
 * 1. The manifest pipeline has already validated the entry against `configSchema` (with
 *    `additionalProperties: false`) and resolved `${env:…}` in its string values, so `compile`
 *    receives a well-formed config of type C.
 * 2. `open` (sources) and `compile` (everything else) do all checks and precomputation once:
 *    templates and schemas are compiled here, never per call. They report every problem through
 *    `ctx.error` (with a path relative to the entry) and keep going, so the user sees all errors at
 *    once; returning undefined marks the entry as failed.
 * 3. A catalog is built completely or not at all: when any entry failed, every source already opened
 *    is disposed and the live catalog stays untouched.
 * 4. `dispose` releases what `open` acquired. It must tolerate being called once on a source whose
 *    calls have all finished, and must never throw.
 */
import type {
  CallContext,
  CatalogPrompt,
  CatalogResource,
  CatalogTemplate,
  JsonSchema,
  ToolAnnotations,
  ToolResult,
} from '../catalog/types.js';
import type { Problem } from '../errors.js';

/** A path inside the current entry, e.g. ['sql'] or ['input', 'limit', 'type']. */
export type EntryPath = readonly (string | number)[];

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface KindContext {
  /** The entry's key in its section (the tool, resource, prompt or source name). */
  readonly name: string;
  /** Absolute folder of the manifest; relative paths in the manifest are resolved from here. */
  readonly baseDir: string;
  readonly log: Logger;
  /** Records a problem at a path inside this entry. Compilation goes on to find more. */
  error(at: EntryPath, problem: Problem): void;
}

// ---------------------------------------------------------------------------------------------
// Sources: things with a lifetime (database handles, HTTP pools), shared by several entries.

/** A statement whose `:name` parameters have been found; see shared/sql-params.ts. */
export interface SqlStatement {
  /** The text between parameters: `text = segments[0] + p(0) + segments[1] + … + p(n-1) + segments[n]`. */
  readonly segments: readonly string[];
  /** Parameter names in order of occurrence (a name may repeat). */
  readonly params: readonly string[];
}

export interface SqlQueryOptions {
  /** At most this many rows are returned; `truncated` says whether more existed. */
  readonly maxRows: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

export interface SqlResult {
  readonly columns: readonly string[];
  readonly rows: readonly Record<string, unknown>[];
  readonly truncated: boolean;
  /** For statements that do not return rows. */
  readonly changes?: number;
}

/** The `sql` capability: anything that can run a statement with bound parameters. */
export interface SqlCapability {
  readonly dialect: string;
  readonly readOnly: boolean;
  /** The source's limits, for statements whose entry declares none. */
  readonly defaults: { readonly maxRows: number; readonly timeoutMs: number };
  /**
   * Checks a statement without running it (syntax, unknown tables) and returns the reason when it
   * cannot run. Optional: a source that can only tell by a round trip leaves it out.
   */
  check?(statement: SqlStatement): string | undefined;
  /** Values are bound in `statement.params` order; they are never spliced into the text. */
  query(statement: SqlStatement, values: readonly unknown[], options: SqlQueryOptions): Promise<SqlResult>;
}

/** The capabilities a source can offer; a tool asks for one by name, never for a source kind. */
export interface SourceCapabilities {
  sql: SqlCapability;
}

export interface OpenedSource {
  readonly capabilities: Partial<SourceCapabilities>;
  dispose(): Promise<void>;
}

export interface SourceKind<C = unknown> {
  readonly kind: string;
  readonly description: string;
  readonly configSchema: JsonSchema;
  /** Opens the source (I/O allowed). Report failures with ctx.error and return undefined. */
  open(config: C, ctx: KindContext): Promise<OpenedSource | undefined>;
}

// ---------------------------------------------------------------------------------------------
// Entries: tools, resources, prompts.

export interface EntryContext extends KindContext {
  /**
   * The named source with the capability, or undefined after recording SOURCE_UNKNOWN or
   * SOURCE_INCOMPATIBLE at `at`.
   */
  source<K extends keyof SourceCapabilities>(
    name: string,
    capability: K,
    at: EntryPath,
  ): SourceCapabilities[K] | undefined;
}

/** The fields every tool has, whatever its kind; the catalog compiler handles them. */
export interface ToolCommon {
  readonly kind: string;
  readonly title?: string;
  readonly description?: string;
  /** JSON Schema properties of the arguments; see manifest/input-schema.ts for the rules. */
  readonly input?: Record<string, JsonSchema>;
  readonly outputSchema?: JsonSchema;
  readonly annotations?: ToolAnnotations;
}

export interface CompiledTool {
  /** Annotations this kind implies (a read-only query is readOnlyHint); the manifest's win. */
  readonly annotations?: ToolAnnotations;
  /** Runs with arguments already validated against the input schema, defaults applied. */
  run(args: Readonly<Record<string, unknown>>, ctx: CallContext): Promise<ToolResult>;
}

export interface ToolKind<C extends ToolCommon = ToolCommon> {
  readonly kind: string;
  readonly description: string;
  /** This kind's own fields; the common tool fields are added by the registry. */
  readonly configSchema: JsonSchema;
  compile(config: C, ctx: EntryContext): CompiledTool | undefined;
}

export interface CompiledResources {
  readonly resources: readonly CatalogResource[];
  readonly templates: readonly CatalogTemplate[];
}

export interface ResourceKind<C = unknown> {
  readonly kind: string;
  readonly description: string;
  readonly configSchema: JsonSchema;
  /** May read the file system (to list a folder, to check a path stays inside its root). */
  compile(config: C, ctx: EntryContext): Promise<CompiledResources | undefined>;
}

export interface PromptKind<C = unknown> {
  readonly kind: string;
  readonly description: string;
  readonly configSchema: JsonSchema;
  compile(config: C, ctx: EntryContext): CatalogPrompt | undefined;
}
