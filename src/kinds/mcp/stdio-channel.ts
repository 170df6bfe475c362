/**
 * The stdio channel: the upstream is a program started without a shell (argv, its own process
 * group, only the environment the source declares), speaking newline-delimited JSON-RPC on its
 * stdin and stdout. Its stderr is read line by line into mcp-run's debug log, and its last lines
 * explain an early exit. A line over `maxMessageBytes` is never buffered: the upstream can no longer
 * be trusted to be in step, so the channel closes (and the source restarts it) the moment the line
 * passes the limit, whether or not it ever ends.
 *
 * `close` kills the program and everything it started (../shared/process-tree.ts), SIGTERM first
 * and SIGKILL after a grace period; a program still running when mcp-run exits is killed too.
 */
import { spawn } from 'node:child_process';
import { escapeControls } from '../../util/escape-controls.js';
import { LineFramer } from '../../util/line-framer.js';
import type { Logger } from '../contract/kinds.js';
import { killAllTrees, MARKER_VARIABLE, ProcessTree } from '../shared/process-tree.js';
import type { Channel, ChannelEvents, Outgoing } from './client.js';

/** How long the program has after SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 1000;
/** stderr lines longer than this are cut: they are for the log. */
const MAX_STDERR_LINE = 8192;
/** The last stderr lines kept, to say why the program exited. */
const STDERR_KEPT = 5;

export interface StdioOptions {
  readonly name: string;
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly maxMessageBytes: number;
  readonly log: Logger;
}

let exitHookInstalled = false;

export function startStdio(o: StdioOptions, events: ChannelEvents): Promise<Channel> {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => killAllTrees());
  }
  const tree = new ProcessTree();
  const child = spawn(o.file, [...o.args], {
    cwd: o.cwd,
    env: { ...o.env, [MARKER_VARIABLE]: tree.marker },
    shell: false,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (child.pid !== undefined) tree.track(child.pid);
  const stderr: string[] = [];
  let closing = false;
  let ended = false;
  const end = (reason: string) => {
    if (ended) return;
    ended = true;
    events.closed(reason);
  };
  const lastWords = () => (stderr.length === 0 ? '' : `; its last stderr lines: ${stderr.join(' | ')}`);
  const framer = new LineFramer(
    o.maxMessageBytes,
    (line) => {
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        o.log.debug(`${o.name} wrote a line that is not JSON on stdout; ignored`);
        return;
      }
      events.message(message, Buffer.byteLength(line));
    },
    () => {},
    // At once, not when the line ends: a line that never ends must not hold the calls in flight.
    () => {
      if (ended) return;
      o.log.warn(`${o.name} sent a message over ${o.maxMessageBytes} bytes; it is restarted`);
      end(`${o.name} sent a message over its maxMessageBytes (${o.maxMessageBytes}) and was restarted`);
      void stop();
    },
  );
  const stderrFramer = new LineFramer(
    MAX_STDERR_LINE * 4,
    (line) => {
      const cut = escapeControls(line.length > MAX_STDERR_LINE ? `${line.slice(0, MAX_STDERR_LINE)}…` : line);
      o.log.debug(`${o.name}: ${cut}`);
      stderr.push(cut.slice(0, 300));
      if (stderr.length > STDERR_KEPT) stderr.shift();
    },
    () => {},
  );
  child.stdout.on('data', (chunk: Buffer) => framer.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderrFramer.push(chunk));
  child.stdin.on('error', () => {}); // a program that died closes the pipe; 'exit' says so
  const stop = async () => {
    if (closing) return;
    closing = true;
    tree.signal('SIGTERM');
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    const grace = new Promise<void>((resolve) => setTimeout(resolve, KILL_GRACE_MS).unref());
    await Promise.race([exited, grace]);
    await tree.kill();
  };

  return new Promise((resolve, reject) => {
    child.once('error', (err) => {
      end(`${o.name} could not be started: ${err.message}`);
      reject(new Error(`${o.name} could not be started: ${err.message}`));
    });
    child.once('exit', (code, signal) => {
      void tree.kill();
      const how = signal === null ? `with code ${code}` : `on ${signal}`;
      end(`${o.name} exited ${how}${closing ? '' : lastWords()}`);
    });
    child.once('spawn', () =>
      resolve({
        async send(out: Outgoing) {
          if (ended) throw new Error(`${o.name} is not running`);
          const line = `${JSON.stringify(out.message)}\n`;
          if (!child.stdin.write(line))
            await new Promise<void>((done) => {
              child.stdin.once('drain', done);
              child.once('exit', done);
            });
        },
        negotiated() {},
        async close() {
          await stop();
          end(`${o.name} was stopped`);
        },
      }),
    );
  });
}
