/**
 * A worker's end and the primary's rooms of `--workers` (src/util/ipc.ts), joined in this process
 * by a channel that carries messages as the cluster's does: JSON, asynchronously, in order. For
 * tests of what is built on them (state/ipc.ts, limits/ipc-store.ts) without forking; the real
 * cluster runs in test/e2e/workers.test.ts.
 */
import { EventEmitter } from 'node:events';
import { IpcClient, type IpcEnd, IpcRooms } from '../../src/util/ipc.js';

export interface IpcPair {
  readonly client: IpcClient;
  readonly rooms: IpcRooms;
  /** The worker's id as the primary's rooms see it. */
  readonly peer: number;
  /** Holds what the primary sends to the worker until `resume` (a primary slower than the timeout). */
  pause(): void;
  /** Delivers what was held, in order, and lets the rest through; resolves once it is delivered. */
  resume(): Promise<void>;
  /** The channel closes, as when the primary process is gone. */
  disconnect(): void;
}

export interface IpcPairOptions {
  /** The worker's call timeout (IpcClient), instead of IPC_TIMEOUT_MS. */
  readonly timeoutMs?: number;
}

let peers = 0;

export function ipcPair(rooms = new IpcRooms(), options: IpcPairOptions = {}): IpcPair {
  const end = new EventEmitter() as EventEmitter & { send: NonNullable<IpcEnd['send']>; connected: boolean };
  const copy = (message: unknown) => JSON.parse(JSON.stringify(message)) as unknown;
  let held: unknown[] | undefined;
  const peer = {
    id: ++peers,
    send: (message: unknown) => {
      if (held !== undefined) held.push(copy(message));
      else setImmediate(() => end.emit('message', copy(message)));
    },
  };
  end.connected = true;
  end.send = (message, _handle, _options, callback) => {
    setImmediate(() => {
      rooms.receive(peer, copy(message));
      callback?.(null);
    });
    return true;
  };
  return {
    client: new IpcClient(end, options.timeoutMs),
    rooms,
    peer: peer.id,
    pause: () => {
      held ??= [];
    },
    disconnect: () => {
      end.connected = false;
      end.emit('disconnect');
    },
    resume: async () => {
      const queued = held ?? [];
      held = undefined;
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          for (const message of queued) end.emit('message', message);
          resolve();
        }),
      );
    },
  };
}
