/**
 * Server→client requests of one 2025-era connection (elicitation/create, sampling/createMessage,
 * roots/list): sent on the outlet of the call that needs them (stdio: stdout; HTTP: that POST's
 * SSE stream), matched with the client's response by id, bounded by a time limit, and withdrawn
 * with `notifications/cancelled` when the limit passes or the call is cancelled.
 */

import type { Logger } from '../log.js';
import { InteractionFailed } from '../steps/interaction.js';
import { isObject, notification, type RequestId } from './jsonrpc.js';
import type { Outlet } from './session.js';

interface Pending {
  readonly method: string;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/** What the client is asked to do, for "did not … within" messages. */
const DOING: Readonly<Record<string, string>> = {
  'elicitation/create': 'the user did not answer',
  'sampling/createMessage': "the client's model did not reply",
  'roots/list': 'the client did not list its roots',
};

export class Outbound {
  private nextId = 1;
  private readonly pending = new Map<RequestId, Pending>();

  constructor(
    private readonly log: Logger,
    /** Ids become `<prefix><n>` strings (replicas sharing a session); default plain numbers. */
    private readonly idPrefix?: string,
  ) {}

  /** Resolves with the client's result; rejects with InteractionFailed, or the signal's reason. */
  request(
    outlet: Outlet,
    method: string,
    params: object,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<unknown> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const n = this.nextId++;
    const id: RequestId = this.idPrefix === undefined ? n : `${this.idPrefix}${n}`;
    return new Promise((resolve, reject) => {
      const withdraw = (reason: string) => {
        if (!this.pending.delete(id)) return false;
        cleanup();
        outlet.notify(notification('notifications/cancelled', { requestId: id, reason }));
        return true;
      };
      const timer = setTimeout(() => {
        if (withdraw(`no answer within ${duration(timeoutMs)}`)) {
          reject(new InteractionFailed(`${DOING[method] ?? 'no answer came'} within ${duration(timeoutMs)}`));
        }
      }, timeoutMs);
      const onAbort = () => {
        if (withdraw('the call was cancelled')) reject(signal.reason as Error);
      };
      const cleanup = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        method,
        resolve: (result) => {
          cleanup();
          resolve(result);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
      outlet.notify({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** Routes a client response to its request; false when no request of ours has that id. */
  settle(message: Record<string, unknown>): boolean {
    const id = message.id as RequestId;
    const pending = this.pending.get(id);
    if (pending === undefined) {
      this.log.debug(
        `protocol: ignored a client response to an unknown or finished request (id ${JSON.stringify(id)})`,
      );
      return false;
    }
    this.pending.delete(id);
    const error = message.error;
    if (isObject(error)) {
      const code = typeof error.code === 'number' ? ` (${error.code})` : '';
      const why = typeof error.message === 'string' ? error.message : 'no reason given';
      pending.reject(new InteractionFailed(`the client refused ${pending.method}: ${why}${code}`));
    } else pending.resolve(message.result);
    return true;
  }

  /** The connection closed: nothing will answer. */
  closeAll(): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const pending of all) pending.reject(new InteractionFailed('the connection closed'));
  }
}

function duration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
