/**
 * Upstream tool calls held between 2026 rounds. A 2026-07-28 client cannot be asked mid-call: when
 * the upstream asks (elicitation, sampling) during a `tools/call`, our call ends with
 * `input_required` carrying the question, while the upstream's `tools/call` stays open here,
 * waiting for its answer. The client's retry, whose verified requestState names the held call,
 * answers the upstream and waits for what it does next: its result, or another question (a round
 * more). The upstream stays a 2025 server that asks mid-call; only our side of the wire changed.
 *
 * A held call lives in this process only, and only as long as the source's `timeoutMs` bounds the
 * upstream call (all its rounds, the client's answers included, as in the 2025 era): the upstream
 * request's own timer cancels it upstream (`notifications/cancelled`), and a call whose question
 * waited that long for a retry is cancelled and forgotten as well. A retry that finds nothing
 * (expired, another replica or worker, a restart, a reload) is told so; nothing is started again.
 *
 * A held call keeps its place under the source's `maxConcurrency` (its upstream request is open), so
 * one caller holds at most a quarter of a source's places (heldPerCaller): a caller that never
 * retries cannot take the source from everyone else.
 *
 * Bounds, per process: MAX_HELD calls, MAX_HELD_PER_CALLER of one caller, MAX_HELD_BYTES (UTF-8) of
 * what held calls keep while they wait: the question asked, the questions queued behind it and a
 * finished result not yet collected (a held call that would pass the bound is forgotten and
 * cancelled); a held call queues at most MAX_QUEUED questions of MAX_QUEUED_BYTES. A retry
 * from another principal than the first round's is refused, and the call cancelled (its one
 * requestState is spent).
 */

import { JsonRpcCode } from '../../util/jsonrpc.js';
import { nodeCrypto } from '../../util/lazy-node.js';
import type { ClientAskMethod, LogLevel } from '../contract/types.js';
import { UpstreamError } from './client.js';

/** Calls held in this process at once (every mcp source together). */
export const MAX_HELD = 128;
/** Of them, by one caller (CallContext.client, else its principal). */
export const MAX_HELD_PER_CALLER = 16;
/**
 * Calls one caller holds of one source: a quarter of the source's places under `maxConcurrency`
 * (each held call keeps one), at least 1, at most MAX_HELD_PER_CALLER.
 */
export function heldPerCaller(maxConcurrency: number): number {
  return Math.max(1, Math.min(MAX_HELD_PER_CALLER, Math.floor(maxConcurrency / 4)));
}
/** Bytes (UTF-8) of what held calls keep while they wait (questions, an uncollected result), in this process. */
export const MAX_HELD_BYTES = 32 * 1024 * 1024;
/** Questions one held call queues behind the one asked, and their bytes together. */
const MAX_QUEUED = 4;
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

/** The key of the held call's id in the carried state (CarriedState.values). */
export const HELD_KEY = 'mcp-run.heldUpstreamCall';

/** One of the upstream's questions, waiting for the client's answer. */
export interface Question {
  readonly method: ClientAskMethod;
  readonly params: Readonly<Record<string, unknown>>;
  readonly bytes: number;
  answer(result: unknown): void;
  refuse(error: Error): void;
}

/** What the upstream did next. */
export type Turn =
  | { readonly kind: 'result'; readonly result: unknown }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'question'; readonly question: Question };

/** Where a round reports the upstream's progress and logs; between rounds there is none. */
export interface Listener {
  progress(progress: number, total?: number, message?: string): void;
  log(level: LogLevel, data: unknown, logger?: string): void;
}

/** One upstream `tools/call` and what it asks, across our rounds. */
export class HeldCall {
  readonly id = nodeCrypto().randomBytes(18).toString('base64url');
  /** The round listening (its progress and logs), if one is. */
  listener: Listener | undefined;
  /** The question the client was asked and has not answered. */
  asked: Question | undefined;
  /** Rounds so far: the key of each question asked. */
  rounds = 0;
  private readonly turns: Turn[] = [];
  private queuedBytes = 0;
  /** Bytes of a result that came while nobody waited (it waits for the next round to collect it). */
  private resultBytes = 0;
  private waiter: ((turn: Turn) => void) | undefined;
  private readonly controller = new AbortController();
  /** Told of a turn that came while nobody waited (the registry forgets a call that ended). */
  onIdleTurn: ((turn: Turn) => void) | undefined;

