/**
 * Tasks on the wire, per era: the 2025-11-25 core shapes (`ttl`, `pollInterval`, a nested `task` in
 * CreateTaskResult) and the 2026-07-28 extension's (`ttlMs`, `pollIntervalMs`, a flat
 * `resultType: "task"` CreateTaskResult, DetailedTask with its status's own field inlined).
 */
import type { TaskRecord } from '../tasks/types.js';
import { ErrorCode, HttpStatus, isObject, ProtocolError } from './jsonrpc.js';
import type { RequestScope } from './request-scope.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';
/** The one legacy version whose core has tasks. */
export const TASKS_VERSION = '2025-11-25';
/** ServerCapabilities.tasks of a 2025-11-25 session. */
export const LEGACY_TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

const iso = (ms: number): string => new Date(ms).toISOString();

export function legacyTask(record: TaskRecord): object {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage !== undefined && { statusMessage: record.statusMessage }),
    createdAt: iso(record.createdAt),
    lastUpdatedAt: iso(record.lastUpdatedAt),
    ttl: record.ttlMs,
    pollInterval: record.pollIntervalMs,
  };
}

export function modernTask(record: TaskRecord): Record<string, unknown> {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage !== undefined && { statusMessage: record.statusMessage }),
    createdAt: iso(record.createdAt),
    lastUpdatedAt: iso(record.lastUpdatedAt),
    ttlMs: record.ttlMs,
    pollIntervalMs: record.pollIntervalMs,
  };
}

/** tasks/get (2026): the task with its status's field: inputRequests, result or error. */
export function detailedTask(record: TaskRecord): object {
  const task = modernTask(record);
  if (record.status === 'input_required') return { ...task, inputRequests: record.inputRequests ?? {} };
  if (record.status === 'completed') return { ...task, result: { resultType: 'complete', ...record.result } };
  if (record.status === 'failed')
    return { ...task, error: record.error ?? { code: ErrorCode.InternalError, message: 'failed' } };
  return task;
}

export function createTaskResult(record: TaskRecord, scope: RequestScope): object {
  return scope.era === 'modern'
    ? { resultType: 'task', ...modernTask(record) }
    : { task: legacyTask(record) };
}

/** Whether this 2026 request declared the tasks extension in its own capabilities. */
export function declaresTasks(scope: RequestScope): boolean {
  const extensions = scope.envelope?.capabilities.extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/** -32021 naming the extension (2026: a task method, or a tool that needs a task, without it). */
export function tasksExtensionMissing(what: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.MissingRequiredClientCapability,
    `${what} needs the ${TASKS_EXTENSION} extension; declare it in this request's clientCapabilities.extensions`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    HttpStatus.BadRequest,
  );
}

/** The caller a task belongs to (request-scope.ts `caller`). */
export function unknownTask(taskId: unknown): ProtocolError {
  return new ProtocolError(
    ErrorCode.InvalidParams,
    `Unknown task ${JSON.stringify(taskId)}: it does not exist, expired, or belongs to another caller`,
  );
}
