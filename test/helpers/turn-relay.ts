/**
 * A TCP relay on 127.0.0.1 that counts the turns of each conversation through it: a round trip is
 * a flight of bytes from the client after the server has spoken (or the connection's first). With
 * one request in flight at a time this counts the client's round trips exactly, whatever the
 * segment sizes: a pipelined batch is one flight, a MULTI…EXEC sent at once is one.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface TurnRelay {
  readonly port: number;
  /** Round trips so far over every connection (settable, to count from a point). */
  turns: number;
  /** Drops every connection through it (the relay keeps listening: clients can reconnect). */
  cut(): void;
  close(): void;
}

export async function turnRelay(host: string, port: number): Promise<TurnRelay> {
  const sockets = new Set<Socket>();
  const state = { turns: 0 };
  const server = createServer((client) => {
    let serverSpoke = true;
    const upstream = connect(port, host);
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => {
      if (serverSpoke) state.turns++;
      serverSpoke = false;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      serverSpoke = true;
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    get turns() {
      return state.turns;
    },
    set turns(n: number) {
      state.turns = n;
    },
    cut() {
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