  constructor(
    /** CallContext.principal of the first round ('' when unknown). */
    readonly principal: string,
    /** Whom the per-caller bound counts it against. */
    readonly caller: string,
  ) {}

  /** Aborted when the call is cancelled: the upstream request's signal. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Bytes this call keeps besides the question asked: the questions queued, a result uncollected. */
  get waitingBytes(): number {
    return this.queuedBytes + this.resultBytes;
  }

  /** The upstream call itself: its end is the last turn. */
  follow(upstream: Promise<unknown>): void {
    upstream.then(
      (result) => this.push({ kind: 'result', result }),
      (error: unknown) => this.push({ kind: 'failed', error }),
    );
  }

  /** The upstream's onRequest for the relayed methods: its question becomes the next turn. */
  ask(method: ClientAskMethod, params: Readonly<Record<string, unknown>>): Promise<unknown> {
    const bytes = jsonBytes(params);
    const queued = this.turns.filter((t) => t.kind === 'question').length;
    if (queued >= MAX_QUEUED || this.queuedBytes + bytes > MAX_QUEUED_BYTES)
      return Promise.reject(
        new UpstreamError(
          JsonRpcCode.InternalError,
          `mcp-run holds at most ${MAX_QUEUED} questions (${MAX_QUEUED_BYTES} bytes) of one call for its client; ask one at a time`,
        ),
      );
    return new Promise((answer, refuse) => {
      this.queuedBytes += bytes;
      this.push({ kind: 'question', question: { method, params, bytes, answer, refuse } });
    });
  }

  /** Waits for the upstream's next turn; an abort of `signal` (the round's caller gave up) rejects. */
  next(signal: AbortSignal): Promise<Turn> {
    const ready = this.turns.shift();
    if (ready !== undefined) {
      if (ready.kind === 'question') this.queuedBytes -= ready.question.bytes;
      if (ready.kind === 'result') this.resultBytes = 0;
      return Promise.resolve(ready);
    }
    return new Promise<Turn>((resolve, reject) => {
      const onAbort = () => {
        this.waiter = undefined;
        reject(signal.reason instanceof Error ? signal.reason : new Error('the call was cancelled'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiter = (turn) => {
        signal.removeEventListener('abort', onAbort);
        resolve(turn);
      };
    });
  }

  /** Stops the upstream call (`notifications/cancelled`) and refuses what it still asks. */
  cancel(reason: string): void {
    this.controller.abort(new Error(reason));
    const refusal = () => new UpstreamError(JsonRpcCode.InternalError, reason);
    this.asked?.refuse(refusal());
    this.asked = undefined;
    for (const turn of this.turns.splice(0)) if (turn.kind === 'question') turn.question.refuse(refusal());
    this.queuedBytes = 0;
    this.resultBytes = 0;
  }

  private push(turn: Turn): void {
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      if (turn.kind === 'question') this.queuedBytes -= turn.question.bytes;
      waiter(turn);
      return;
    }
    if (turn.kind === 'result') this.resultBytes = jsonBytes(turn.result);
    this.turns.push(turn);
    this.onIdleTurn?.(turn);
  }
}

/** The UTF-8 bytes of a value as JSON (what it costs to keep, near enough). */
function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '');
  } catch {
    return 0;
  }
}

/** Why a retry cannot continue: a sentence for the model. */
export type NotTaken = { readonly refused: string };

let heldCount = 0;
let heldBytes = 0;
const perCaller = new Map<string, number>();

/** One source's held calls (the bounds are the process's). */
export class HeldCalls {
  private readonly calls = new Map<string, { call: HeldCall; timer: NodeJS.Timeout; bytes: number }>();
  /** This source's held calls by caller, bound by heldPerCaller(maxConcurrency). */
  private readonly mine = new Map<string, number>();
  private readonly perCallerMax: number;

