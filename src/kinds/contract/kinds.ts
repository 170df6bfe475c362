/**
 * The extension contracts. A kind is one module exporting one plain object that satisfies one of
 * these interfaces, with a light module beside it holding its KindInfo (name, description, fields);
 * `../builtin.ts` registers every built-in kind explicitly, as its info and the import of its module,
 * so that a start loads only the kinds its manifest uses. A kind imports only this folder (`kinds.ts`, `types.ts`, `results.ts`), its own family's folder, `../shared/`,
 * `../../errors.ts` and `../../util/`; never the catalog, the steps, the protocol or the transports
 * (`npm run lint` checks it).
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

import type { Problem } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { CallSignal } from '../../util/call-signal.js';
import type { UiField } from './fields.js';
import type {
  CallContext,
  CallerIdentity,
  CatalogResource,
  CatalogTemplate,
  CompiledPrompt,
  JsonSchema,
  PromptResult,
  ResourceContents,
  ToolAnnotations,
  ToolResult,
} from './types.js';

/** A path inside the current entry, e.g. ['sql'] or ['input', 'limit', 'type']. */
export type EntryPath = readonly (string | number)[];

export type { Logger } from '../../log.js';

/**
 * What the registry knows of a kind before any manifest uses it: enough to validate an entry, to
 * write the manifest's JSON Schema and to document the kind. It lives in a module of its own
 * (`<kind file>.info.ts`) that imports no more than its schema needs; the kind object (the info
 * spread into it, plus `compile` or `open`) is imported only when a manifest names the kind.
 */
export interface KindInfo {
  /** The value of `kind:` in the manifest. */
  readonly kind: string;
  readonly description: string;
  /** This kind's own fields; the section's common fields (a tool's `input`…) are added by the registry. */
  readonly configSchema: JsonSchema;
}

export interface KindContext {
  /** The entry's key in its section (the tool, resource, prompt or source name). */
  readonly name: string;
  /** Absolute folder of the manifest; relative paths in the manifest are resolved from here. */
  readonly baseDir: string;
  /**
   * Absolute folder for the data files a kind creates (a database made from its seed) when the place
   * the manifest names lies in an installed package, which mcp-run never writes into
   * (util/data-folder.ts: `createdFilePlace`). It may not exist yet: the kind creates it.
   */
  readonly dataDir: string;
  readonly log: Logger;
  /**
   * Whether a call can carry a verified caller (CallContext.identity): the manifest has
   * `server.auth`. Absent: it cannot. A source that needs one (a token exchange) refuses to open without.
   */
  readonly verifiedCallers?: boolean;
  /** Records a problem at a path inside this entry. Compilation goes on to find more. */
  error(at: EntryPath, problem: Problem): void;
  /**
   * Declares a file or folder this entry was built from, so that hot reload watches it: a change
   * recompiles the manifest. With `uri`, the file is the content of that resource, and clients
   * subscribed to the URI are told when it changes.
   */
  watch(path: string, uri?: string): void;
  /**
   * What this entry was built from changed outside any file (an upstream MCP server's
   * `list_changed`): hot reload rebuilds the catalog as for an edit, classifies the change and tells
   * clients what changed in their view. `descriptions: 'refuse'` refuses a reload whose only
   * source of change is this and that changes a served description (a "rug pull"); `report` (the
   * default) logs it. Asked before the catalog serves (while opening), it is dropped: the lists read
   * then are the catalog's.
   */
  changed(reason: string, descriptions?: 'report' | 'refuse'): void;
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
  /** Enforced on the server where the engine can (the query is cancelled there, not abandoned). */
  readonly timeoutMs: number;
  /** Aborting it cancels the query on the server, as a timeout does. */
  readonly signal: CallSignal;
  /**
   * Only one read statement may run (shared/sql-classify.ts), in a read-only transaction. Default:
   * the source's `readOnly`; a read-only source reads whatever this says.
   */
  readonly readOnly?: boolean;
  /** Rows to skip before the first one returned, for continuation pages (default 0). */
  readonly offset?: number;
}

export interface SqlResult {
  /** Unique names: a repeated column name gets a suffix (`id`, `id_2`). */
  readonly columns: readonly string[];
  readonly rows: readonly Record<string, unknown>[];
  readonly truncated: boolean;
  /** For statements that do not return rows. */
  readonly changes?: number;
  /** Why the rows were cut, when it was not `maxRows` (a source's byte budget); shown to the model. */
  readonly note?: string;
}

