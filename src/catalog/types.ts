/**
 * The catalog: the one meeting point of the manifest side and the protocol side.
 *
 * Everything here is immutable once compiled. The protocol core reads `CatalogRef.current` at the
 * start of each request and keeps that catalog for the whole request, so a reload (an atomic swap of
 * the reference) never changes what an in-flight call sees. Nothing in this file knows YAML, and
 * nothing in it knows JSON-RPC.
 */

import type {
  ArgumentHint,
  CallContext,
  CallerIdentity,
  CatalogResource,
  CatalogTemplate,
  PromptDescriptor,
  PromptResult,
  ToolDescriptor,
  ToolResult,
} from '../kinds/contract/types.js';
import type { ReloadSection, ServerAuthSection } from '../manifest/types.js';
import type { Interaction } from '../steps/interaction.js';
import type { TaskSettings } from '../tasks/types.js';

export type {
  ArgumentHint,
  CallContext,
  CallerIdentity,
  CatalogResource,
  CatalogTemplate,
  ContentBlock,
  JsonSchema,
  LogLevel,
  PromptArgumentDescriptor,
  PromptDescriptor,
  PromptMessage,
  PromptResult,
  ResourceContents,
  ResourceDescriptor,
  ResourceTemplateDescriptor,
  ToolAnnotations,
  ToolDescriptor,
  ToolResult,
} from '../kinds/contract/types.js';
export { InvalidRequestParams, LOG_LEVELS, ResourceNotFound } from '../kinds/contract/types.js';

export interface ServerInfo {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  readonly description?: string;
  /** Guidance for the model, sent in the initialize / discover result. */
  readonly instructions?: string;
  /** `server.tasks`: the task limits (src/tasks/types.ts). */
  readonly tasks?: TaskSettings;
}

/**
 * A call's context as the core gives it: the kind's context, plus how to ask the client
 * (the user, its model, its roots) in whichever way this request's era allows; the step engine
 * uses it for the manifest's `roots`/`ask`/`confirm`/`sample`. Absent where nothing can be asked
 * (then those steps end the call with an error).
 */
export interface ToolCallContext extends CallContext {
  readonly interaction?: Interaction;
}

/**
 * How a tool runs as a task: `support` as `execution.taskSupport` says it (2025-11-25), and whether
 * its interactive steps are asked on the call itself before the task starts (2026 MRTR, `before`)
 * or inside the task (`input_required`, the default).
 */
export interface ToolTaskMode {
  readonly support: 'forbidden' | 'optional' | 'required';
  readonly steps: 'in-task' | 'before';
}

/** What the protocol side needs of a tool's view at list and call time. */
/** catalog/views.ts */
export interface ToolView {
  /** `visibility: [app]`: only views call it; the model (and a client without views) never sees it. */
  readonly appOnly: boolean;
  /** Shorten the model's text to the row count, the columns and the first rows. */
  readonly compact: boolean;
  /** The structuredContent key of the rows (default: `rows`, else the first list of objects). */
  readonly rows?: string;
  /** How the compact text names the view: `table`, `chart`, `card`, `view`. */
  readonly label: string;
}

