/**
 * Runs one program without a shell, in its own process group, with bounded output and time.
 *
 * Everything the program starts dies with the call (../shared/process-tree.ts finds it: the group, the ppid chains,
 * and processes that left the group or were orphaned). A timeout or a cancellation signals all of it,
 * SIGTERM first and SIGKILL after a grace period; when the program exits by itself, whatever it left
 * running is SIGKILLed at once. The outcome is reported only once they are gone. A run still in
 * progress when mcp-run exits is killed the same way.
 *
 * stdout and stderr are kept up to maxOutputBytes each; past that the pipes are still read (so the
 * program never blocks on a full pipe) and only counted.
 */
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import type { CallSignal } from '../../util/call-signal.js';
import { killAllTrees, MARKER_VARIABLE, ProcessTree } from '../shared/process-tree.js';

export const KILL_GRACE_MS = 2000;
/** After the program exits, how long children holding its stdout/stderr may keep them open. */
const DRAIN_MS = 1000;
/** Longer lines are handed on in pieces (progress and log lines are short). */
const MAX_LINE_CHARS = 8192;

export interface RunOptions {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly stdin?: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly signal: CallSignal;
  readonly onStdoutLine?: (line: string) => void;
  readonly onStderrLine?: (line: string) => void;
}

export interface Output {
  /** At most maxOutputBytes. */
  readonly bytes: Buffer;
  /** Everything the program wrote, counted. */
  readonly total: number;
}

export interface RunOutcome {
  readonly stdout: Output;
  readonly stderr: Output;
  readonly exitCode: number | null;
  readonly exitSignal: NodeJS.Signals | null;
  /** Why mcp-run stopped the program, if it did. */
  readonly stopped?: 'timeout' | 'cancelled';
  /** The program could not be started. */
  readonly spawnError?: Error;
}

let exitHookInstalled = false;

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function runProcess(o: RunOptions): Promise<RunOutcome> {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      killAllTrees();
    });
  }
  return new Promise((resolve) => {
    const stdout = collector(o.maxOutputBytes, o.onStdoutLine);
    const stderr = collector(o.maxOutputBytes, o.onStderrLine);
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let stopped: 'timeout' | 'cancelled' | undefined;
    let killed = false;
    let done = false;
    const timers: NodeJS.Timeout[] = [];
    const tree = new ProcessTree();

    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(o.file, [...o.args], {
        cwd: o.cwd,
        env: { ...o.env, [MARKER_VARIABLE]: tree.marker },
        shell: false,
        detached: true,
        stdio: [o.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      });
    } catch (err) {
      // Synchronous refusals: an argument or variable Node will not pass (a NUL byte).
      resolve({ stdout: stdout.end(), stderr: stderr.end(), exitCode, exitSignal, spawnError: err as Error });
      return;
    }
    const pid = child.pid;
    if (pid !== undefined) tree.track(pid);

    const finish = (spawnError?: Error) => {
      if (done) return;
      done = true;
      for (const t of timers) clearTimeout(t);
      o.signal.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      const outcome: RunOutcome = {
        stdout: stdout.end(),
        stderr: stderr.end(),
        exitCode,
        exitSignal,
        ...(stopped && { stopped }),
        ...(spawnError && { spawnError }),
      };
      // Nothing the call started outlives it.
      void tree.kill().then(() => resolve(outcome));
    };
    /** After a stop, wait until the whole group is gone (or SIGKILL was sent) before reporting. */
    const finishWhenGroupGone = () => {
      if (pid === undefined || killed || !groupAlive(pid)) return finish();
      timers.push(setTimeout(finishWhenGroupGone, 50));
    };
    const stop = (why: 'timeout' | 'cancelled') => {
      if (stopped || done || pid === undefined) return;
      stopped = why;
      tree.signal('SIGTERM');
      timers.push(
        setTimeout(() => {
          tree.signal('SIGKILL');
          killed = true;
          // Normally 'close' follows at once; a process in another session may still hold the pipes.
          timers.push(setTimeout(() => finish(), DRAIN_MS));
        }, KILL_GRACE_MS),
      );
    };
    const onAbort = () => stop('cancelled');

    child.stdout?.on('data', stdout.push);
    child.stderr?.on('data', stderr.push);
    if (o.stdin !== undefined && child.stdin) {
      child.stdin.on('error', () => {}); // a program that does not read its input closes the pipe early
      child.stdin.end(o.stdin);
    }
    child.once('error', (err) => {
      if (pid === undefined) finish(err);
    });
    child.once('exit', (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      if (stopped) return;
      // The call ends with the program: what it left running (holding the pipes, maybe) is killed;
      // output already in the pipes is still read. Do not wait for the pipes forever either.
      void tree.kill();
      timers.push(setTimeout(() => finish(), DRAIN_MS));
    });
    child.once('close', () => (stopped ? finishWhenGroupGone() : finish()));
    timers.push(setTimeout(() => stop('timeout'), o.timeoutMs));
    if (o.signal.aborted) onAbort();
    else o.signal.addEventListener('abort', onAbort, { once: true });
  });
}

function collector(max: number, onLine: ((line: string) => void) | undefined) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  const decoder = new StringDecoder('utf8');
  let partial = '';
  const lines = (text: string) => {
    partial += text;
    let nl = partial.indexOf('\n');
    while (nl >= 0) {
      onLine!(partial.slice(0, nl).replace(/\r$/, ''));
      partial = partial.slice(nl + 1);
      nl = partial.indexOf('\n');
    }
    if (partial.length > MAX_LINE_CHARS) {
      onLine!(partial);
      partial = '';
    }
  };
  return {
    push: (chunk: Buffer) => {
      total += chunk.length;
      if (kept < max) {
        const part = chunk.subarray(0, max - kept);
        chunks.push(part);
        kept += part.length;
      }
      if (onLine) lines(decoder.write(chunk));
    },
    end: (): Output => {
      if (onLine) {
        lines(decoder.end());
        if (partial) onLine(partial.replace(/\r$/, ''));
        partial = '';
      }
      return { bytes: Buffer.concat(chunks), total };
    },
  };
}
