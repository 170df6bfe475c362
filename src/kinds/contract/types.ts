/**
 * What a kind produces and what a running kind may use: descriptors, contents, results and the call
 * context. These are the catalog's building blocks; the catalog (../../catalog/types.ts) assembles
 * them and adds what only the core knows (the interactive steps, the mutable reference). Nothing
 * here knows YAML or JSON-RPC.
 */

import type { CallSignal } from '../../util/call-signal.js';
import type { JsonSchema } from '../../util/json-schema.js';
import type { Interaction } from './interaction.js';

export type { JsonSchema };

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
  /** 2025-11-25 `execution.taskSupport`, present only when the tool may run as a task. */
  readonly execution?: { readonly taskSupport: 'optional' | 'required' };
  /** MCP Apps: `ui` (the view's resourceUri, who may call) and the flat legacy key (catalog/views.ts). */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

export type ResourceContents =
  | {
      readonly uri: string;
      readonly mimeType?: string;
      readonly text: string;
      /** MCP Apps: a view's `ui` settings (CSP, permissions) on its read content. */
      readonly _meta?: Readonly<Record<string, unknown>>;
    }
  | {
      readonly uri: string;
      readonly mimeType?: string;
      readonly blob: string;
      /** MCP Apps: as on text contents (an upstream's view may come as base64 HTML). */
      readonly _meta?: Readonly<Record<string, unknown>>;
    };

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
  /**
   * The result's `_meta`, which MCP Apps hands to the view with the rest of the result and the
   * model does not read (an upstream MCP tool's, relayed bounded: kinds/mcp/relay.ts).
   */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/**
 * The caller, as a verified OAuth access token names it (HTTP with `server.auth` only: stdio, static
 * bearer tokens and API keys carry no identity). Claim-bound inputs (`fromClaim`) read `claims`; an
 * http source's token exchange (RFC 8693) trades `accessToken()` for an upstream token. The token is
 * a method, not a field, so a careless `JSON.stringify` of a context never writes it out; it must
 * never be sent anywhere unchanged (the MCP specification forbids token passthrough).
 */
export interface CallerIdentity {
  /** The token's issuer (`iss`). */
  readonly issuer: string;
  readonly subject: string | undefined;
  /** Every claim of the verified token (or of the introspection answer). */
  readonly claims: Readonly<Record<string, unknown>>;
  /** The token's `exp`, in seconds since the epoch; undefined when it has none. */
  readonly expiresAt: number | undefined;
  accessToken(): string;
}

/**
 * What a running call may use. Kinds never see JSON-RPC: they report progress and logs through
 * these functions and the transport decides whether (and where) anything is sent.
 */
export interface CallContext {
  /** Aborted when the client cancels the request or goes away. */
  readonly signal: CallSignal;
  /** Reports progress; sent only when the request carried a progress token. */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends a log message to the client when its log level asks for this severity. */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /** The verified caller; absent without an OAuth access token (stdio, static credentials, no auth). */
  readonly identity?: CallerIdentity;
  /**
   * Who owns what the call leaves for a later request (a task, an upstream call held between 2026
   * rounds): the authenticated caller (with the toolsets it came through), else the connection
   * (stdio, a 2025 session), else (2026 HTTP without auth) nobody in particular. Absent: unknown.
   */
  readonly principal?: string;
  /** Whom the limits per caller count the call against (RequestRoute.client); absent: one caller. */
  readonly client?: string;
  /**
   * The request's side of the interaction API (kinds/contract/interaction.ts), for what `ask` cannot
   * do: in the 2026 era (`stateless`, and not a task that `waits`) a question ends the call with
   * InputRequired, and the retry brings the answer and the `carried` state. Absent: no client to ask.
   */
  readonly interaction?: Interaction;
  /**
   * Asks the calling client something during the call (an upstream MCP server's elicitation,
   * sampling or roots request, relayed) and resolves with the client's result as it came. Rejects
   * with ClientAskRefused when it cannot be asked: the client did not declare the capability, or
   * the request's era cannot carry a question mid-call (2026 outside a task: ask through
   * `interaction` instead). Absent where the core offers no client to ask (a test).
   */
  ask?(
    method: ClientAskMethod,
    params: Readonly<Record<string, unknown>>,
    timeoutMs: number,
  ): Promise<unknown>;
}

