/**
 * The catalog: the one meeting point of the manifest side and the protocol side.
 *
 * Everything here is immutable once compiled. The protocol core reads `CatalogRef.current` at the
 * start of each request and keeps that catalog for the whole request, so a reload (an atomic swap of
 * the reference) never changes what an in-flight call sees. Nothing in this file knows YAML, and
 * nothing in it knows JSON-RPC.
 */

import type { Interaction } from './interaction.js';

/** A JSON Schema object, as plain data. */
export type JsonSchema = { [key: string]: unknown };

/** RFC 5424 severities, lowest first, as MCP names them. */
export const LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ServerInfo {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  readonly description?: string;
  /** Guidance for the model, sent in the initialize / discover result. */
  readonly instructions?: string;
}

export interface ToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** What `tools/list` shows for one tool. */
export interface ToolDescriptor {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly annotations?: ToolAnnotations;
}

export type ResourceContents =
  | { readonly uri: string; readonly mimeType?: string; readonly text: string }
  | { readonly uri: string; readonly mimeType?: string; readonly blob: string };

export type ContentBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly data: string; readonly mimeType: string }
  | { readonly type: 'audio'; readonly data: string; readonly mimeType: string }
  | { readonly type: 'resource'; readonly resource: ResourceContents }
  | {
      readonly type: 'resource_link';
      readonly uri: string;
      readonly name: string;
      readonly mimeType?: string;
      readonly description?: string;
    };

export interface ToolResult {
  readonly content: readonly ContentBlock[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}

/**
 * What a running call may use. Kinds never see JSON-RPC: they report progress and logs through
 * these functions and the transport decides whether (and where) anything is sent.
 */
export interface CallContext {
  /** Aborted when the client cancels the request or goes away. */
  readonly signal: AbortSignal;
  /** Reports progress; sent only when the request carried a progress token. */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends a log message to the client when its log level asks for this severity. */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /**
   * Asks the client (the user, its model, its roots) in whichever way this request's era allows;
   * the catalog's step engine uses it for the manifest's `roots`/`ask`/`confirm`/`sample`.
   * Absent where nothing can be asked (then those steps end the call with an error).
   */
  readonly interaction?: Interaction;
}

export interface CatalogTool {
  readonly descriptor: ToolDescriptor;
  /**
   * Validates the arguments against the input schema (applying declared defaults) and runs the
   * tool. Failures the model can act on (bad arguments, a failing query) come back as a result
   * with `isError: true`; only a bug in mcp-run itself may throw.
   */
  call(args: Record<string, unknown>, ctx: CallContext): Promise<ToolResult>;
}

export interface ResourceDescriptor {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly size?: number;
}

export interface ResourceTemplateDescriptor {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
}

/** Thrown by a read when the resource or template match does not exist (maps to not-found). */
export class ResourceNotFound extends Error {
  constructor(
    readonly uri: string,
    detail?: string,
  ) {
    super(detail ?? `Resource not found: ${uri}`);
    this.name = 'ResourceNotFound';
  }
}

/** Thrown by reads, prompt gets and completions for caller mistakes (maps to invalid params). */
export class InvalidRequestParams extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidRequestParams';
  }
}

export interface CatalogResource {
  readonly descriptor: ResourceDescriptor;
  read(signal: AbortSignal): Promise<readonly ResourceContents[]>;
}

export interface CatalogTemplate {
  readonly descriptor: ResourceTemplateDescriptor;
  /** The variable values when `uri` matches this template, else undefined. */
  match(uri: string): Readonly<Record<string, string>> | undefined;
  read(
    uri: string,
    vars: Readonly<Record<string, string>>,
    signal: AbortSignal,
  ): Promise<readonly ResourceContents[]>;
  /** Completion candidates for one variable (already filtered by the typed prefix). */
  complete(
    variable: string,
    prefix: string,
    context: Readonly<Record<string, string>>,
  ): Promise<readonly string[]>;
}

export interface PromptArgumentDescriptor {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly required?: boolean;
}

export interface PromptDescriptor {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: readonly PromptArgumentDescriptor[];
}

export interface PromptMessage {
  readonly role: 'user' | 'assistant';
  readonly content: ContentBlock;
}

export interface PromptResult {
  readonly description?: string;
  readonly messages: readonly PromptMessage[];
}

export interface CatalogPrompt {
  readonly descriptor: PromptDescriptor;
  /**
   * Throws InvalidRequestParams for a missing required argument. `interaction` is how the client
   * answers the prompt's `ask` forms (see guard-prompt.ts); kinds themselves never use it.
   */
  get(
    args: Readonly<Record<string, string>>,
    signal: AbortSignal,
    interaction?: Interaction,
  ): Promise<PromptResult>;
  complete(
    argument: string,
    prefix: string,
    context: Readonly<Record<string, string>>,
  ): Promise<readonly string[]>;
}

/** The compiled, immutable result of one manifest. Maps keep manifest order. */
export interface Catalog {
  readonly server: ServerInfo;
  readonly tools: ReadonlyMap<string, CatalogTool>;
  /** Static resources by URI. */
  readonly resources: ReadonlyMap<string, CatalogResource>;
  /**
   * Live resource sets (a database's tables), listed after the static resources, in manifest
   * order; their resources are read through `templates`.
   */
  readonly resourceLists?: readonly ((signal: AbortSignal) => Promise<readonly CatalogResource[]>)[];
  readonly templates: readonly CatalogTemplate[];
  readonly prompts: ReadonlyMap<string, CatalogPrompt>;
  /** Page size of the list methods. */
  readonly pageSize: number;
  /**
   * Files and folders the catalog was built from besides the manifest, each with the URIs of the
   * resources whose content it is (empty for a folder or a file that shapes the catalog).
   */
  readonly watched?: ReadonlyMap<string, readonly string[]>;
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
    for (const wake of this.idleWaiters.get(catalog) ?? []) wake();
    this.idleWaiters.delete(catalog);
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
