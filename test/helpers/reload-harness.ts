/**
 * Drives a served manifest through edits: writes a file, waits for the server to log that the reload
 * finished (or failed, or found nothing to do), then makes a request, so every notification the
 * reload caused has reached the client before the test looks (stdout is ordered).
 */
import { writeFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type ServedCli, spawnHttpCli } from '../transports/http-harness.js';
import { CLI } from './demo.js';

/** Matches the one line every reload logs at debug level or above. */
const RELOAD_LINE = /^mcp-run: (?:error: |debug: )?(?:reloaded |reload of )/gm;

export class ServerLog {
  text = '';
  constructor(stderr: Readable | null) {
    if (!stderr) throw new Error('start the transport with stderr: "pipe"');
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => {
      this.text += chunk;
    });
  }

  reloads(): number {
    return this.text.match(RELOAD_LINE)?.length ?? 0;
  }

  async waitFor(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; server log:\n${this.text}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Writes `content` to `file` and resolves once the server has logged the reload it caused. */
  async edit(file: string, content: string): Promise<void> {
    const before = this.reloads();
    writeFileSync(file, content);
    await this.waitFor(() => this.reloads() > before, `a reload after editing ${file}`);
  }
}

/** What connectWatchedStdio needs of a client: the official v1 and v2 clients both fit. */
interface Connectable {
  connect(transport: StdioClientTransport): Promise<void>;
}

/**
 * The built CLI serving `file` on stdio to `client`, with --log-level debug and hot reload; resolves
 * with its log once the watcher runs (so an edit after it is seen).
 */
export async function connectWatchedStdio(
  client: Connectable,
  file: string,
  args: string[] = [],
): Promise<ServerLog> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, file, ...args, '--log-level', 'debug'],
    stderr: 'pipe',
  });
  const log = new ServerLog(transport.stderr as never);
  await client.connect(transport);
  await log.waitFor(() => log.text.includes('watching'), 'the watcher to start');
  return log;
}

/** The built CLI serving `file` over HTTP with hot reload; resolves once the watcher runs. */
export async function serveWatchedHttp(file: string): Promise<{ server: ServedCli; log: ServerLog }> {
  const server = await spawnHttpCli([file, '--log-level', 'debug']);
  const log = new ServerLog(server.child.stderr);
  log.text = server.stderr();
  await log.waitFor(() => log.text.includes('watching'), 'the watcher to start');
  return { server, log };
}
