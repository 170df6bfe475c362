/**
 * When an HTTP request is tried again, and after how long. Only idempotent methods are retried (a
 * POST that reached the server may have had its effect), and only on answers that say "try again
 * later" (429, 502, 503, 504) or a connection reset. `Retry-After` is honoured, up to a cap: a
 * server asking for a longer wait gets no retry, and the result says how long it asked for. The
 * call's timeout covers every attempt and wait: nothing is retried past it.
 */
import type { CallSignal } from '../../util/call-signal.js';

export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
/** The longest Retry-After that is waited for. */
export const MAX_RETRY_AFTER_MS = 10_000;
const BASE_BACKOFF_MS = 200;

/**
 * Runs `attempt` until it succeeds without a "try again" status, or `retries` retries are spent,
 * all within `budgetMs`: the call's timeout bounds every attempt, wait and retry together. Each
 * attempt gets the time left; a wait (a Retry-After or a backoff) that does not fit in it is not
 * waited for, and the answer says why it was not retried (`retryNote`). A connection reset is
 * retried like a 503; any other failure is thrown at once.
 */
export async function withRetries<
  T extends { readonly status: number; readonly headers: Readonly<Record<string, string>> },
>(
  method: string,
  retries: number,
  signal: CallSignal,
  budgetMs: number,
  attempt: (deadline: number) => Promise<T>,
): Promise<T & { attempts: number; retryNote?: string }> {
  const allowed = IDEMPOTENT_METHODS.has(method) ? retries : 0;
  const deadline = Date.now() + budgetMs;
  for (let n = 1; ; n++) {
    let response: T;
    try {
      response = await attempt(deadline);
    } catch (err) {
      if (n > allowed || !isConnectionReset(err)) throw err;
      const wait = backoffMs(n);
      if (wait >= deadline - Date.now()) throw err;
      await sleep(wait, signal);
      continue;
    }
    if (n <= allowed && RETRY_STATUSES.has(response.status)) {
      const asked = parseRetryAfter(response.headers['retry-after']);
      const wait = asked ?? backoffMs(n);
      const left = deadline - Date.now();
      if (asked !== undefined && asked > MAX_RETRY_AFTER_MS) return { ...response, attempts: n };
      if (wait < left) {
        await sleep(wait, signal);
        continue;
      }
      const why = asked === undefined ? `a backoff of ${wait} ms` : `a wait of ${asked} ms (Retry-After)`;
      const retryNote = `Not retried: ${why} does not fit in the ${Math.max(0, left)} ms left of this call's ${budgetMs} ms timeoutMs.`;
      return { ...response, attempts: n, retryNote };
    }
    return { ...response, attempts: n };
  }
}

/** Undici and Node codes for a connection the peer closed or reset under a request. */
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

export function isConnectionReset(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RESET_CODES.has(code);
}

/**
 * The wait a `Retry-After` value asks for, in ms: delay-seconds or an HTTP date (a date in the past
 * means now). Undefined when the header is absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[A-Za-z]/.test(text)) return undefined; // "-1", "1.5": neither form
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff for retry n (1, 2, …): 200 ms, 400 ms, 800 ms…, plus up to 20% jitter. */
export function backoffMs(retry: number): number {
  const base = BASE_BACKOFF_MS * 2 ** (retry - 1);
  return Math.round(base * (1 + Math.random() * 0.2));
}

/** Resolves after `ms`, or rejects ("the request was cancelled") as soon as the signal aborts. */
export function sleep(ms: number, signal: CallSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const cancelled = () => new Error('the request was cancelled');
    if (signal.aborted) return reject(cancelled());
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