/** A result column known before the statement runs. */
export interface SqlColumnInfo {
  readonly name: string;
  /** The declared type of the table column it comes from, when it comes from one. */
  readonly type?: string;
}

/** One table or view, as the schema resources and the ready-made tools list it. */
export interface SqlTableSummary {
  /** The name URIs and tools use: `table`, or `schema.table` outside the source's one schema. */
  readonly name: string;
  readonly type: 'table' | 'view';
  readonly columnCount: number;
  /** Exact on SQLite; the engine's estimate on Postgres and MySQL; absent when unknown. */
  readonly rows?: number;
  readonly rowsEstimated: boolean;
  readonly comment?: string;
}

export interface SqlColumnDetail {
  readonly name: string;
  readonly type: string;
  readonly nullable: boolean;
  /** The default as the engine shows it (an expression), absent when there is none. */
  readonly default?: string;
  readonly comment?: string;
}

export interface SqlForeignKey {
  readonly name?: string;
  readonly columns: readonly string[];
  /** The referenced table, named like SqlTableSummary.name. */
  readonly table: string;
  readonly referencedColumns: readonly string[];
  readonly onUpdate?: string;
  readonly onDelete?: string;
}

export interface SqlIndex {
  readonly name: string;
  /** Column names; an expression index shows its expression. */
  readonly columns: readonly string[];
  readonly unique: boolean;
  readonly primary: boolean;
}

export interface SqlTableDetail extends SqlTableSummary {
  readonly columns: readonly SqlColumnDetail[];
  readonly primaryKey: readonly string[];
  readonly foreignKeys: readonly SqlForeignKey[];
  readonly indexes: readonly SqlIndex[];
}

/** Reads the live schema; every call asks the database, so it follows DDL without a reload. */
export interface SqlSchemaReader {
  /** Tables and views, sorted by name (code point order). */
  tables(signal: CallSignal): Promise<readonly SqlTableSummary[]>;
  /** One table or view by its exact listed name; undefined when there is none. */
  describe(name: string, signal: CallSignal): Promise<SqlTableDetail | undefined>;
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
  /**
   * The result columns of a read statement, known without running it, for a derived outputSchema.
   * Undefined for a statement that returns no rows. Optional, like `check`.
   */
  columns?(statement: SqlStatement): readonly SqlColumnInfo[] | undefined;
  /** Values are bound in `statement.params` order; they are never spliced into the text. */
  query(statement: SqlStatement, values: readonly unknown[], options: SqlQueryOptions): Promise<SqlResult>;
  /** Quotes one identifier the engine's way. Callers pass only names from a known list. */
  quoteIdentifier(name: string): string;
  readonly schema: SqlSchemaReader;
}

/** One request to an `http` source. Scheme, host and port are the source's, whatever the path says. */
export interface HttpRequest {
  readonly method: string;
  /** The percent-encoded path below the base URL, starting with `/`; no `?`, `#` or dot segments. */
  readonly path: string;
  /** Query parameters in order (a name may repeat); the source encodes them. */
  readonly query?: readonly (readonly [string, string])[];
  /** Header values must not contain CR, LF or NUL. The source's auth is added after these. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Per-attempt time limit (default: the source's). */
  readonly timeoutMs?: number;
  /** Retries of idempotent methods on 429/502/503/504 or a reset connection (default: the source's). */
  readonly retries?: number;
  readonly signal: CallSignal;
  /**
   * The verified caller, for a source whose auth is a token exchange (RFC 8693): its token is traded
   * for an upstream one, never sent as it is.
   */
  readonly identity?: CallerIdentity;
}

export interface HttpResponse {
  readonly status: number;
  readonly statusText: string;
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** Attempts it took, 1 when nothing was retried. */
  readonly attempts: number;
  /** Why a "try again" answer was not retried (its wait did not fit in the call's timeout), for the model. */
  readonly retryNote?: string;
}

/**
 * The `http` capability: requests to one origin over a keep-alive pool. `request` rejects with an
 * Error whose message is a sentence for the model (timeout, response over the size cap, connection
 * refused, cancelled); any HTTP status, 2xx or not, resolves.
 */
export interface HttpCapability {
  /** The base URL as written (without credentials), for messages. */
  readonly baseUrl: string;
  /** The host is loopback (localhost, 127.0.0.0/8, ::1): requests never leave the machine. */
  readonly loopback: boolean;
  request(request: HttpRequest): Promise<HttpResponse>;
  /** Replaces the source's credentials with `***`; applied to everything returned to the model. */
  redact(text: string): string;
}