/** What a call may ask its client (CallContext.ask). */
export type ClientAskMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/** CallContext.ask could not ask; `code` is the JSON-RPC error to answer whoever asked us. */
export class ClientAskRefused extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ClientAskRefused';
  }
}

export interface ResourceDescriptor {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly size?: number;
  /** MCP Apps: a view's `ui` settings (CSP, permissions) on its list entry. */
  readonly _meta?: Readonly<Record<string, unknown>>;
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
  /** `identity`: the verified caller, for the catalog's policies; kinds' own resources ignore it. */
  read(signal: AbortSignal, identity?: CallerIdentity): Promise<readonly ResourceContents[]>;
  /**
   * True when a policy governs the resource (catalog/policy.ts): who may read it and what they see
   * depend on the caller, so a read is never cacheable across callers.
   */
  readonly callerBound?: boolean;
  /**
   * Whether clients may subscribe to this URI: true when the server sends
   * `notifications/resources/updated` whenever the content changes (while hot reload watches the
   * manifest), because the content is a watched file (`watch(path, uri)`) or lives in the manifest
   * (`version`). Absent or false: nothing tells the server of a change (a query's result), so a
   * subscription is refused rather than left silent.
   */
  readonly updates?: boolean;
  /**
   * For a resource whose changes someone else tells of (an upstream MCP server's
   * `notifications/resources/updated`): starts following it while anyone is subscribed
   * (protocol/follows.ts), calling `onUpdated` at each change; resolves to the release, rejects
   * with a sentence when it cannot be followed (a subscription is then refused). Needs `updates`.
   */
  follow?(onUpdated: () => void): Promise<() => void>;
  /**
   * The content as far as compiling knows it (inline text): a reload whose new catalog has a
   * different version for the same URI tells that URI's subscribers.
   */
  readonly version?: string;
}

/**
 * What a kind knows of one template variable or prompt argument beyond the wire descriptor: its
 * meaning and, when the list is fixed (`enum`), the only values it takes. A mirrored tool
 * (catalog/mirror.ts) turns it into the argument's JSON Schema.
 */
export interface ArgumentHint {
  readonly description?: string;
  readonly enum?: readonly string[];
}

/**
 * A URI that matches a template exists, but no template sends updates: such URIs cannot be
 * subscribed to.
 */
export interface CatalogTemplate {
  readonly descriptor: ResourceTemplateDescriptor;
  /** The variables' descriptions and fixed value lists, by name, when the manifest declares them. */
  readonly argumentHints?: Readonly<Record<string, ArgumentHint>>;
  /**
   * True when a variable is bound to the caller (`fromClaim`, catalog/claims.ts): what a read
   * returns depends on who asks, so it is never cacheable across callers.
   */
  readonly callerBound?: boolean;
  /** The variables filled from the caller's claims, which no client sets (a mirror hides them). */
  readonly boundVariables?: readonly string[];
  /**
   * The values with the bound variables filled from the caller; a string: why they cannot be
   * (no identity, no claim, or the values try to set one).
   */
  bindVariables?(
    values: Readonly<Record<string, string>>,
    identity: CallerIdentity | undefined,
  ): Readonly<Record<string, string>> | string;
  /** The variable values when `uri` matches this template, else undefined. */
  match(uri: string): Readonly<Record<string, string>> | undefined;
  /** `identity`: the verified caller, for claim-bound variables; kinds' own templates ignore it. */
  read(
    uri: string,
    vars: Readonly<Record<string, string>>,
    signal: AbortSignal,
    identity?: CallerIdentity,
  ): Promise<readonly ResourceContents[]>;
  /** Completion candidates for one variable (already filtered by the typed prefix). */
  complete(
    variable: string,
    prefix: string,
    context: Readonly<Record<string, string>>,
    identity?: CallerIdentity,
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

/** A compiled prompt, as a kind returns it. */
export interface CompiledPrompt {
  readonly descriptor: PromptDescriptor;
  /** The arguments' fixed value lists, by name (their descriptions are in the descriptor). */
  readonly argumentHints?: Readonly<Record<string, ArgumentHint>>;
  /** Throws InvalidRequestParams for a missing required argument. */
  get(args: Readonly<Record<string, string>>, signal: AbortSignal): Promise<PromptResult>;
  complete(
    argument: string,
    prefix: string,
    context: Readonly<Record<string, string>>,
  ): Promise<readonly string[]>;
}
