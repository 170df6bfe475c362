/**
 * The task path of `tools/call` (digest §4.6, §5.11): whether a call runs as a task, and running it.
 *
 * - 2025-11-25: the client asks with `params.task` (`{ttl?}`); a tool whose `task` is forbidden
 *   answers -32601 to that, and a `required` one answers -32601 to a call without it.
 * - 2026-07-28: the server decides: a tool that allows tasks runs as one when this request declared
 *   the extension; a `required` one answers -32021 to a request that did not.
 *
 * A task's call runs detached from its request, on the task's own AbortSignal (tasks/cancel), with
 * the request's verified caller (its claims for `fromClaim` inputs). Its steps ask the client from
 * inside the task: 2026 parks the questions as `inputRequests` until `tasks/update` answers them
 * all; 2025 sends them through the client's `tasks/result` in flight.
 * A tool with `task.steps: before` asks them on the call itself first (2026 input_required rounds)
 * and starts the task once answered. Progress and logs of a 2025 task go on the session's standing
 * channel with the `related-task` `_meta`; in 2026 (no channel outlives the request) progress
 * becomes the task's statusMessage.
 */
import type { CatalogTool } from '../catalog/types.js';
import {
  type CarriedState,
  type InputMethod,
  type InputRequests,
  InputRequired,
  type Interaction,
} from '../steps/interaction.js';
import { type TaskEngine, TaskLimitReached } from '../tasks/engine.js';
import { TERMINAL } from '../tasks/types.js';
import { forViews } from './apps.js';
import { downgradeOutgoing } from './downgrade.js';
import { toProtocolError } from './error-mapping.js';
import { interactive, supports } from './interaction.js';
import { ErrorCode, isObject, notification, ProtocolError } from './jsonrpc.js';
import { passes } from './log-levels.js';
import type { RequestScope } from './request-scope.js';
import {
  createTaskResult,
  declaresTasks,
  legacyTask,
  RELATED_TASK,
  TASKS_VERSION,
  tasksExtensionMissing,
} from './tasks-wire.js';
import { toWire } from './tool-result.js';

/** Whether this call runs as a task; throws the era's error when the tool's `task` forbids the way it was called. */
export function runsAsTask(scope: RequestScope, tool: CatalogTool): boolean {
  const support = tool.task?.support ?? 'forbidden';
  const name = tool.descriptor.name;
  if (scope.era === 'modern') {
    if (support === 'forbidden') return false;
    if (declaresTasks(scope)) return true;
    if (support === 'required') throw tasksExtensionMissing(`Tool ${name}`);
    return false;
  }
  if (scope.session.version !== TASKS_VERSION) return false;
  const asked = isObject(scope.params.task);
  if (asked && support === 'forbidden')
    throw new ProtocolError(
      ErrorCode.MethodNotFound,
      `Tool ${name} cannot run as a task (its task is forbidden)`,
    );
  if (!asked && support === 'required')
    throw new ProtocolError(
      ErrorCode.MethodNotFound,
      `Tool ${name} runs only as a task: call it with params.task (its execution.taskSupport is required)`,
    );
  return asked;
}

export function callAsTask(
  scope: RequestScope,
  tool: CatalogTool,
  args: Record<string, unknown>,
): Promise<object> {
  if (scope.era === 'modern' && tool.task?.steps === 'before')
    return interactive(scope, tool.descriptor.name, (mrtr) => startTask(scope, tool, args, mrtr));
  return startTask(scope, tool, args, undefined);
}

async function startTask(
  scope: RequestScope,
  tool: CatalogTool,
  args: Record<string, unknown>,
  mrtr: Interaction | undefined,
): Promise<object> {
  const engine = scope.server.tasks;
  const name = tool.descriptor.name;
  // A call its policy refuses gets the refusal now, not a task that fails.
  tool.screen?.(args, scope.identity);
  const requested = isObject(scope.params.task) ? scope.params.task.ttl : undefined;
  let record: Awaited<ReturnType<typeof engine.create>>;
  try {
    record = await engine.create(scope.taskOwner, typeof requested === 'number' ? requested : undefined);
  } catch (err) {
    if (!(err instanceof TaskLimitReached)) throw err;
    return toWire({
      content: [{ type: 'text', text: `Tool ${name} did not start: ${err.message}.` }],
      isError: true,
    });
  }
  const { taskId } = record;
  let committed = mrtr === undefined;
  const interaction = taskInteraction(scope, taskId, mrtr, () => committed);
  const unwatch = watchStatus(scope, taskId);
  // The verified caller goes with the run (fromClaim inputs, token exchange): it stays in this
  // process, in the call's context, and never enters the task's record or its store.
  const { identity, client } = scope;
  const settled = tool
    .call(args, {
      signal: engine.signal(taskId),
      interaction,
      ...taskReports(scope, taskId),
      ...(identity !== undefined && { identity }),
      ...(client !== undefined && { client }),
      principal: scope.taskOwner,
    })
    .then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
  if (!committed) {
    // The steps run before any I/O: by the next turn of the event loop they have either asked
    // (InputRequired: answer this call with input_required, no task) or been answered.
    const early = await Promise.race([
      settled,
      new Promise<undefined>((done) => setImmediate(() => done(undefined))),
    ]);
    if (early !== undefined && 'error' in early && early.error instanceof InputRequired) {
      unwatch();
      await engine.discard(taskId);
      throw early.error;
    }
    committed = true;
  }
  void settled
    .then(async (outcome) => {
      // A task's result is the call's: shortened for the model of a client that shows the view.
      if ('result' in outcome) await engine.complete(taskId, forViews(tool, scope, toWire(outcome.result)));
      else {
        const error = toProtocolError(outcome.error, scope.era, 'tools/call', scope.server.log);
        await engine.fail(taskId, {
          code: error.code,
          message: error.message,
          ...(error.data !== undefined && { data: error.data }),
        });
      }
    })
    // The last write could not be stored before the task expired (its store stayed unreachable):
    // said once here; nobody can poll the task any more. Never an unhandled rejection, which would
    // end the process.
    .catch((err: unknown) =>
      scope.server.log.warn(
        `task ${taskId.slice(0, 6)}…: its outcome was not stored: ${(err as Error).message}`,
      ),
    )
    // A task stopped without a last status (expired, its session gone) still lets go of its watcher.
    .finally(unwatch);
  return createTaskResult(record, scope);
}

