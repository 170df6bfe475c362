/**
 * `tools/list` and `tools/call`. Argument validation belongs to the tool (it answers isError); a
 * call runs through `interactive`, so a tool's steps can ask the client (2025) or end the call with
 * `input_required` (2026).
 */
import type { CallerIdentity, ClientAskMethod, ToolCallContext } from '../../catalog/types.js';
import { noteResolved } from '../../governance/audit/note.js';
import type { Interaction } from '../../steps/interaction.js';
import type { CallSignal } from '../../util/call-signal.js';
import { callableBy, declaresApps, forViews } from '../apps.js';
import type { MethodSpec } from '../context.js';
import { askClient, interactive } from '../interaction.js';
import { invalidParams, isObject } from '../jsonrpc.js';
import { listPage } from '../pagination.js';
import { requireString } from '../params.js';
import type { RequestScope } from '../request-scope.js';
import { callAsTask, runsAsTask } from '../task-call.js';
import { TASKS_VERSION } from '../tasks-wire.js';
import { toWire } from '../tool-result.js';

async function callTool(scope: RequestScope): Promise<object> {
  const named = requireString(scope.params, 'name', 'tools/call');
  // Search mode lists meta-tools, but every tool of the view stays callable by name.
  const entry = scope.catalog.tools.get(named) ?? scope.catalog.callable?.get(named);
  if (entry === undefined || !callableBy(entry, scope)) throw invalidParams(`Unknown tool: ${named}`);
  const given = scope.params.arguments;
  if (given !== undefined && !isObject(given))
    throw invalidParams('tools/call "arguments" must be an object');
  // A tool that stands for another (search mode's call_tool: catalog/disclosure.ts) is resolved to
  // that entry first, so the rest is the direct call of it: its task mode, its steps, its wrapper.
  const { tool, args } = entry.resolve?.(given ?? {}, seesOf(scope)) ?? { tool: entry, args: given ?? {} };
  // The audit record names the tool called, with its arguments (where its redactions point).
  if (tool !== entry) noteResolved(tool.descriptor.name, args);
  if (runsAsTask(scope, tool)) return callAsTask(scope, tool, args);
  return interactive(scope, tool.descriptor.name, async (interaction) =>
    forViews(tool, scope, toWire(await tool.call(args, new ScopedCallContext(scope, interaction)))),
  );
}

/**
 * The tools the caller may see, as the catalog's meta-tools ask (search, describe, call_tool):
 * those its OAuth scopes and policies allow, and the tools only views call only for a client that
 * shows views. Undefined: all.
 */
function seesOf(scope: RequestScope): ((tool: string) => boolean) | undefined {
  const { access } = scope;
  const viewOnly = viewOnlyTools(scope);
  if (viewOnly === undefined)
    return access === undefined ? undefined : (tool) => access.allows('tools', tool);
  return (tool) => !viewOnly(tool) && (access === undefined || access.allows('tools', tool));
}

/** The test for a tool only views call, when the catalog has views and the client shows none. */
function viewOnlyTools(scope: RequestScope): ((tool: string) => boolean) | undefined {
  const { catalog } = scope;
  if (catalog.views === undefined || declaresApps(scope)) return undefined;
  const all = catalog.callable ?? catalog.tools;
  return (tool) => all.get(tool)?.view?.appOnly === true;
}

/**
 * What a tool's call sees of its request. A class, not an object literal with getters: such a
 * literal is a dictionary-mode object whose accessor pairs V8 allocates in the old generation, and
 * they hold the getters, so every call's request was kept to the next full collection (27% of the
 * bytes a `ping` call allocated were promoted; collecting them cost about a quarter of its CPU).
 * The scope is a native private field, so printing the context does not print the request.
 */
class ScopedCallContext implements ToolCallContext {
  readonly progress: RequestScope['progress'];
  readonly log: RequestScope['log'];
  declare readonly identity?: CallerIdentity;
  declare readonly client?: string;
  declare readonly principal?: string;
  declare readonly sees?: (tool: string) => boolean;
  readonly #scope: RequestScope;

  constructor(
    scope: RequestScope,
    readonly interaction: Interaction,
  ) {
    this.#scope = scope;
    this.progress = scope.progress;
    this.log = scope.log;
    const { identity } = scope;
    if (identity !== undefined) (this as { identity?: CallerIdentity }).identity = identity;
    const { client } = scope;
    if (client !== undefined) (this as { client?: string }).client = client;
    (this as { principal?: string }).principal = scope.taskOwner;
    const sees = seesOf(scope);
    if (sees !== undefined) (this as { sees?: (tool: string) => boolean }).sees = sees;
  }

  /** Made only if the tool reads it, and a light CallSignal, not an AbortSignal. */
  get signal(): CallSignal {
    return this.#scope.callSignal;
  }

  /** Whether the call was cancelled, without making its signal. */
  get aborted(): boolean {
    return this.#scope.aborted;
  }

  ask(
    method: ClientAskMethod,
    params: Readonly<Record<string, unknown>>,
    timeoutMs: number,
  ): Promise<unknown> {
    return askClient(this.interaction, method, params, timeoutMs);
  }
}

export const toolMethods: Record<string, MethodSpec> = {
  'tools/list': {
    era: 'both',
    cacheable: true,
    handle: (scope) =>
      listPage(scope.catalog, 'tools', scope.params, scope.access, {
        tasks: scope.era === 'legacy' && scope.session.version === TASKS_VERSION,
        apps: declaresApps(scope),
      }),
  },
  'tools/call': { era: 'both', routingName: 'name', routesArguments: true, handle: callTool },
};
