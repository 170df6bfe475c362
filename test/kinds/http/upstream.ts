/**
 * A real HTTP upstream on 127.0.0.1 for the http kind tests: it records exactly what arrived (method,
 * raw URL, headers, body, and whether the client closed the connection before an answer) and, by
 * default, echoes that record back as JSON.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  /** Resolves when the client closed the connection while the answer was not yet complete. */
  readonly aborted: Promise<void>;
}

export type Handler = (seen: Seen, res: ServerResponse, req: IncomingMessage) => void | Promise<void>;

export interface Upstream {
  /** http://127.0.0.1:port */
  readonly origin: string;
  readonly seen: Seen[];
  /** Requests received whose path starts with `prefix`. */
  hits(prefix: string): Seen[];
  /** Client connections currently open (keep-alive ones included). */
  openConnections(): number;
  close(): Promise<void>;
}

export function echo(seen: Seen, res: ServerResponse): void {
  const { method, url, headers, body } = seen;
  send(res, 200, { method, url, headers, body });
}

export function send(
  res: ServerResponse,
  status: number,
  data: unknown,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(data);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

export async function startUpstream(route: (url: string) => Handler = () => echo): Promise<Upstream> {
  const seen: Seen[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const aborted = new Promise<void>((resolve) => {
      res.on('close', () => {
        if (!res.writableFinished) resolve();
      });
    });
    const record: Seen = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: { ...req.headers },
      body: Buffer.concat(chunks).toString('utf8'),
      aborted,
    };
    seen.push(record);
    await route(record.url)(record, res, req);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    hits: (prefix) => seen.filter((s) => s.url.startsWith(prefix)),
    openConnections: () => sockets.size,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
