/**
 * Requests between the processes of one server (`--workers`, node:cluster) over their IPC channel:
 * a worker asks the primary (`IpcClient.call`, with an id and a timeout) or tells it (`note`), and
 * the primary answers (`IpcRooms`) or pushes to a worker. Messages are plain JSON objects tagged
 * `mcpRun`, so they pass beside anything else on the channel (prom-client's scrapes). Knows no MCP:
 * a room is a name, an operation a name with JSON arguments.
 */

/** What travels on the channel. */
export type IpcMessage =
  | {
      readonly mcpRun: 'req';
      readonly id: number;
      readonly room: string;
      readonly op: string;
      readonly args: unknown[];
    }
  | { readonly mcpRun: 'note'; readonly room: string; readonly op: string; readonly args: unknown[] }
  | { readonly mcpRun: 'res'; readonly id: number; readonly ok: true; readonly value?: unknown }
  | {
      readonly mcpRun: 'res';
      readonly id: number;
      readonly ok: false;
      readonly error: string;
      readonly name: string;
    }
  | { readonly mcpRun: 'push'; readonly room: string; readonly data: unknown };

/** The call did not get its answer: the primary is gone, or did not answer in time. */
export class IpcUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IpcUnavailable';
  }
}

/** The primary answered with an error; `remoteName` is the error's class name there. */
export class IpcRemoteError extends Error {
  constructor(
    message: string,
    readonly remoteName: string,
  ) {
    super(message);
    this.name = 'IpcRemoteError';
  }
}

/** The worker's end of the channel: `process` in a cluster worker. */
export interface IpcEnd {
  send?(
    message: unknown,
    sendHandle?: undefined,
    options?: object,
    callback?: (err: Error | null) => void,
  ): boolean;
  readonly connected?: boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'disconnect', listener: () => void): unknown;
}

/** How long a call waits for the primary's answer. */
export const IPC_TIMEOUT_MS = 5000;

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** Calls given up on whose late answer is still awaited (`CallOptions.late`), at most. */
const MAX_ABANDONED = 10_000;

export interface CallOptions {
  /**
   * Receives the answer that comes after the call timed out: what the primary did anyway (a slot
   * it granted) can then be undone. Not called when the answer is an error.
   */
  readonly late?: (value: unknown) => void;
}

export class IpcClient {
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  /** Calls that timed out, by id: what to do with their answer if it still comes. */
  private readonly abandoned = new Map<number, (value: unknown) => void>();
  private readonly pushes = new Map<string, ((data: unknown) => void)[]>();
  private readonly lostListeners: (() => void)[] = [];
  private gone = false;

  constructor(
    private readonly end: IpcEnd = process,
    private readonly timeoutMs = IPC_TIMEOUT_MS,
  ) {
    end.on('message', (message) => this.receive(message));
    end.on('disconnect', () => this.lose());
  }

  /** Whether the primary can be reached. */
  get connected(): boolean {
    return !this.gone && this.end.connected !== false && this.end.send !== undefined;
  }

