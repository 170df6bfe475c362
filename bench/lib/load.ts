/**
 * The load generators. HTTP throughput: autocannon as a library, with latencies taken from its
 * per-response event (microsecond resolution; its own histogram keeps whole milliseconds, too coarse
 * for sub-millisecond servers). Sequential latency: one undici connection, one request at a time.
 * And the interleaving every comparison uses: contenders A, B, C, A, B, C… for N rounds.
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { answered, ID_SLOT } from './mcp.js';
import { type Latency, latency, median } from './stats.js';

interface CannonOptions {
  url: string;
  connections: number;
  duration: number;
  method: string;
  headers: Record<string, string>;
  body: string;
  idReplacement: boolean;
  amount?: number;
  verifyBody: (body: string) => boolean;
  sampleInt: number;
}
interface CannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  mismatches: number;
}
type Tracker = PromiseLike<CannonResult> & {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
};
const autocannon = createRequire(import.meta.url)('autocannon') as (options: CannonOptions) => Tracker;

/** One HTTP request the load repeats: a POST whose body has `[<id>]` where the JSON-RPC id goes. */
export interface Target {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Is this answer right? Checked once before the load, and on every answer during it. */
  readonly verify?: (body: string) => boolean;
}

export interface Throughput extends Latency {
  /** Correct answers per second. */
  readonly rps: number;
  /** Errors, timeouts, non-2xx and wrong answers: non-zero means the figure is not to be trusted. */
  readonly failed: number;
}

/** One request by fetch: proves the target answers correctly before it is loaded. */
export async function probe(target: Target): Promise<string> {
  const res = await fetch(target.url, {
    method: 'POST',
    headers: target.headers,
    body: target.body.replaceAll(ID_SLOT, '1'),
  });
  const text = await res.text();
  if (res.status !== 200 || !(target.verify ?? answered)(text)) {
    throw new Error(`${target.url} answered ${res.status}: ${text.slice(0, 400)}`);
  }
  return text;
}

/**
 * Loads `target` with `connections` connections for `seconds`, or, when `amount` is given, until
 * that many answers came (smoke runs use it: a loaded machine may answer nothing in 0.2 s).
 */
export async function cannon(
  target: Target,
  connections: number,
  seconds: number,
  amount?: number,
): Promise<Throughput> {
  const samples: number[] = [];
  const tracker = autocannon({
    url: target.url,
    connections,
    duration: seconds,
    method: 'POST',
    headers: { ...target.headers },
    body: target.body,
    idReplacement: true,
    ...(amount !== undefined && { amount }),
    verifyBody: target.verify ?? answered,
    // autocannon stops on its sampling tick (1 s by default): a finer tick keeps runs to their length.
    sampleInt: 100,
  });
  tracker.on('response', (_client, status, _bytes, ms) => {
    if (status === 200) samples.push(ms);
  });
  const r = await tracker;
  const failed = r.errors + r.timeouts + r.non2xx + r.mismatches;
  return { ...latency(samples), rps: (samples.length - r.mismatches) / r.duration, failed };
}

export interface Sequential extends Latency {
  readonly rps: number;
  readonly failed: number;
}

/**
 * One keep-alive undici connection, one request at a time, for `seconds`: latency with nothing
 * queued. `send` makes one request and says whether the answer was right.
 */
export async function sequential(
  origin: string,
  seconds: number,
  send: (client: Client, i: number) => Promise<boolean>,
): Promise<Sequential> {
  const client = new Client(origin, { pipelining: 1 });
  const samples: number[] = [];
  let failed = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  try {
    for (let i = 0; performance.now() < end || i === 0; i++) {
      const t0 = performance.now();
      const ok = await send(client, i);
      samples.push(performance.now() - t0);
      if (!ok) failed++;
    }
  } finally {
    await client.close();
  }
  return { ...latency(samples), rps: samples.length / ((performance.now() - start) / 1000), failed };
}

/** A contender in a comparison: its label and what one measurement of it does. */
export interface Contender<T> {
  readonly label: string;
  readonly measure: (seconds: number) => Promise<T>;
  /** Its own warmup, in seconds, instead of the comparison's (a server of several processes). */
  readonly warmup?: number;
}

/**
 * Warms each contender up, then runs rounds of A, B, C…, each measurement `seconds` long. Resolves
 * with every round's figures per contender, in the contenders' order.
 */
export async function interleave<T>(
  contenders: readonly Contender<T>[],
  options: { rounds: number; seconds: number; warmup: number },
  progress: (line: string) => void = () => {},
): Promise<T[][]> {
  for (const c of contenders) {
    const warmup = c.warmup ?? options.warmup;
    if (warmup > 0) await c.measure(warmup);
  }
  const results: T[][] = contenders.map(() => []);
  for (let round = 0; round < options.rounds; round++) {
    for (const [i, c] of contenders.entries()) {
      results[i]!.push(await c.measure(options.seconds));
      progress(`round ${round + 1}/${options.rounds}: ${c.label}`);
    }
  }
  return results;
}

/** The medians over rounds of each field the tables show. */
export function medians<T extends Latency & { rps: number; failed: number }>(rounds: readonly T[]) {
  return {
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    failed: rounds.reduce((sum, r) => sum + r.failed, 0),
  };
}
