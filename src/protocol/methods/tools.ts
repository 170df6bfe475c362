/**
 * `tools/list` and `tools/call`. Argument validation belongs to the tool (it answers isError); a
 * call runs through `interactive`, so a tool's steps can ask the client (2025) or end the call with
 * `input_required` (2026).
 */
import type { MethodSpec } from '../context.js';
import { interactive } from '../interaction.js';
import { invalidParams, isObject } from '../jsonrpc.js';
import { listPage } from '../pagination.js';
import { requireString } from '../params.js';
import type { RequestScope } from '../request-scope.js';
import { callAsTask, runsAsTask } from '../task-call.js';
import { TASKS_VERSION } from '../tasks-wire.js';
import { toWire } from '../tool-result.js';

async function callTool(scope: RequestScope): Promise<object> {
  const name = requireString(scope.params, 'name', 'tools/call');
  const tool = scope.catalog.tools.get(name);
  if (tool === undefined) throw invalidParams(`Unknown tool: ${name}`);
  const args = scope.params.arguments;
  if (args !== undefined && !isObject(args)) throw invalidParams('tools/call "arguments" must be an object');
  if (runsAsTask(scope, tool)) return callAsTask(scope, tool, args ?? {});
  return interactive(scope, name, async (interaction) => {
    const { progress, log, identity } = scope;
    // The call's signal is made only if the tool reads it, and is a light CallSignal.
    const ctx = {
      get signal() {
        return scope.callSignal;
      },
      get aborted() {
        return scope.aborted;
      },
      progress,
      log,
      interaction,
      ...(identity === undefined ? {} : { identity }),
    };
    return toWire(await tool.call(args ?? {}, ctx));
  });
}

export const toolMethods: Record<string, MethodSpec> = {
  'tools/list': {
    era: 'both',
    cacheable: true,
    handle: (scope) =>
      listPage(
        scope.catalog,
        'tools',
        scope.params,
        scope.access,
        scope.era === 'legacy' && scope.session.version === TASKS_VERSION,
      ),
  },
  'tools/call': { era: 'both', routingName: 'name', routesArguments: true, handle: callTool },
};
