/**
 * A TCP fault relay for the fault suite: it stands between a client (mcp-run) and a real server on
 * 127.0.0.1 and, on command, makes the network misbehave. The fault in force is read as bytes
 * flow, so a change applies to open connections too (except `refuse`, which only new ones meet):
 *
 * - `latency`: every chunk, both ways, waits `ms` before it is passed on (order is kept);
 * - `blackhole`: connections are accepted, their bytes read and dropped, nothing ever comes back;
 * - `stall`: bytes are held, both ways, and passed on in order when the fault is lifted (a partition
 *   that TCP rides out: nothing is lost, everything is late);
 * - `refuse`: a new connection is closed at once (as a server that is down but whose port answers);
 * - `reset`: after `afterBytes` bytes from the server, the connection is reset (RST), both sides;
 * - `drip`: the server's bytes reach the client `bytes` at a time, every `everyMs`.
 *
 * `cut()` resets every open connection now. Nothing read is kept beyond what is in transit: a
 * blackholed connection costs no memory however much the client sends.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export type Fault =
  | { readonly kind: 'none' }
  | { readonly kind: 'latency'; readonly ms: number }
  | { readonly kind: 'blackhole' }
  | { readonly kind: 'stall' }
  | { readonly kind: 'refuse' }
  | { readonly kind: 'reset'; readonly afterBytes: number }
  | { readonly kind: 'drip'; readonly bytes: number; readonly everyMs: number };

export interface FaultRelay {
  readonly host: string;
  readonly port: number;
  /** The fault in force; `{ kind: 'none' }` relays faithfully. */
  fault: Fault;
  /** Resets every open connection (both sides), as a server restart or a network cut does. */
  cut(): void;
  /** Connections accepted so far, and open now. */
  readonly accepted: number;
  readonly open: number;
  close(): Promise<void>;
}

const NONE: Fault = { kind: 'none' };

interface Pair {
  readonly client: Socket;
  readonly upstream: Socket;
  end(reset: boolean): void;
  /** Passes on what a stall held. */
  release(): void;
}

/** Resets a connected socket (RST); one still connecting or gone is just destroyed. */
function kill(socket: Socket): void {
  if (!socket.destroyed && !socket.connecting && socket.readyState === 'open') socket.resetAndDestroy();
  else socket.destroy();
}

export async function startRelay(
  target: { host?: string; port: number },
  listenPort = 0,
): Promise<FaultRelay> {
  const host = target.host ?? '127.0.0.1';
  const pairs = new Set<Pair>();
  const state = { fault: NONE, accepted: 0 };

  const server: Server = createServer((client) => {
    state.accepted++;
    client.on('error', () => undefined);
    if (state.fault.kind === 'refuse') {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, host);
    upstream.on('error', () => undefined);
    const held: { to: Socket; chunk: Buffer }[] = [];
    const pair: Pair = {
      client,
      upstream,
      end: () => undefined,
      release: () => {
        for (const { to, chunk } of held.splice(0)) if (!ended) to.write(chunk);
      },
    };
    pairs.add(pair);
    let down = 0;
    let ended = false;
    const end = (reset: boolean) => {
      if (ended) return;
      ended = true;
      pairs.delete(pair);
      for (const socket of [client, upstream]) {
        if (reset) kill(socket);
        else socket.destroy();
      }
    };
    pair.end = end;
    client.on('close', () => end(false));
    upstream.on('close', () => end(false));

    // Bytes waiting for the drip, and its timer.
    const dripQueue: Buffer[] = [];
    let dripTimer: NodeJS.Timeout | undefined;
    const drip = () => {
      const fault = state.fault;
      if (fault.kind !== 'drip') {
        // The drip was lifted: what waited goes at once.
        for (const chunk of dripQueue.splice(0)) client.write(chunk);
        dripTimer = undefined;
        return;
      }
      let left = fault.bytes;
      while (left > 0 && dripQueue.length > 0) {
        const head = dripQueue[0]!;
        const part = head.subarray(0, left);
        client.write(part);
        left -= part.length;
        if (part.length === head.length) dripQueue.shift();
        else dripQueue[0] = head.subarray(part.length);
      }
      dripTimer = dripQueue.length > 0 ? setTimeout(drip, fault.everyMs) : undefined;
    };
    client.on('close', () => clearTimeout(dripTimer));

    const pass = (from: 'client' | 'upstream', chunk: Buffer) => {
      if (ended) return;
      const fault = state.fault;
      const to = from === 'client' ? upstream : client;
      switch (fault.kind) {
        case 'blackhole':
          return;
        case 'stall':
          held.push({ to, chunk });
          return;
        case 'latency':
          setTimeout(() => {
            if (!ended) to.write(chunk);
          }, fault.ms);
          return;
        case 'reset':
          if (from === 'upstream') {
            const room = fault.afterBytes - down;
            if (room <= 0) return end(true);
            down += chunk.length;
            if (chunk.length > room) {
              client.write(chunk.subarray(0, room), () => end(true));
              return;
            }
          }
          to.write(chunk);
          return;
        case 'drip':
          if (from === 'upstream') {
            dripQueue.push(chunk);
            dripTimer ??= setTimeout(drip, 0);
            return;
          }
          to.write(chunk);
          return;
        default:
          to.write(chunk);
      }
    };
    client.on('data', (chunk: Buffer) => pass('client', chunk));
    upstream.on('data', (chunk: Buffer) => pass('upstream', chunk));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPort, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the relay has no port');
  const cut = () => {
    for (const pair of [...pairs]) pair.end(true);
  };
  return {
    host: '127.0.0.1',
    port: address.port,
    get fault() {
      return state.fault;
    },
    set fault(fault: Fault) {
      state.fault = fault;
      if (fault.kind !== 'stall') for (const pair of pairs) pair.release();
    },
    cut,
    get accepted() {
      return state.accepted;
    },
    get open() {
      return pairs.size;
    },
    async close() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
