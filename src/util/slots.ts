/**
 * Bounded places for work that runs at once (tool calls, programs). A caller takes one place in
 * each of several counters together (this tool's, and everyone's); over any limit it waits, in
 * arrival order, at most QUEUE_WAIT_MS (a cancellation ends the wait), then is refused, and says
 * so to its caller as something to retry.
 */

import type { CallSignal } from './call-signal.js';

export const QUEUE_WAIT_MS = 2000;

/** A counter of running work, with a maximum. */
export class Slots {
  active = 0;
  constructor(readonly max: number) {}
}

interface Waiter {
  readonly slots: readonly Slots[];
  readonly grant: () => void;
}
const waiters: Waiter[] = [];

const free = (slots: readonly Slots[]) => slots.every((s) => s.active < s.max);
const take = (slots: readonly Slots[]) => {
  for (const s of slots) s.active++;
};

/** Hands freed slots to the waiters that fit, oldest first. */
function wake(): void {
  for (let i = 0; i < waiters.length; ) {
    const w = waiters[i]!;
    if (free(w.slots)) {
      waiters.splice(i, 1);
      take(w.slots);
      w.grant();
    } else i++;
  }
}

export type Acquired = { readonly release: () => void } | { readonly refused: 'busy' | 'cancelled' };

/**
 * What cancels a wait: a call's context, whose `signal` it reads only when it has to wait. A
 * context that can say it was cancelled without making its signal (`aborted`, a request's) makes
 * no signal at all when the slots are free.
 */
export interface Cancellable {
  readonly signal: CallSignal;
  readonly aborted?: boolean;
}

/**
 * Takes one place in every one of `slots` if that needs no wait (nobody queued, room in each):
 * the release, else undefined (then `acquire`, which waits). Saves a promise per call.
 */
export function tryAcquire(slots: readonly Slots[]): (() => void) | undefined {
  if (waiters.length > 0 || !free(slots)) return undefined;
  take(slots);
  return releaser(slots);
}

/** Gives back the place taken in every one of `slots`; a second call does nothing. */
function releaser(slots: readonly Slots[]): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const s of slots) s.active--;
    wake();
  };
}

/** Takes one place in every one of `slots`, waiting at most `waitMs`. */
export function acquire(
  slots: readonly Slots[],
  cancel: Cancellable,
  waitMs = QUEUE_WAIT_MS,
): Promise<Acquired> {
  if (cancel.aborted ?? cancel.signal.aborted) return Promise.resolve({ refused: 'cancelled' });
  // Nobody waiting and room in every counter: granted at once, as the queue below would.
  const now = tryAcquire(slots);
  if (now) return Promise.resolve({ release: now });
  const release = releaser(slots);
  const signal = cancel.signal;
  if (signal.aborted) return Promise.resolve({ refused: 'cancelled' });
  return new Promise((resolve) => {
    const end = (result: Acquired) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const waiter: Waiter = { slots, grant: () => end({ release }) };
    const leave = (why: 'busy' | 'cancelled') => {
      const i = waiters.indexOf(waiter);
      if (i < 0) return; // already granted
      waiters.splice(i, 1);
      end({ refused: why });
      wake(); // a waiter behind this one may fit now
    };
    const onAbort = () => leave('cancelled');
    const timer = setTimeout(() => leave('busy'), waitMs);
    signal.addEventListener('abort', onAbort, { once: true });
    waiters.push(waiter);
    wake(); // granted at once when the slots are free
  });
}