function taskInteraction(
  scope: RequestScope,
  taskId: string,
  mrtr: Interaction | undefined,
  committed: () => boolean,
): Interaction {
  const engine = scope.server.tasks;
  if (scope.era === 'modern')
    return new ModernTaskInteraction(engine, taskId, scope.envelope?.capabilities ?? {}, mrtr, committed);
  const capabilities = scope.session.clientCapabilities;
  const version = scope.session.version;
  return {
    stateless: false,
    carried: undefined,
    supports: (method) => supports(capabilities, method),
    async gather(requests, timeoutMs) {
      const answers: Record<string, unknown> = {};
      for (const [key, { method, params }] of Object.entries(forForm(requests, capabilities))) {
        const shaped = downgradeOutgoing(method, params, version);
        answers[key] = await engine.askThroughResult(taskId, { method, params: shaped }, timeoutMs);
      }
      return answers;
    },
  };
}

/**
 * A 2026 task's Interaction. A class, not an object literal with a getter, whose accessor pair V8
 * allocates in the old generation, keeping the task's request to the next full collection (see
 * ScopedCallContext, methods/tools.ts).
 */
class ModernTaskInteraction implements Interaction {
  readonly stateless = true;
  readonly carried: CarriedState | undefined;

  constructor(
    private readonly engine: TaskEngine,
    private readonly taskId: string,
    private readonly capabilities: Readonly<Record<string, unknown>>,
    private readonly mrtr: Interaction | undefined,
    private readonly committed: () => boolean,
  ) {
    this.carried = mrtr?.carried;
  }

  /** Once the task is committed, `gather` waits for every answer (`tasks/update`). */
  get waits(): boolean {
    return this.committed();
  }

  supports(method: InputMethod): boolean {
    return supports(this.capabilities, method);
  }

  gather(requests: InputRequests): Promise<Record<string, unknown>> {
    return this.committed() || this.mrtr === undefined
      ? this.engine.ask(this.taskId, forForm(requests, this.capabilities))
      : this.mrtr.gather(requests, 0);
  }
}

/** Names form mode to clients that declared it by name (as interaction.ts does for direct calls). */
function forForm(requests: InputRequests, capabilities: Readonly<Record<string, unknown>>): InputRequests {
  const elicitation = capabilities.elicitation;
  if (!isObject(elicitation) || !isObject(elicitation.form)) return requests;
  return Object.fromEntries(
    Object.entries(requests).map(([key, r]) => [
      key,
      r.method === 'elicitation/create' ? { method: r.method, params: { mode: 'form', ...r.params } } : r,
    ]),
  );
}

/** The progress and log reporters of a task's call. */
function taskReports(scope: RequestScope, taskId: string): Pick<RequestScope, 'progress' | 'log'> {
  const engine = scope.server.tasks;
  const related = { [RELATED_TASK]: { taskId } };
  const token = (scope.params._meta as { progressToken?: unknown } | undefined)?.progressToken;
  let last = Number.NEGATIVE_INFINITY;
  const progress = (value: number, total?: number, message?: string): void => {
    if (!(value > last) || !Number.isFinite(value)) return;
    last = value;
    if (scope.era === 'modern') {
      const text = message ?? (total === undefined ? `progress ${value}` : `progress ${value} of ${total}`);
      void engine.note(taskId, text);
      return;
    }
    if (typeof token !== 'string' && typeof token !== 'number') return;
    const params: Record<string, unknown> = { progressToken: token, progress: value, _meta: related };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    scope.standing(notification('notifications/progress', params));
  };
  const log: RequestScope['log'] = (level, data, logger) => {
    if (scope.era === 'modern') return;
    const threshold = scope.session.logLevel;
    if (threshold === undefined || !passes(level, threshold)) return;
    const params = { level, ...(logger !== undefined && { logger }), data, _meta: related };
    scope.standing(notification('notifications/message', params));
  };
  return { progress, log };
}

/** 2025-11-25: `notifications/tasks/status` on the session's standing channel at each change. */
function watchStatus(scope: RequestScope, taskId: string): () => void {
  if (scope.era === 'modern') return () => {};
  const unwatch = scope.server.tasks.onStatus((record) => {
    if (record.taskId !== taskId) return;
    scope.standing(notification('notifications/tasks/status', legacyTask(record)));
    if (TERMINAL.has(record.status)) unwatch();
  });
  return unwatch;
}
