/**
 * What to do before a load that keeps much of what it parses in memory: a manifest with the files it
 * includes, an OpenAPI description. The loaders say how many bytes they are about to parse; the
 * command line says what to do when that is a lot (cli/run.ts: keep V8's young generation small,
 * cli/young-generation.cts). An embedding process that says nothing keeps its own settings.
 *
 * Only a large load does it: a 300-tool manifest (60 KB) grows the peak RSS by 3.6 MB when V8 may
 * grow its young generation, a 3,000-tool one (620 KB) by 26 MB, and the setting has a price at a
 * start, which a client pays for every session (young-generation.cts says which).
 */

/** A manifest of about 300 tools like the benchmark's; its files together, for one with includes. */
export const LARGE_LOAD_BYTES = 64 * 1024;

/** What runs before the first large load, and what undoes it then; until that load begins. */
let waiting: { readonly before: () => void; readonly after: () => void } | undefined;
/** What undoes the large load's settings, once it has begun, until the first load is over. */
let undo: (() => void) | undefined;

/**
 * `before` runs once, before the first load of more than LARGE_LOAD_BYTES; `after`, if `before` ran,
 * when startupLoadIsOver says so. Loads after that (reloads) run neither.
 */
export function whenLoadIsLarge(before: () => void, after: () => void): void {
  waiting = { before, after };
  undo = undefined;
}

/** A loader is about to parse `bytes` (with what it parsed before, for the files of one manifest). */
export function loading(bytes: number): void {
  if (bytes <= LARGE_LOAD_BYTES || waiting === undefined) return;
  const { before, after } = waiting;
  waiting = undefined;
  undo = after;
  before();
}

/** The server's first load is compiled (cli/serve.ts): the settings for it are undone, and no later load makes them. */
export function startupLoadIsOver(): void {
  const after = undo;
  waiting = undo = undefined;
  after?.();
}
