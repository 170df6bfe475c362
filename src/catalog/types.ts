/**
 * The catalog: the one meeting point of the manifest side and the protocol side.
 *
 * Everything here is immutable once compiled. The protocol core reads `CatalogRef.current` at the
 * start of each request and keeps that catalog for the whole request, so a reload (an atomic swap of
 * the reference) never changes what an in-flight call sees. Nothing in this file knows YAML, and
 * nothing in it knows JSON-RPC.
 */

import type { CallLimits } from '../governance/limits/gate.js';
import type { CompiledPolicy } from '../governance/policy/policy.js';
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
import type { ReloadSection, ServerAuditSection, ServerAuthSection } from '../manifest/types.js';
import type { Interaction } from '../steps/interaction.js';
import type { TaskSettings } from '../tasks/types.js';
import type { UpstreamChanges } from './upstream-changes.js';

export type {
  ArgumentHint,
  CallContext,
  CallerIdentity,
  CatalogResource,
  CatalogTemplate,
  ClientAskMethod,
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
export {
  ClientAskRefused,
  InvalidRequestParams,
  LOG_LEVELS,
  ResourceNotFound,
} from '../kinds/contract/types.js';

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
 * A call's context as the core gives it: the kind's context (with its `interaction`, how to ask the
 * client in whichever way this request's era allows; the step engine uses it for the manifest's
 * `roots`/`ask`/`confirm`/`sample`, and without it those steps end the call with an error), plus
 * what only the catalog's meta-tools read.
 */
export interface ToolCallContext extends CallContext {
  /**
   * Whether the caller may see a tool (its OAuth scopes); absent: every tool of the view. The
   * meta-tools of a catalog in search mode (disclosure.ts) answer only about those it may see.
   */
  readonly sees?: (tool: string) => boolean;
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
  /**
   * The policy stage alone (catalog/tool.ts): throws the refusal a call with these arguments would
   * meet, so a task is not made for a call that cannot run. `call` decides again.
   */
  screen?(args: Record<string, unknown>, identity: CallerIdentity | undefined): void;

  /**
   * Set on a tool that stands for another (`call_tool` of a catalog in search mode, disclosure.ts):
   * the entry a call resolves to and its arguments. The core then calls that entry as if it had
   * been called by name (its task mode, steps and wrapper). Throws InvalidRequestParams for an entry
   * the caller's view does not have, as a direct call of it would.
   */
  resolve?(
    args: Readonly<Record<string, unknown>>,
    sees?: (tool: string) => boolean,
  ): { readonly tool: CatalogTool; readonly args: Record<string, unknown> };
}

/** How tools/list discloses a catalog (catalog/disclosure.ts): every tool, or meta-tools and the pinned ones. */
export interface Disclosure {
  readonly mode: 'full' | 'search';
  readonly pinned: ReadonlySet<string>;
}

/** Where browse and search place a tool (catalog/disclosure.ts): its group, and an http tool's path. */
export interface ToolPlace {
  readonly group: string;
  readonly path?: string;
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
  /** `identity`: who asks, for the catalog's policies (a prompt the caller may not get completes nothing). */
  complete(
    argument: string,
    prefix: string,
    context: Readonly<Record<string, string>>,
    identity?: CallerIdentity,
  ): Promise<readonly string[]>;
}

/**
 * The three listed categories of a catalog; a reload's diff and the list_changed notices use them.
 * Skills are resources (their files are read through `resources/read`, their SKILL.md is listed):
 * a change to one is a change to `resources` (the extension defines no notice of its own).
 */
export type ListCategory = 'tools' | 'prompts' | 'resources';

/**
 * One file of a skill (the skills extension, io.modelcontextprotocol/skills: docs/skills.md), served
 * by `resources/read` at `uri`. `size` and `digest` are of the bytes `read` returns, as the
 * extension's skill entries carry them.
 */
export interface SkillFile {
  /** Relative to the skill's folder, `/`-separated: `SKILL.md`, `references/forms.md`. */
  readonly path: string;
  /** `skill://<name>/<path>`. */
  readonly uri: string;
  /** Length in bytes of the raw content. */
  readonly size: number;
  /** `sha256:` and 64 lowercase hex digits of the raw content. */
  readonly digest: string;
  readonly mimeType: string;
  /** The content: text for a text file (UTF-8), bytes otherwise. */
  read(signal?: AbortSignal): Promise<Uint8Array | string>;
}

/** One skill: a folder holding a SKILL.md (read from disk) or made in memory (catalog/skills.ts). */
export interface CatalogSkill {
  /** The frontmatter's `name`, which is also the last segment of the skill's path. */
  readonly name: string;
  readonly description: string;
  /** The URI of its SKILL.md: `skill://<name>/SKILL.md`. */
  readonly uri: string;
  /** The SKILL.md's YAML frontmatter as parsed, sent verbatim in the skill's entry. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** Every file of the skill, SKILL.md first, then by path. */
  readonly files: readonly SkillFile[];
}

/** The `skills:` section as served: the extension's settings. */
export interface SkillsSettings {
  /** Whether `resources/directory/read` is served (the extension's `directoryRead`). */
  readonly directoryRead: boolean;
  /** Skills per skills/list page, children per directory page. */
  readonly pageSize: number;
}

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
  /** Skill names. */
  readonly skills: ReadonlySet<string>;
  /** Scopes a token needs on this toolset's HTTP endpoint. */
  readonly scopes?: readonly string[];
  /** `catalog:` of the toolset: how its tools/list discloses its tools (over the server's). */
  readonly disclosure?: Disclosure;
}

