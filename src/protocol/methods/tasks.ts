/**
 * The task methods, both eras (digest §4.6, §5.11). 2025-11-25: `tasks/get`, `tasks/result`
 * (blocks until terminal, then answers what the call would have), `tasks/list`, `tasks/cancel`
 * (the cancelled Task; -32602 when already terminal). 2026-07-28, the extension: `tasks/get`
 * (DetailedTask), `tasks/update` (answers to inputRequests) and `tasks/cancel` (empty acks), each
 * refused with -32021 when the request did not declare the extension. Every method sees only the
 * caller's own tasks: another caller's id is unknown (-32602), like an expired one.
 */
import type { TaskRecord } from '../../tasks/types.js';
import type { MethodSpec } from '../context.js';
import { downgradeResult } from '../downgrade.js';
import { ErrorCode, invalidParams, isObject, ProtocolError } from '../jsonrpc.js';
import { decodeCursor, encodeCursor } from '../pagination.js';
import { requireString } from '../params.js';
import type { RequestScope } from '../request-scope.js';
import {
  declaresTasks,
  detailedTask,
  legacyTask,
  RELATED_TASK,
  TASKS_VERSION,
  tasksExtensionMissing,
  unknownTask,
} from '../tasks-wire.js';

const EMPTY = Object.freeze({});

/** The caller's task named by `params.taskId`; -32021 / -32602 as the era says. */
async function ownTask(scope: RequestScope): Promise<TaskRecord> {
  if (scope.era === 'modern' && !declaresTasks(scope)) throw tasksExtensionMissing(scope.method);
  const taskId = requireString(scope.params, 'taskId', scope.method);
  const record = await scope.server.tasks.get(scope.taskOwner, taskId);
  if (record === undefined) throw unknownTask(taskId);
  return record;
}

async function getTask(scope: RequestScope): Promise<object> {
  const record = await ownTask(scope);
  return scope.era === 'modern' ? detailedTask(record) : legacyTask(record);
}

async function cancelTask(scope: RequestScope): Promise<object> {
  const record = await ownTask(scope);
  const terminal =
    record.status === 'completed' || record.status === 'failed' || record.status === 'cancelled';
  if (terminal && scope.era === 'legacy')
    throw invalidParams(`Task ${record.taskId} has already ended (${record.status}); it cannot be cancelled`);
  const after = await scope.server.tasks.cancel(scope.taskOwner, record.taskId);
  if (scope.era === 'modern') return EMPTY;
  return legacyTask(after ?? record);
}

async function updateTask(scope: RequestScope): Promise<object> {
  const record = await ownTask(scope);
  const responses = scope.params.inputResponses;
  if (!isObject(responses))
    throw invalidParams('tasks/update "inputResponses" must be an object of answers by input request key');
  await scope.server.tasks.answer(scope.taskOwner, record.taskId, responses);
  return EMPTY;
}

/** 2025: waits for the end (offering this request's channel for the task's questions), then answers as the call would have. */
async function taskResult(scope: RequestScope): Promise<object> {
  const record = await ownTask(scope);
  const engine = scope.server.tasks;
  const related = { [RELATED_TASK]: { taskId: record.taskId } };
  const detach = engine.attach(record.taskId, (request, timeoutMs) =>
    scope.outbound.request(
      scope.outlet,
      request.method,
      { ...request.params, _meta: related },
      timeoutMs,
      scope.signal,
    ),
  );
  let final: TaskRecord | undefined;
  try {
    final = await engine.settled(scope.taskOwner, record.taskId, scope.signal);
  } finally {
    detach();
  }
  if (final === undefined) throw unknownTask(record.taskId);
  if (final.status === 'completed') {
    const result = downgradeResult('tools/call', final.result ?? {}, scope.session.version) as Record<
      string,
      unknown
    >;
    return { ...result, _meta: { ...(isObject(result._meta) ? result._meta : {}), ...related } };
  }
  if (final.status === 'failed' && final.error !== undefined)
    throw new ProtocolError(final.error.code, final.error.message, final.error.data);
  throw new ProtocolError(ErrorCode.InternalError, `Task ${final.taskId} was cancelled before it finished`);
}

async function listTasks(scope: RequestScope): Promise<object> {
  const all = await scope.server.tasks.list(scope.taskOwner);
  const offset = decodeCursor(scope.params.cursor, all.length);
  const size = scope.catalog.pageSize;
  const page = all.slice(offset, offset + size).map(legacyTask);
  return offset + size < all.length
    ? { tasks: page, nextCursor: encodeCursor(offset + size) }
    : { tasks: page };
}

/** In the 2025 era tasks exist from 2025-11-25 only: older sessions get -32601 for these. */
const since = TASKS_VERSION;

export const taskMethods: Record<string, MethodSpec> = {
  'tasks/get': { era: 'both', legacySince: since, routingName: 'taskId', handle: getTask },
  'tasks/cancel': { era: 'both', legacySince: since, routingName: 'taskId', handle: cancelTask },
  'tasks/update': { era: 'modern', routingName: 'taskId', handle: updateTask },
  'tasks/result': { era: 'legacy', legacySince: since, handle: taskResult },
  'tasks/list': { era: 'legacy', legacySince: since, handle: listTasks },
};