/** One entry of an upstream MCP server's lists, as it described itself: data, never trusted. */
export interface UpstreamEntry {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /** Tools: inputSchema, outputSchema, annotations; resources: uri, mimeType; prompts: arguments. */
  readonly [field: string]: unknown;
}

/** What an upstream MCP server listed when its source opened (one read; see kinds/mcp/). */
export interface UpstreamListing {
  readonly tools: readonly UpstreamEntry[];
  readonly resources: readonly UpstreamEntry[];
  /** Resource templates; each has `uriTemplate`. */
  readonly templates: readonly UpstreamEntry[];
  readonly prompts: readonly UpstreamEntry[];
}

/**
 * The `mcp` capability: one upstream MCP server, spoken to by mcp-run's own client. Each method
 * rejects with an Error whose message is a sentence for the model (the upstream is down, did not
 * answer in time, answered with an error); a tool call whose result says `isError` resolves.
 */
export interface McpCapability {
  /** What the upstream listed when the source opened: what `kind: mcp` entries are compiled against. */
  readonly listing: UpstreamListing;
  /**
   * Each caller's calls go through an upstream session of its own (a token exchange): only tools are
   * served, since a resource read or a prompt get carries no caller to this capability.
   */
  readonly perCaller?: boolean;
  callTool(name: string, args: Readonly<Record<string, unknown>>, ctx: CallContext): Promise<ToolResult>;
  readResource(uri: string, signal: AbortSignal): Promise<readonly ResourceContents[]>;
  getPrompt(name: string, args: Readonly<Record<string, string>>, signal: AbortSignal): Promise<PromptResult>;
  /**
   * The URI mcp-run serves one of the upstream's `ui://` views at: rewritten when `expose.tools`
   * gives a prefix (kinds/mcp/views.ts), else the same. Undefined for a URI that is no view's.
   */
  viewUri(upstreamUri: string): string | undefined;
  /** Whether the upstream declared `resources.subscribe`: only then are its resources followed. */
  readonly subscribable: boolean;
  /**
   * Subscribes upstream to `uri` (once per URI, counted across followers; capped per source) and
   * calls `onUpdated` at each of its `notifications/resources/updated` for it. Rejects with a
   * sentence when the upstream refuses or the cap is reached; the function it resolves to releases
   * this follower (the last one unsubscribes upstream).
   */
  follow(uri: string, onUpdated: () => void): Promise<() => void>;
  /**
   * `completion/complete` forwarded upstream (`ref` in the upstream's names), its values bounded
   * and redacted; nothing when the upstream did not declare `completions`.
   */
  complete(
    ref:
      | { readonly type: 'ref/prompt'; readonly name: string }
      | { readonly type: 'ref/resource'; readonly uri: string },
    argument: string,
    value: string,
    context: Readonly<Record<string, string>>,
  ): Promise<readonly string[]>;
  /** Replaces the source's credentials with `***`. */
  redact(text: string): string;
}

/** The capabilities a source can offer; a tool asks for one by name, never for a source kind. */
export interface SourceCapabilities {
  sql: SqlCapability;
  http: HttpCapability;
  mcp: McpCapability;
}

/**
 * An entry a source adds to the catalog as if the manifest declared it (an upstream MCP server's
 * tools, brought in whole by `expose:`). It compiles like a declared entry of its section, through
 * the same kinds, checks and wrappers; its problems are reported at `at`, a path inside the source.
 */
export interface ContributedEntry {
  readonly name: string;
  /** The entry's fields, `kind` included, as a manifest would write them. */
  readonly config: Readonly<Record<string, unknown>> & { readonly kind: string };
  readonly at: EntryPath;
}

/** A source's connection pool right now, for metrics (`mcp-run --metrics`). */
export interface SourcePoolStats {
  /** Connections open, busy or idle. */
  readonly total: number;
  readonly idle: number;
  /** Callers waiting for a connection. */
  readonly waiting: number;
  /** Times the process or session behind the source was started again (an `mcp` source's upstream). */
  readonly restarts?: number;
}

export interface OpenedSource {
  readonly capabilities: Partial<SourceCapabilities>;
  dispose(): Promise<void>;
  /**
   * Optional health check for `/readyz`: one cheap round trip (`SELECT 1`, a HEAD). Resolves when
   * the backend answers; rejects with an Error whose message says why not (credentials redacted).
   */
  ping?(signal: AbortSignal): Promise<void>;
  /** Optional pool figures for metrics; cheap and synchronous. */
  pool?(): SourcePoolStats;
  /**
   * What the source's origin says each entry is, `<category> <name>` → description (an upstream's
   * listing): compared across a reload the source asked for (`changed`), so that a change the
   * manifest's own description hides from clients is still reported.
   */
  readonly described?: ReadonlyMap<string, string>;
  /**
   * Entries this source adds to the catalog (catalog/compile.ts compiles them after the declared
   * ones of their section); a name the manifest declares too is an error at the entry's `at`.
   */
  readonly entries?: {
    readonly tools?: readonly ContributedEntry[];
    readonly resources?: readonly ContributedEntry[];
    readonly prompts?: readonly ContributedEntry[];
  };
}

