/**
 * One HTTP attempt over an undici pool: send, then read the answer with a byte cap, under a time
 * limit that covers everything up to the last byte, and aborted at once when the caller's signal
 * fires (the connection is closed, so the upstream sees the request go away). Failures are Errors
 * whose message is a sentence for the model.
 */
import type { Readable } from 'node:stream';
import type { Pool } from 'undici';
import { CallAbort, type CallSignal } from '../../util/call-signal.js';
import { nodeHttp } from '../../util/lazy-node.js';
import type { HttpResponse } from '../contract/kinds.js';

export interface Attempt {
  readonly method: string;
  /** Path and query, as sent. */
  readonly target: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** The call's timeout, for the message; the attempt itself ends at `deadline`. */
  readonly timeoutMs: number;
  /** When the call's time is up (ms since the epoch): retries share one timeout (retry.ts). */
  readonly deadline: number;
  readonly maxBytes: number;
  readonly signal: CallSignal;
}

export type AttemptResult = Omit<HttpResponse, 'attempts'>;

export async function attemptRequest(pool: Pool, a: Attempt): Promise<AttemptResult> {
  // undici takes any signal with 'abort' listeners: a CallAbort costs a tenth of an AbortController.
  const controller = new CallAbort();
  const timer = setTimeout(
    () => controller.abort(new Error('timeout')),
    Math.max(0, a.deadline - Date.now()),
  );
  const onCancel = () => controller.abort(new Error('cancelled'));
  a.signal.addEventListener('abort', onCancel, { once: true });
  try {
    if (a.signal.aborted) onCancel();
    const res = await pool.request({
      path: a.target,
      method: a.method as 'GET',
      headers: a.headers,
      body: a.body ?? null,
      signal: controller,
      // Our own timer covers the whole attempt; undici's would cut in at 300 s with a vaguer error.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    // Closing the body early aborts the connection, and undici reports that as a body error.
    const discard = () => res.body.on('error', () => {}).destroy();
    const declared = Number(res.headers['content-length']);
    if (declared > a.maxBytes) {
      discard();
      throw new Error(tooLarge(a.maxBytes, declared));
    }
    return {
      status: res.statusCode,
      statusText: res.statusText || nodeHttp().STATUS_CODES[res.statusCode] || '',
      headers: flatHeaders(res.headers),
      body: await readCapped(res.body, a.maxBytes, discard),
    };
  } catch (err) {
    if (a.signal.aborted) throw new Error('the request was cancelled');
    if (controller.aborted) {
      throw new Error(`no complete answer within ${a.timeoutMs} ms; try again later or raise timeoutMs`);
    }
    throw err;
  } finally {
    clearTimeout(timer);
    a.signal.removeEventListener('abort', onCancel);
  }
}

/**
 * The body, counted as it arrives: past `maxBytes` it is discarded and the read fails. Listeners,
 * not an async iterator: the iterator's promise per chunk and stream bookkeeping cost more than a
 * small answer's parse.
 */
function readCapped(body: Readable, maxBytes: number, discard: () => void): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    body.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) {
        discard();
        reject(new Error(tooLarge(maxBytes)));
      } else chunks.push(chunk);
    });
    body.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)));
    body.once('error', reject);
    // Closed without an end or an error of its own (undici reports a reset as an error; this is a guard).
    body.once('close', () => reject(new Error('the answer ended before it was complete')));
  });
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function tooLarge(maxBytes: number, declared?: number): string {
  const size = declared === undefined ? 'more than' : `${declared} bytes, more than`;
  return `the response is ${size} the ${maxBytes}-byte cap (maxResponseBytes on the source); ask for less (a filter, a smaller page) or raise the cap`;
}