  constructor(
    /** How long a question waits for its retry (the source's timeoutMs). */
    private readonly waitMs: number,
    private readonly forgotten: (why: string) => void,
    /** The source's maxConcurrency: a held call keeps one of its places. */
    maxConcurrency: number,
  ) {
    this.perCallerMax = heldPerCaller(maxConcurrency);
  }

  /**
   * Holds `call` while its client answers `asked`; a sentence when a bound refuses it (the caller
   * then cancels the call).
   */
  hold(call: HeldCall, asked: Question): string | undefined {
    const mine = perCaller.get(call.caller) ?? 0;
    const bytes = asked.bytes + call.waitingBytes;
    if (heldCount >= MAX_HELD || heldBytes + bytes > MAX_HELD_BYTES)
      return `mcp-run already holds ${heldCount} upstream calls waiting for their clients' answers, its limit for the whole server`;
    if (mine >= MAX_HELD_PER_CALLER)
      return `you already have ${mine} upstream calls waiting for your answers (at most ${MAX_HELD_PER_CALLER}); answer or abandon those first`;
    const here = this.mine.get(call.caller) ?? 0;
    if (here >= this.perCallerMax)
      return `you already have ${here} calls of this source waiting for your answers (at most ${this.perCallerMax}); answer or abandon those first`;
    this.mine.set(call.caller, here + 1);
    heldCount++;
    heldBytes += bytes;
    perCaller.set(call.caller, mine + 1);
    call.asked = asked;
    call.listener = undefined;
    const timer = setTimeout(
      () => this.forget(call.id, `its question waited ${this.waitMs} ms for the client's retry`),
      this.waitMs,
    );
    timer.unref();
    const entry = { call, timer, bytes };
    this.calls.set(call.id, entry);
    call.onIdleTurn = (turn) => {
      // What came while it waits counts too: a question queued, the result (until a retry takes it).
      const now = asked.bytes + call.waitingBytes;
      heldBytes += now - entry.bytes;
      entry.bytes = now;
      if (heldBytes > MAX_HELD_BYTES)
        this.forget(call.id, `what it kept waiting passed the ${MAX_HELD_BYTES} bytes the server holds`);
      // The upstream gave up while its question waited (its own timeout, our timeoutMs, its exit).
      else if (turn.kind === 'failed')
        // The upstream's words are data: quoted as a JSON string, never a terminal escape in the log.
        this.forget(
          call.id,
          `the upstream call ended while its question waited: ${JSON.stringify(String((turn.error as Error)?.message).slice(0, 200))}`,
        );
    };
    return undefined;
  }

  /** The held call a retry continues, no longer held; a sentence when it cannot be had. */
  take(id: string, principal: string): HeldCall | NotTaken {
    const held = this.calls.get(id);
    if (held === undefined) return { refused: 'missing' };
    this.release(id);
    if (held.call.principal !== principal) {
      held.call.cancel('another caller presented its requestState');
      this.forgotten(`a held upstream call was cancelled: its retry came from another caller`);
      return { refused: 'principal' };
    }
    return held.call;
  }

  /** Cancels every held call (the source is disposed: a reload, shutdown). */
  dispose(): void {
    for (const id of [...this.calls.keys()]) this.forget(id, 'its source was closed');
  }

  private forget(id: string, why: string): void {
    const held = this.calls.get(id);
    if (held === undefined) return;
    this.release(id);
    held.call.cancel(`mcp-run stopped waiting: ${why}`);
    this.forgotten(`a held upstream call was cancelled and forgotten: ${why}`);
  }

  private release(id: string): void {
    const held = this.calls.get(id);
    if (held === undefined) return;
    clearTimeout(held.timer);
    held.call.onIdleTurn = undefined;
    this.calls.delete(id);
    heldCount--;
    heldBytes -= held.bytes;
    const left = (perCaller.get(held.call.caller) ?? 1) - 1;
    if (left > 0) perCaller.set(held.call.caller, left);
    else perCaller.delete(held.call.caller);
    const here = (this.mine.get(held.call.caller) ?? 1) - 1;
    if (here > 0) this.mine.set(held.call.caller, here);
    else this.mine.delete(held.call.caller);
  }
}
