/**
 * The DuckDB worker: a child process (started by host.ts) holding a source's DuckDB instance and its
 * connections. A child process, because DuckDB's memory_limit bounds only its buffer manager: a
 * string function (`repeat('x', 2000000000)`) allocates outside it, as much as it likes, and does not
 * stop at an interrupt. The server watches this process's memory and its time, and kills it; it
 * cannot do that to its own.
 *
 * The channel is the family's (../worker-process.ts): newline-delimited JSON, requests on fd 3 and
 * answers on fd 4. The first line is the WorkerInit, answered with the greeting (ready, or why the
 * source cannot open); every line after it one request: a query, or the cancel of one. Queries run
 * at once, each on a connection of the pool (the server sends no more than `poolSize` at a time),
 * and are answered as they end. When the server goes away its request socket ends, and so does this
 * process.
 */
import { Socket } from 'node:net';
import { LineFramer } from '../../../util/line-framer.js';
import type { SqlResult } from '../../contract/kinds.js';
import { ANSWER_FD, REQUEST_FD, unpackValue } from '../worker-process.js';
import type { WorkerInit } from './open.js';
import { ReadParser } from './parser.js';
import type { ConnectionPool } from './pool.js';
import type { runOn as RunOn, WorkerRun } from './run.js';

export type WorkerRequest =
  | {
      readonly id: number;
      readonly op: 'query';
      readonly text: string;
      /** Bound values, bigints and bytes tagged (packValue), objects as JSON text. */
      readonly values: readonly unknown[];
      readonly run: WorkerRun;
    }
  | { readonly id: number; readonly op: 'cancel' };

export type WorkerAnswer =
  | { readonly id: number; readonly ok: true; readonly value: SqlResult }
  | { readonly id: number; readonly ok: false; readonly message: string };

/** The first answer, to the WorkerInit. */
export type WorkerGreeting =
  | { readonly ready: true }
  | {
      readonly failed: string;
      readonly at?: 'path' | 'tables';
      /** `@duckdb/node-api` could not be imported: it is not installed (source.ts says how to add it). */
      readonly notInstalled?: true;
    };

/** The argument the host starts worker.js with (imported for its types, it does nothing). */
export const WORKER_ARG = '--duckdb-worker';

/**
 * Whether an import failed because a package of the engine is not installed: `@duckdb/node-api`
 * itself (an optional peer of mcp-run, left out of its default install: package.json), or one of
 * its own packages (its bindings, their native module for this platform).
 */
function isEngineMissing(err: unknown): boolean {
  const { code, message } = err as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    message.includes('@duckdb/')
  );
}

/**
 * Opens the source. The modules that use the engine load here, not with this file: an install
 * without DuckDB gets a greeting that says so (source.ts turns it into the command that adds it),
 * not a worker that dies on its first line.
 */
async function open(
  init: WorkerInit,
): Promise<
  { pool: ConnectionPool; runOn: typeof RunOn } | { failure: Extract<WorkerGreeting, { failed: string }> }
> {
  let engine: [typeof import('./open.js'), typeof import('./run.js')];
  try {
    engine = await Promise.all([import('./open.js'), import('./run.js')]);
  } catch (err) {
    const failed = (err as Error).message;
    return { failure: isEngineMissing(err) ? { failed, notInstalled: true } : { failed } };
  }
  const [{ OpenFailure, openInstance }, { runOn }] = engine;
  try {
    return { pool: (await openInstance(init)).pool, runOn };
  } catch (err) {
    const at = err instanceof OpenFailure ? err.at : undefined;
    return { failure: { failed: (err as Error).message, ...(at !== undefined && { at }) } };
  }
}

function serve(): void {
  const requests = new Socket({ fd: REQUEST_FD, readable: true, writable: false });
  const answers = new Socket({ fd: ANSWER_FD, readable: false, writable: true });
  const send = (message: WorkerGreeting | WorkerAnswer) => answers.write(`${JSON.stringify(message)}\n`);
  const parser = new ReadParser();
  const running = new Map<number, AbortController>();
  let pool: ConnectionPool | undefined;
  let runOn: typeof RunOn | undefined;

  const query = (r: WorkerRequest & { op: 'query' }) => {
    const controller = new AbortController();
    running.set(r.id, controller);
    // Once answered, a cancel that comes later finds nothing to stop.
    runOn!(pool!, parser, r.text, r.values.map(unpackValue), r.run, controller.signal)
      .then(
        (value): WorkerAnswer => ({ id: r.id, ok: true, value }),
        (err: Error): WorkerAnswer => ({ id: r.id, ok: false, message: err.message }),
      )
      .then((answer) => {
        running.delete(r.id);
        send(answer);
      });
  };

  let started = false;
  const framer = new LineFramer(
    Number.POSITIVE_INFINITY,
    (line) => {
      if (!started) {
        started = true;
        open(JSON.parse(line) as WorkerInit).then((opened) => {
          if ('failure' in opened) {
            send(opened.failure);
            return;
          }
          ({ pool, runOn } = opened);
          send({ ready: true });
        });
        return;
      }
      const request = JSON.parse(line) as WorkerRequest;
      if (request.op === 'query') query(request);
      else running.get(request.id)?.abort();
    },
    () => undefined,
  );
  requests.on('data', (data: Buffer) => framer.push(data));
  // The server is gone (end of file, or the socket broke): so is this worker.
  requests.on('end', () => process.exit(0));
  requests.on('error', () => process.exit(0));
  answers.on('error', () => process.exit(0));
}

// Started by the host with this argument; imported for its types, it does nothing.
if (process.argv[2] === WORKER_ARG) serve();
