/**
 * The limits' counts across the workers of one server (`--workers N` without `--state`): every
 * worker asks the primary process (util/ipc.ts), which counts in one MemoryLimitStore, so a rate of
 * 10/minute lets 10 calls of a caller through the whole server whichever worker each lands on, and
 * a cap on calls at once counts the calls of every worker. A worker that dies frees its slots (the
 * primary releases the leases it held). A primary that does not answer rejects the call, and the
 * gate refuses it (fail closed, as with Redis); a slot it grants after the worker gave up is
 * released by the worker when the late answer comes (IpcClient's `late`).
 */
import type { IpcClient, IpcPeer, IpcRooms } from '../../util/ipc.js';
import { type Full, type Lease, type LimitStore, MemoryLimitStore } from './store.js';
import type { WindowSpec } from './window.js';

const ROOM = 'limits';

export class IpcLimitStore implements LimitStore {
  readonly where = 'the primary process (workers)';

  constructor(private readonly client: IpcClient) {}

  async take(windows: readonly WindowSpec[]): Promise<Full | undefined> {
    return (await this.client.call<Full | null>(ROOM, 'take', [windows])) ?? undefined;
  }

  async enter(key: string, max: number): Promise<Lease | undefined> {
    // A slot the primary grants after this call gave up (IPC_TIMEOUT_MS) is handed straight back:
    // else it stays held until this worker exits.
    const id = await this.client.call<number | null>(ROOM, 'enter', [key, max], {
      late: (granted) => {
        if (typeof granted === 'number') this.client.note(ROOM, 'release', [granted]);
      },
    });
    if (id === null || id === undefined) return undefined;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.client.note(ROOM, 'release', [id]);
      },
    };
  }
}

/** The primary's side: one store for every worker; returns what to call when a worker is gone. */
export function hostLimits(rooms: IpcRooms, store = new MemoryLimitStore()): { forget(peer: number): void } {
  const leases = new Map<number, { peer: number; lease: Lease }>();
  let next = 1;
  rooms.handle(ROOM, async (peer: IpcPeer, op, args) => {
    if (op === 'take') return store.takeNow(args[0] as WindowSpec[]) ?? null;
    if (op === 'enter') {
      const lease = await store.enter(args[0] as string, args[1] as number);
      if (lease === undefined) return null;
      const id = next++;
      leases.set(id, { peer: peer.id, lease });
      return id;
    }
    if (op === 'release') {
      const held = leases.get(args[0] as number);
      if (held?.peer !== peer.id) return undefined;
      leases.delete(args[0] as number);
      held.lease.release();
      return undefined;
    }
    throw new Error(`no limits operation ${op}`);
  });
  return {
    forget(peer) {
      for (const [id, held] of leases)
        if (held.peer === peer) {
          leases.delete(id);
          held.lease.release();
        }
    },
  };
}
