/**
 * A worker process of an SQL engine: a child `node` running one of the engine's modules (SQLite's
 * worker.ts, DuckDB's), killed when a query must be stopped and the engine cannot stop it, or when
 * it takes more memory than its bound. Every engine that runs its queries out of the server's
 * process starts its workers here, so they are started, reached and killed one way.
 *
 * Each worker talks over a channel of its own, a socket each way (`stdio[3]` for requests, `stdio[4]`
 * for answers), newline-delimited JSON (JSON text never holds a raw newline), written with one write
 * and split with one scan: node's IPC channel (`process.send`) costs about twice the round trip for
 * the same bytes. One way each, because a worker may wait for its next request in a blocking `read`,
 * and Linux wakes whatever waits on a Unix socket whenever its peer reads what it sent (to say there
 * is room to write): on one socket both ways, every answer the server read woke the worker for
 * nothing.
 *
 * Workers run the compiled module beside the engine's other files; when this file runs from src/
 * under tsx (the tests), the `.ts` one with tsx's loader. A worker, and its channel, never keep the
 * server alive; every live worker is killed when the server process exits, however it exits.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { BUILD_ROOT } from '../../util/build-root.js';
import { LineFramer } from '../../util/line-framer.js';

/** The worker's ends of its channel: requests come in on fd 3, answers go out on fd 4. */
export const REQUEST_FD = 3;
export const ANSWER_FD = 4;

export interface WorkerProcess {
  readonly pid: number | undefined;
  /** Sends one message (a line of JSON text, without its newline). */
  send(line: string): void;
  /** Ends the worker now (SIGKILL); `gone` is not called for it. */
  kill(): void;
  /** Resolves once the process has exited. */
  readonly exited: Promise<void>;
}

export interface WorkerEvents {
  /** One answer line; none comes after `kill`. */
  line(text: string): void;
  /** The worker stopped on its own (its exit, a signal, a failure to start); why, in words. */
  gone(why: string): void;
}

/** Every live worker of every pool, killed when the server process exits however it exits. */
const live = new Set<ChildProcess>();
let exitHook = false;

/**
 * Starts the worker module `module` (a path below the build root without its extension, e.g.
 * `kinds/sql/sqlite/worker`) with `arg` as its first argument.
 */
export function startWorker(module: string, arg: string, events: WorkerEvents): WorkerProcess {
  const ts = import.meta.url.endsWith('.ts');
  const path = fileURLToPath(new URL(`${module}.${ts ? 'ts' : 'js'}`, BUILD_ROOT));
  const execArgv = ts ? ['--import', import.meta.resolve('tsx')] : [];
  const stdio: ('ignore' | 'inherit' | 'pipe')[] = ['ignore', 'ignore', 'inherit'];
  stdio[REQUEST_FD] = 'pipe';
  stdio[ANSWER_FD] = 'pipe';
  const child = spawn(process.execPath, [...execArgv, path, arg], { stdio });
  const requests = child.stdio[REQUEST_FD] as Socket;
  const answers = child.stdio[ANSWER_FD] as Socket;
  live.add(child);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  // Neither an idle worker nor its channel keeps the server alive.
  child.unref();
  requests.unref();
  answers.unref();
  let ended = false;
  // The worker's answers are bounded by its budgets, not by the line: no limit of the framer's.
  const framer = new LineFramer(
    Number.POSITIVE_INFINITY,
    (line) => {
      if (!ended) events.line(line);
    },
    () => undefined,
  );
  answers.on('data', (data: Buffer) => framer.push(data));
  const gone = (why: string) => {
    live.delete(child);
    if (ended) return;
    ended = true;
    events.gone(why);
  };
  child.on('exit', (code, sig) => gone(sig ? `signal ${sig}` : `exit code ${code}`));
  child.on('error', (err) => gone(err.message));
  // A broken channel (the worker died) shows as its exit; the error itself has nothing to add.
  requests.on('error', () => undefined);
  answers.on('error', () => undefined);
  return {
    pid: child.pid,
    exited,
    send(line) {
      requests.write(`${line}\n`);
    },
    kill() {
      ended = true;
      requests.destroy();
      answers.destroy();
      // Held until it has exited, so that a caller awaiting `exited` is not left without a loop.
      child.ref();
      child.kill('SIGKILL');
      live.delete(child);
    },
  };
}

type Tagged = { $i: string } | { $b: string };

/**
 * A value as it crosses a channel: JSON cannot hold a bigint or bytes, so they are tagged, a bigint
 * as `{ $i: "<digits>" }`, bytes as `{ $b: "<base64>" }`. No other object is a bound value (objects
 * are bound as JSON text) or an engine's value, so a tagged object is never ambiguous.
 */
export function packValue(value: unknown): unknown {
  if (typeof value === 'bigint') return { $i: value.toString() };
  if (value instanceof Uint8Array)
    return { $b: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  return value;
}

export function unpackValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const tagged = value as Tagged;
  if ('$i' in tagged) return BigInt(tagged.$i);
  if ('$b' in tagged) return Buffer.from(tagged.$b, 'base64');
  return value;
}