  /** Asks the primary; rejects with IpcUnavailable (no answer) or IpcRemoteError (its error). */
  call<T>(room: string, op: string, args: unknown[], options: CallOptions = {}): Promise<T> {
    if (!this.connected) return Promise.reject(new IpcUnavailable('the primary process is gone'));
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        if (options.late !== undefined) this.abandon(id, options.late);
        reject(
          new IpcUnavailable(`the primary process did not answer ${room}.${op} within ${this.timeoutMs} ms`),
        );
      }, this.timeoutMs);
      timer.unref();
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      this.post({ mcpRun: 'req', id, room, op, args }, (err) => {
        const waiting = this.pending.get(id);
        if (waiting === undefined) return;
        this.pending.delete(id);
        clearTimeout(waiting.timer);
        waiting.reject(new IpcUnavailable(`the primary process cannot be reached: ${err.message}`));
      });
    });
  }

  /**
   * Tells the primary, without waiting for an answer (lost when the primary is gone). `sent`, if
   * given, is called once the message has left this process (null), or could not (an error).
   */
  note(room: string, op: string, args: unknown[], sent?: (err: Error | null) => void): void {
    if (!this.connected) {
      sent?.(new IpcUnavailable('the primary process is gone'));
      return;
    }
    this.post(
      { mcpRun: 'note', room, op, args },
      (err) => sent?.(err),
      () => sent?.(null),
    );
  }

  /** Handles what the primary pushes to `room`. */
  onPush(room: string, handler: (data: unknown) => void): void {
    this.pushes.set(room, [...(this.pushes.get(room) ?? []), handler]);
  }

  /** Called once when the channel to the primary closes. */
  onLost(listener: () => void): void {
    if (this.gone) listener();
    else this.lostListeners.push(listener);
  }

  /** Keeps a timed-out call's late handler; past MAX_ABANDONED, the oldest is let go. */
  private abandon(id: number, late: (value: unknown) => void): void {
    this.abandoned.set(id, late);
    if (this.abandoned.size > MAX_ABANDONED) this.abandoned.delete(this.abandoned.keys().next().value!);
  }

  private post(message: IpcMessage, failed: (err: Error) => void, sent?: () => void): void {
    try {
      this.end.send?.(message, undefined, {}, (err) => {
        if (err) failed(err);
        else sent?.();
      });
    } catch (err) {
      failed(err as Error);
    }
  }

  private receive(raw: unknown): void {
    if (!isIpcMessage(raw)) return;
    if (raw.mcpRun === 'res') {
      const waiting = this.pending.get(raw.id);
      if (waiting === undefined) {
        const late = this.abandoned.get(raw.id);
        this.abandoned.delete(raw.id);
        if (late !== undefined && raw.ok) late(raw.value);
        return;
      }
      this.pending.delete(raw.id);
      clearTimeout(waiting.timer);
      if (raw.ok) waiting.resolve(raw.value);
      else waiting.reject(new IpcRemoteError(raw.error, raw.name));
    } else if (raw.mcpRun === 'push') {
      for (const handler of this.pushes.get(raw.room) ?? []) handler(raw.data);
    }
  }

  private lose(): void {
    if (this.gone) return;
    this.gone = true;
    // The primary is gone, and with it what it held for these calls.
    this.abandoned.clear();
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id);
      clearTimeout(waiting.timer);
      waiting.reject(new IpcUnavailable('the primary process is gone'));
    }
    for (const listener of this.lostListeners.splice(0)) listener();
  }
}

/** A worker as the primary sees it: an id, and a way to send to it. */
export interface IpcPeer {
  readonly id: number;
  send(message: IpcMessage): void;
}

/** What a room does with an operation; the answer must be JSON (undefined: none). */
export type IpcHandler = (peer: IpcPeer, op: string, args: unknown[]) => unknown;

/** The primary's side: rooms by name, each answering its operations. */
export class IpcRooms {
  private readonly rooms = new Map<string, IpcHandler>();

  handle(room: string, handler: IpcHandler): void {
    this.rooms.set(room, handler);
  }

  /** Handles one message from `peer`; false when it was not one of ours. */
  receive(peer: IpcPeer, raw: unknown): boolean {
    if (!isIpcMessage(raw) || (raw.mcpRun !== 'req' && raw.mcpRun !== 'note')) return false;
    const handler = this.rooms.get(raw.room);
    const args = Array.isArray(raw.args) ? raw.args : [];
    if (raw.mcpRun === 'note') {
      if (handler !== undefined)
        void Promise.resolve()
          .then(() => handler(peer, raw.op, args))
          .catch(() => {});
      return true;
    }
    const { id } = raw;
    void Promise.resolve()
      .then(() => {
        if (handler === undefined) throw new Error(`no room ${raw.room}`);
        return handler(peer, raw.op, args);
      })
      .then(
        (value) => peer.send({ mcpRun: 'res', id, ok: true, ...(value !== undefined && { value }) }),
        (err: unknown) =>
          peer.send({
            mcpRun: 'res',
            id,
            ok: false,
            error: err instanceof Error ? err.message : String(err),
            name: err instanceof Error ? err.name : 'Error',
          }),
      );
    return true;
  }
}

function isIpcMessage(raw: unknown): raw is IpcMessage {
  return typeof raw === 'object' && raw !== null && typeof (raw as { mcpRun?: unknown }).mcpRun === 'string';
}
