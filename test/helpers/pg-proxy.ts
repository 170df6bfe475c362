/**
 * A TCP relay in front of the test PostgreSQL, for the tests of the startup options: it passes
 * each connection's `options` startup parameter on, drops it (as PgBouncer does with
 * `ignore_startup_parameters = options`) or refuses the connection for it (as PgBouncer does
 * without). It counts the connections it let through and the Execute messages clients sent (one per
 * statement run), and can refuse every connection after the first (so that a client-side cancel,
 * which needs a connection of its own, cannot reach the server).
 */
import { connect, createServer, type Socket } from 'node:net';

export type OptionsMode = 'pass' | 'drop' | 'refuse';

export interface PgProxy {
  /** `target` with the relay's host and port. */
  readonly url: string;
  /** Connections relayed to the server. */
  readonly connections: number;
  /** Execute messages sent by clients so far (settable, to count from a point). */
  executes: number;
  /** Every connection after the first is closed at once. */
  onlyOne: boolean;
  close(): Promise<void>;
}

const PROTOCOL_3 = 196608;
const SSL_REQUEST = 80877103;

/** The FATAL error PgBouncer answers a startup parameter it does not support with. */
function refusal(): Buffer {
  const fields = Buffer.from('SFATAL\0VFATAL\0C08P01\0Munsupported startup parameter: options\0\0', 'utf8');
  const head = Buffer.alloc(5);
  head[0] = 0x45;
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

/** The startup message's parameters, and the message rebuilt from them. */
function parseStartup(message: Buffer): Map<string, string> {
  const params = new Map<string, string>();
  const words = message
    .subarray(8, message.length - 1)
    .toString('utf8')
    .split('\0');
  for (let i = 0; i + 1 < words.length; i += 2) params.set(words[i]!, words[i + 1]!);
  return params;
}
function startupMessage(params: Map<string, string>): Buffer {
  const body = Buffer.from(`${[...params].map(([k, v]) => `${k}\0${v}\0`).join('')}\0`, 'utf8');
  const head = Buffer.alloc(8);
  head.writeInt32BE(body.length + 8, 0);
  head.writeInt32BE(PROTOCOL_3, 4);
  return Buffer.concat([head, body]);
}

export async function pgProxy(target: string, mode: OptionsMode): Promise<PgProxy> {
  const upstreamUrl = new URL(target);
  const sockets = new Set<Socket>();
  const state = { connections: 0, executes: 0, onlyOne: false };
  const server = createServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    if (state.onlyOne && state.connections > 0) {
      client.destroy();
      return;
    }
    let head = Buffer.alloc(0);
    let upstream: Socket | undefined;
    // After the startup: the type byte and length of the message being read, then its body skipped.
    let header = Buffer.alloc(0);
    let skip = 0;
    const count = (chunk: Buffer) => {
      let i = 0;
      while (i < chunk.length) {
        if (skip > 0) {
          const n = Math.min(skip, chunk.length - i);
          skip -= n;
          i += n;
          continue;
        }
        const take = Math.min(5 - header.length, chunk.length - i);
        header = Buffer.concat([header, chunk.subarray(i, i + take)]);
        i += take;
        if (header.length === 5) {
          if (header[0] === 0x45) state.executes++;
          skip = header.readInt32BE(1) - 4;
          header = Buffer.alloc(0);
        }
      }
    };
    client.on('data', (chunk: Buffer) => {
      if (upstream) {
        count(chunk);
        upstream.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      if (head.length < 8 || head.length < head.readInt32BE(0)) return;
      const length = head.readInt32BE(0);
      const message = head.subarray(0, length);
      const rest = head.subarray(length);
      if (message.readInt32BE(4) === SSL_REQUEST) {
        client.write('N');
        head = rest;
        return;
      }
      const params = parseStartup(message);
      if (params.has('options') && mode === 'refuse') {
        client.end(refusal());
        return;
      }
      if (mode === 'drop') params.delete('options');
      state.connections++;
      upstream = connect(Number(upstreamUrl.port || 5432), upstreamUrl.hostname);
      sockets.add(upstream);
      upstream.on('data', (data) => client.write(data));
      const end = () => {
        client.destroy();
        upstream?.destroy();
      };
      upstream.on('close', end).on('error', end);
      client.on('close', end);
      upstream.write(startupMessage(params));
      count(rest);
      upstream.write(rest);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(address.port);
  return {
    url: url.toString(),
    get connections() {
      return state.connections;
    },
    get executes() {
      return state.executes;
    },
    set executes(n: number) {
      state.executes = n;
    },
    get onlyOne() {
      return state.onlyOne;
    },
    set onlyOne(v: boolean) {
      state.onlyOne = v;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