export interface CatalogTool {
  readonly descriptor: ToolDescriptor;
  /** Absent: never a task (as `support: forbidden`). */
  readonly task?: ToolTaskMode;
  /** Its MCP Apps view (views.ts): app-only, and how the model's text is shortened. */
  readonly view?: ToolView;
  /**
   * Validates the arguments against the input schema (applying declared defaults) and runs the
   * tool. Failures the model can act on (bad arguments, a failing query) come back as a result
   * with `isError: true`; only a bug in mcp-run itself may throw.
   */
  call(args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolResult>;
}

/** Who gets a prompt: what the core knows of the request beyond its arguments. */
export interface PromptCaller {
  readonly interaction?: Interaction;
  readonly identity?: CallerIdentity;
}

export interface CatalogPrompt {
  readonly descriptor: PromptDescriptor;
  /** The arguments' fixed value lists, by name (kinds/contract/types.ts). */
  readonly argumentHints?: Readonly<Record<string, ArgumentHint>>;
  /**
   * Throws InvalidRequestParams for a missing required argument. `caller` is who asks (kinds
   * themselves never see it): how the client answers the prompt's `ask` forms (catalog/prompt.ts),
   * and the verified identity its claim-bound arguments come from (claims.ts).
   */
  get(
    args: Readonly<Record<string, string>>,
    signal: AbortSignal,
    caller?: PromptCaller,
  ): Promise<PromptResult>;
  complete(
    argument: string,
    prefix: string,
    context: Readonly<Record<string, string>>,
  ): Promise<readonly string[]>;
}

/** The three listed categories of a catalog; a reload's diff and the list_changed notices use them. */
export type ListCategory = 'tools' | 'prompts' | 'resources';

/**
 * What a mirrored tool (catalog/mirror.ts) stands for: the scopes of these resources (URIs and
 * uriTemplates) or of this prompt apply to it.
 */
export interface MirrorTarget {
  readonly resources?: readonly string[];
  readonly prompt?: string;
}

/** One toolset's members (catalog/toolsets.ts): tool and prompt names, resource URIs and uriTemplates. */
export interface ToolsetMembers {
  readonly tools: ReadonlySet<string>;
  readonly resources: ReadonlySet<string>;
  readonly templates: ReadonlySet<string>;
  /** The resource entries (manifest names) the URIs, templates and lists above come from. */
  readonly resourceEntries: ReadonlySet<string>;
  /** Indexes into the catalog's resourceLists. */
  readonly lists: ReadonlySet<number>;
  readonly prompts: ReadonlySet<string>;
  /** Scopes a token needs on this toolset's HTTP endpoint. */
  readonly scopes?: readonly string[];
}

/** The compiled, immutable result of one manifest. Maps keep manifest order. */
export interface Catalog {
  readonly server: ServerInfo;
  /** `server.auth`: the OAuth resource server settings, which the HTTP transport reads at start. */
  readonly auth?: ServerAuthSection;
  readonly tools: ReadonlyMap<string, CatalogTool>;
  /** Static resources by URI. */
  readonly resources: ReadonlyMap<string, CatalogResource>;
  /** The URIs among `resources` that are tools' MCP Apps views (views.ts): listed only to clients with views. */
  readonly views?: ReadonlySet<string>;
  /**
   * Live resource sets (a database's tables), listed after the static resources, in manifest
   * order; their resources are read through `templates`.
   */
  readonly resourceLists?: readonly ((signal: AbortSignal) => Promise<readonly CatalogResource[]>)[];
  readonly templates: readonly CatalogTemplate[];
  readonly prompts: ReadonlyMap<string, CatalogPrompt>;
  /**
   * The tools that mirror a resource entry or a prompt (catalog/mirror.ts), by tool name, with what
   * they mirror: the scopes of that apply to the tool.
   */
  readonly mirrors?: ReadonlyMap<string, MirrorTarget>;
  /** The manifest's toolsets, by name (catalog/toolsets.ts). */
  readonly toolsets?: ReadonlyMap<string, ToolsetMembers>;
  /** `server.defaultToolset`: what the default endpoint and stdio without --toolset serve. */
  readonly defaultToolset?: string;
  /** Page size of the list methods. */
  readonly pageSize: number;
  /**
   * Files and folders the catalog was built from besides the manifest, each with the URIs of the
   * resources whose content it is (empty for a folder or a file that shapes the catalog).
   */
  readonly watched?: ReadonlyMap<string, readonly string[]>;
  /** The `${file:…}` secrets among `watched`: a change to one rebuilds the catalog (a rotated secret). */
  readonly secretFiles?: ReadonlySet<string>;
  /** The files the manifest includes (`include:`): an edit to one reloads like an edit to it. */
  readonly includes?: readonly string[];
  /** `reload:`: how the reloader treats the edit that made this catalog. */
  readonly reload?: ReloadSection;
  /** Releases what compiling opened (database handles, pools). Idempotent. */
  dispose(): Promise<void>;
}

/**
 * The one mutable reference: a reload swaps `current` whole. Requests `acquire` the catalog they
 * start on and `release` it when they end, so a reload can dispose the old catalog's sources once
 * the calls that still use it have finished.
 */
export class CatalogRef {
  private readonly inFlight = new Map<Catalog, number>();
  private readonly idleWaiters = new Map<Catalog, (() => void)[]>();

  constructor(private currentCatalog: Catalog) {}

  get current(): Catalog {
    return this.currentCatalog;
  }

  /** The current catalog, counted as in use until `release`. */
  acquire(): Catalog {
    const catalog = this.currentCatalog;
    this.inFlight.set(catalog, (this.inFlight.get(catalog) ?? 0) + 1);
    return catalog;
  }

  release(catalog: Catalog): void {
    const left = (this.inFlight.get(catalog) ?? 1) - 1;
    if (left > 0) {
      this.inFlight.set(catalog, left);
      return;
    }
    this.inFlight.delete(catalog);
    const waiters = this.idleWaiters.get(catalog);
    if (waiters === undefined) return;
    this.idleWaiters.delete(catalog);
    for (const wake of waiters) wake();
  }

  /** Makes `next` current and returns the catalog it replaced. */
  swap(next: Catalog): Catalog {
    const previous = this.currentCatalog;
    this.currentCatalog = next;
    return previous;
  }

  /** Resolves once no request uses `catalog` any more. */
  idle(catalog: Catalog): Promise<void> {
    if (!this.inFlight.has(catalog)) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = this.idleWaiters.get(catalog) ?? [];
      waiters.push(resolve);
      this.idleWaiters.set(catalog, waiters);
    });
  }
}
