/**
 * A JSON-RPC peer over a child process's stdio (newline-delimited JSON), for round trips,
 * pipelining, cold starts and the notifications hot reload sends. Requests are matched to answers by
 * id; every answer resolves with its round-trip time.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { INITIALIZED, initialize } from './mcp.js';
import { memoryOf, REPO } from './proc.js';

export interface Message {
  readonly id?: string | number;
  readonly method?: string;
  readonly result?: { readonly isError?: boolean; readonly [key: string]: unknown };
  readonly error?: { readonly message?: string };
  readonly [key: string]: unknown;
}

export class StdioPeer {
  /** performance.now() just before the process was spawned. */
  readonly spawnedAt: number;
  stderr = '';
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<string | number, (m: Message) => void>();
  private readonly listeners: ((m: Message) => void)[] = [];
  /** The chunks of the line not yet ended (a list page of the GitHub import is 6.6 MB). */
  private partial: string[] = [];
  private nextId = 1;

  constructor(
    readonly label: string,
    args: readonly string[],
    /** Variables set for the child on top of the bench's own. */
    env?: Readonly<Record<string, string>>,
  ) {
    this.spawnedAt = performance.now();
    this.child = spawn(process.execPath, args, {
      cwd: REPO,
      stdio: 'pipe',
      ...(env && { env: { ...process.env, ...env } }),
    });
    this.child.stderr.setEncoding('utf8').on('data', (s: string) => {
      this.stderr = (this.stderr + s).slice(-16_384);
    });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => this.onData(chunk));
    this.child.stdin.on('error', () => {}); // a server that died is reported by its pending requests
    this.child.once('exit', (code) => {
      for (const resolve of this.pending.values()) {
        resolve({ error: { message: `${label} exited (${code}): ${this.stderr}` } });
      }
      this.pending.clear();
    });
  }

  /** Sends a request (its id is assigned here) and resolves with the answer. */
  request(message: Record<string, unknown>): Promise<Message> {
    const id = this.nextId++;
    const answer = new Promise<Message>((resolve) => this.pending.set(id, resolve));
    this.child.stdin.write(`${JSON.stringify({ ...message, id })}\n`);
    return answer;
  }

  notify(message: Record<string, unknown>): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Calls `listener` on every message that is not an answer (notifications, server requests). */
  onMessage(listener: (m: Message) => void): void {
    this.listeners.push(listener);
  }

  /** The legacy handshake; resolves when the server answered `initialize`. */
  async initialize(): Promise<Message> {
    const answer = await this.request(initialize(0));
    if (!answer.result) throw new Error(`${this.label}: initialize failed: ${JSON.stringify(answer)}`);
    this.notify(INITIALIZED);
    return answer;
  }

  waitForStderr(pattern: RegExp, timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    return new Promise((ok, fail) => {
      const poll = () => {
        if (pattern.test(this.stderr)) ok();
        else if (performance.now() > deadline)
          fail(new Error(`${this.label}: no ${pattern}: ${this.stderr}`));
        else setTimeout(poll, 5);
      };
      poll();
    });
  }

  memory() {
    return memoryOf(this.child.pid);
  }

  /** Ends stdin and waits for the exit (killed after 5 s). */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  /**
   * Only the new chunk is searched for the line's end, and a line is joined once: appending each
   * 64 KB chunk to one string and searching it all again made reading a 6.6 MB answer quadratic,
   * some 400 ms of the bench's own time counted as the server's.
   */
  private onData(chunk: string): void {
    let start = 0;
    for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
      this.partial.push(chunk.slice(start, nl));
      const line = this.partial.join('');
      this.partial = [];
      start = nl + 1;
      if (line.trim() !== '') this.deliver(JSON.parse(line) as Message);
    }
    if (start < chunk.length) this.partial.push(chunk.slice(start));
  }

  private deliver(message: Message): void {
    const resolve =
      'method' in message || message.id === undefined ? undefined : this.pending.get(message.id);
    if (resolve) {
      this.pending.delete(message.id!);
      resolve(message);
    } else {
      for (const listener of this.listeners) listener(message);
    }
  }
}

/** A correct tool answer over stdio. */
export const stdioAnswered = (m: Message): boolean => m.result !== undefined && m.result.isError !== true;
