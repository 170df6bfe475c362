/**
 * A raw JSON-RPC peer over a real child process's stdio, for what the official clients refuse to
 * send: malformed lines, wrong versions, requests out of order. Every stdout line is kept, so a test
 * can also prove that nothing but JSON-RPC ever reached stdout.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { CLI } from './demo.js';

type Message = Record<string, any>;

/** Lines of the server's stderr a timed-out wait shows. */
const STDERR_TAIL_LINES = 20;

export class RawStdioPeer {
  readonly stdoutLines: string[] = [];
  stderr = '';
  readonly child: ChildProcessWithoutNullStreams;
  private readonly waiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  private buffered = '';

  /** `command`: what to run, the built CLI by default (`args` follow it). */
  constructor(
    args: string[],
    cwd?: string,
    command: readonly [string, ...string[]] = [process.execPath, CLI],
  ) {
    const [program, ...before] = command;
    this.child = spawn(program, [...before, ...args], { cwd, stdio: 'pipe' });
    this.child.stderr.setEncoding('utf8').on('data', (s: string) => {
      this.stderr += s;
    });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.buffered += chunk;
      let nl = this.buffered.indexOf('\n');
      while (nl >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        this.stdoutLines.push(line);
        // A line that is not JSON is kept for the test to see, and answers nothing.
        const message = parseLine(line);
        if (message !== undefined) this.dispatch(message);
        nl = this.buffered.indexOf('\n');
      }
    });
  }

  /** Writes one raw line (a newline is added). */
  sendLine(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  send(message: Message): void {
    this.sendLine(JSON.stringify(message));
  }

  /** The next message for which `match` holds (responses are matched by id with `response`). */
  next(match: (m: Message) => boolean, timeoutMs = 10_000): Promise<Message> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        // What the server said last is what tells a timeout's cause (a reload that never ran, a crash).
        () => reject(new Error(`no matching message within ${timeoutMs} ms; ${this.stderrTail()}`)),
        timeoutMs,
      );
      this.waiters.push({
        match,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  /** Sends a request and resolves with its response. */
  request(message: Message): Promise<Message> {
    const response = this.next((m) => m.id === message.id && !('method' in m));
    this.send(message);
    return response;
  }

  /** Ends stdin and resolves with the exit code. */
  async end(): Promise<number | null> {
    this.child.stdin.end();
    const [code] = await once(this.child, 'exit');
    return code as number | null;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  private stderrTail(): string {
    const tail = this.stderr.trimEnd().split('\n').slice(-STDERR_TAIL_LINES).join('\n');
    return tail ? `the server's stderr ends:\n${tail}` : 'the server wrote nothing to stderr';
  }

  private dispatch(message: Message): void {
    const i = this.waiters.findIndex((w) => w.match(message));
    if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(message);
  }
}

function parseLine(line: string): Message | undefined {
  try {
    return JSON.parse(line) as Message;
  } catch {
    return undefined;
  }
}