export interface SourceKind<C = unknown> extends KindInfo {
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
  /** Where browse and search place the tool in a big catalog (catalog/disclosure.ts). */
  readonly group?: string;
  /** JSON Schema properties of the arguments; see manifest/input-schema.ts for the rules. */
  readonly input?: Record<string, JsonSchema>;
  readonly outputSchema?: JsonSchema;
  readonly annotations?: ToolAnnotations;
  /** Calls of this tool running at once; see catalog/tool.ts (default: the kind's). */
  readonly maxConcurrency?: number;
  /** Whether the tool may run as a task (docs/tasks.md); default: the kind's, else forbidden. */
  readonly task?: TaskSupport | { readonly support?: TaskSupport; readonly steps?: 'in-task' | 'before' };
  /** Limits per caller on this tool (governance/limits/). */
  readonly limits?: { readonly calls?: string | readonly string[]; readonly concurrent?: number };
  /** The MCP Apps view of the result (catalog/views.ts). */
  readonly ui?: UiField;
}

export type TaskSupport = 'forbidden' | 'optional' | 'required';

export interface CompiledTool {
  /** Annotations this kind implies (a read-only query is readOnlyHint); the manifest's win. */
  readonly annotations?: ToolAnnotations;
  /** Arguments the kind itself defines (a fixed input, a `cursor`), added after the manifest's. */
  readonly input?: Readonly<Record<string, JsonSchema>>;
  /** The description when the manifest gives none (ready-made tools describe themselves). */
  readonly description?: string;
  /** The outputSchema when the manifest declares none, derived from what the kind knows. */
  readonly outputSchema?: JsonSchema;
  /** `maxConcurrency` when the manifest gives none (a program is costly: shell says 4); default none. */
  readonly defaultConcurrency?: number;
  /** `task` when the manifest gives none: slow work (a program, an HTTP call) says optional. */
  readonly defaultTaskSupport?: TaskSupport;
  /**
   * The whole input schema when the manifest declares neither `input` nor `inputSchema` (an
   * upstream MCP tool's, as read when its source opened); served as a verbatim `inputSchema` is.
   */
  readonly inputSchema?: JsonSchema;
  /**
   * An MCP Apps view the tool brings of its own (an upstream MCP tool's `ui://` page): served as a
   * manifest's `ui:` is (catalog/views.ts), unless the entry declares `ui:`, which wins.
   */
  readonly view?: KindToolView;
  /** Runs with arguments already validated against the input schema, defaults applied. */
  run(args: Readonly<Record<string, unknown>>, ctx: CallContext): Promise<ToolResult>;
}

/** CompiledTool.view. */
export interface KindToolView {
  /** The `ui://` resource; the tool's `_meta.ui.resourceUri` names its URI. Absent: an app-only tool. */
  readonly resource?: CatalogResource;
  /** `_meta.ui.visibility`: without `model`, only views call the tool (hidden from the model). */
  readonly visibility?: readonly ('model' | 'app')[];
  /** Where the view comes from (a source's name): views of one origin at one URI are one resource. */
  readonly origin: string;
}

export interface ToolKind<C extends ToolCommon = ToolCommon> extends KindInfo {
  compile(config: C, ctx: EntryContext): CompiledTool | undefined;
}

export interface CompiledResources {
  readonly resources: readonly CatalogResource[];
  readonly templates: readonly CatalogTemplate[];
  /**
   * Resources whose set follows something live (a database schema), listed at `resources/list`
   * time after the static ones, in a stable order. Each must also be readable through one of
   * `templates`; a failing list is logged and lists nothing.
   */
  readonly list?: (signal: AbortSignal) => Promise<readonly CatalogResource[]>;
}

export interface ResourceKind<C = unknown> extends KindInfo {
  /** May read the file system (to list a folder, to check a path stays inside its root). */
  compile(config: C, ctx: EntryContext): Promise<CompiledResources | undefined>;
}

export interface PromptKind<C = unknown> extends KindInfo {
  compile(config: C, ctx: EntryContext): CompiledPrompt | undefined;
}