/** What the catalog keeps of its policies beyond each entry's own (catalog/policy.ts). */
export interface CatalogPolicies {
  /** Each toolset's own `policy:`, applied to what is served through it. */
  readonly toolsets: ReadonlyMap<string, readonly CompiledPolicy[]>;
  /** Whether some entry's policy can hide it from a caller, by claims alone. */
  readonly filtersLists: boolean;
}

/** The compiled, immutable result of one manifest. Maps keep manifest order. */
export interface Catalog {
  readonly server: ServerInfo;
  /** `server.auth`: the OAuth resource server settings, which the HTTP transport reads at start. */
  readonly auth?: ServerAuthSection;
  /** `server.audit`: the audit trail the server opens at start (governance/audit/). */
  readonly audit?: ServerAuditSection;
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
  /** Skills by name (docs/skills.md), in the order of their folders; empty when none. */
  readonly skills: ReadonlyMap<string, CatalogSkill>;
  /** `skills:`: present when the manifest serves the skills extension (even with no skill yet). */
  readonly skillsSettings?: SkillsSettings;
  /**
   * The tools that mirror a resource entry or a prompt (catalog/mirror.ts), by tool name, with what
   * they mirror: the scopes of that apply to the tool.
   */
  readonly mirrors?: ReadonlyMap<string, MirrorTarget>;
  /**
   * Tools callable by name beyond those listed: in search mode (catalog/disclosure.ts) the whole
   * view, which `tools` lists only as meta-tools and pins. Absent: `tools` is all.
   */
  readonly callable?: ReadonlyMap<string, CatalogTool>;
  /** The manifest's toolsets, by name (catalog/toolsets.ts). */
  readonly toolsets?: ReadonlyMap<string, ToolsetMembers>;
  /**
   * The policies (catalog/policy.ts): each toolset's, for its views, and whether any entry's decide
   * who sees it in lists. Absent when the manifest declares none.
   */
  readonly policies?: CatalogPolicies;
  /** `server.defaultToolset`: what the default endpoint and stdio without --toolset serve. */
  readonly defaultToolset?: string;
  /** `server.catalog`: how tools/list discloses the tools (catalog/disclosure.ts); absent: in full. */
  readonly disclosure?: Disclosure;
  /**
   * A search-mode meta-tool as the server governs it (catalog/disclosure.ts): the server-wide
   * policies that apply to its name and the server's limits, as any tool's call. Absent: neither.
   */
  readonly governMeta?: (descriptor: ToolDescriptor, call: CatalogTool['call']) => CatalogTool;
  /** Each tool's place, by name, for search and browse in search mode (catalog/disclosure.ts). */
  readonly groups?: ReadonlyMap<string, ToolPlace>;
  /** Page size of the list methods. */
  readonly pageSize: number;
  /**
   * The limits per caller on reads and gets (`limits:` of a resource entry or a prompt), by the
   * resource, template or prompt the catalog serves; resources/read and prompts/get apply them.
   */
  readonly entryLimits?: ReadonlyMap<CatalogResource | CatalogTemplate | CatalogPrompt, CallLimits>;
  /** `server.limits.requests`: the HTTP requests one caller may send (the transport answers 429). */
  readonly requestLimit?: CallLimits;
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
  /** Each source's `OpenedSource.described`, by source name. */
  readonly described?: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** Its sources' changes outside any file (an upstream's `list_changed`): the reloader listens. */
  readonly upstreamChanges?: UpstreamChanges;
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

  private readonly swapListeners: (() => void)[] = [];

  /** Makes `next` current and returns the catalog it replaced; then tells `onSwap`'s listeners. */
  swap(next: Catalog): Catalog {
    const previous = this.currentCatalog;
    this.currentCatalog = next;
    for (const listener of this.swapListeners) listener();
    return previous;
  }

  /** Called after each swap, with the new catalog current (protocol/follows.ts re-follows through it). */
  onSwap(listener: () => void): void {
    this.swapListeners.push(listener);
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
