/**
 * A call's cancellation as kinds and sources see it: what they use of an AbortSignal (`aborted`,
 * `reason`, 'abort' listeners), without being one. Node's AbortController costs ~3 µs to make and
 * ~2 µs more per listener added and removed, on every SQL and HTTP call; CallAbort costs a tenth.
 * An AbortSignal is a CallSignal too, so a test or a task passes a controller's signal as it is.
 */

export interface CallSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  /** As on an AbortSignal: not called when added after the abort; called at most once. */
  addEventListener(type: 'abort', listener: () => void, options?: { readonly once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** The CallSignal a request makes for its tool call; `abort` fires it once. */
export class CallAbort implements CallSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] | undefined = undefined;

  /** Every listener runs at most once (there is one abort), so `once` changes nothing. */
  addEventListener(_type: 'abort', listener: () => void, _options?: { readonly once?: boolean }): void {
    if (this.aborted) return;
    this.listeners ??= [];
    this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.listeners?.indexOf(listener) ?? -1;
    if (at !== -1) this.listeners!.splice(at, 1);
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = undefined;
    for (const listener of listeners ?? []) {
      try {
        listener();
      } catch (err) {
        // As an AbortSignal's listener: its failure is the process's, and the others still run.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }
}

/**
 * An AbortSignal that follows `signal`, for APIs that take only a real one (a resource read). An
 * AbortSignal is returned as it is; a CallAbort gets a controller only when one is asked for.
 */
export function abortSignalOf(signal: CallSignal): AbortSignal {
  if (signal instanceof AbortSignal) return signal;
  const controller = new AbortController();
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  return controller.signal;
}
