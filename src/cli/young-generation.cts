/**
 * The size of V8's young generation for the mcp-run process. By default V8 doubles the semi-spaces
 * (where new objects are allocated) from 1 MB up to 16 MB each whenever many objects survive a
 * scavenge, and loading a large manifest makes nearly everything survive: at 10,000 tools the young
 * generation reached 32 MB (two 16 MB semi-spaces), all of it resident, and stayed there while
 * serving. That was about a fifth of the process's peak RSS. Kept at its initial size, the load
 * promotes what it keeps a little earlier and costs the same CPU time (`validate` of 10,000 tools:
 * 1.27 s with it, 1.29 s without; the peak RSS 145 → 123 MB).
 *
 * The maximum (`--max-semi-space-size`) can only be given when node starts; the growth factor is
 * read each time V8 considers growing, so setting it before a large manifest is read keeps the
 * semi-spaces at their initial size. It is set then and only then (util/large-load.ts says when;
 * cli/run.ts asks for it), not at every start: once a flag changes, V8 refuses every code cache made
 * under the flags before, node's own modules' as well as the build's, and a 10-tool stdio start that
 * set it first spent about 2 ms more CPU before its first answer (node:v8 itself, then node:net and
 * the others after it compiled from source). Once an HTTP server listens, letYoungGenerationGrow
 * lets it grow again within a cap: there, it is requests in flight that survive. A user who sizes
 * the young generation on node's command line (or in NODE_OPTIONS) keeps that choice.
 *
 * The old generation is the other half of a large load's peak: collectOftenWhileLoading keeps its
 * growth tight for the load (LOADING_HEAP_GROWTH_PERCENT says why), and once the server's first
 * load is compiled, stopCollectingOften gives V8 its own factor back, on either transport. Only the
 * first load does either: a reload leaves V8's settings as serving has them.
 */

// node:v8 (with node:heap_utils and node:promise_hooks) loads only when a flag is set, and
// node:perf_hooks (a dozen of node's own modules) is for letYoungGenerationGrow, on HTTP only: a stdio
// start of a small manifest loads neither.
const v8 = (): typeof import('node:v8') => require('node:v8') as typeof import('node:v8');
const perfHooks = (): typeof import('node:perf_hooks') =>
  require('node:perf_hooks') as typeof import('node:perf_hooks');

const SIZED_BY_USER = /--(max|min)[-_]semi[-_]space[-_]size|--semi[-_]space[-_]growth[-_]factor/;
const GROWTH_SET_BY_USER = /--heap[-_]growing[-_]percent/;

/**
 * How far the old generation may grow past what its last full collection kept, in per cent, while a
 * large manifest loads (V8's --heap-growing-percent). Left to itself V8 collects once early in the
 * load and then lets the old generation grow to about four times what that collection kept, so the
 * load's garbage (js-yaml's copy of the text, the parsed tree once it is compiled) is all still
 * there at the first answer. The GitHub import (1,223 tools) served: peak RSS 111 -> 96 MB at its
 * first answer, for about 2% more time to it. Serving restores V8's own factor
 * (stopCollectingOften): under load a tight old generation would mean more full collections.
 */
const LOADING_HEAP_GROWTH_PERCENT = 30;
/** V8's own: 0 means its factor is worked out from the collector's speed and the heap's size. */
const V8_HEAP_GROWTH_PERCENT = 0;

/** V8's own growth factor, restored by letYoungGenerationGrow. */
const V8_GROWTH_FACTOR = 2;
/**
 * How large letYoungGenerationGrow lets the young generation become (both semi-spaces). V8's own
 * limit is 32 MB on Node 20 and far more on Node 24 (over 100 MB was seen); 16 MB is enough that a
 * request in flight is rarely there for two scavenges.
 */
export const YOUNG_GENERATION_CAP = 16 * 1024 * 1024;

function sizedByUser(execArgv: readonly string[], nodeOptions: string): boolean {
  return execArgv.some((arg) => SIZED_BY_USER.test(arg)) || SIZED_BY_USER.test(nodeOptions);
}

/** Set once letYoungGenerationGrow ran: a large load after it (a reload) leaves its policy in place. */
let growing = false;

export function keepYoungGenerationSmall(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
): boolean {
  if (growing || sizedByUser(execArgv, nodeOptions)) return false;
  v8().setFlagsFromString('--semi-space-growth-factor=1');
  return true;
}

/**
 * Keeps the old generation within LOADING_HEAP_GROWTH_PERCENT of what survives, for a large load
 * (cli/run.ts asks for both this and keepYoungGenerationSmall then). Like it, it leaves a user's own
 * setting alone, and a reload once HTTP serves.
 */
export function collectOftenWhileLoading(execArgv: readonly string[] = process.execArgv): boolean {
  // Only node's command line can set it: node refuses it in NODE_OPTIONS.
  if (growing || execArgv.some((arg) => GROWTH_SET_BY_USER.test(arg))) return false;
  v8().setFlagsFromString(`--heap-growing-percent=${LOADING_HEAP_GROWTH_PERCENT}`);
  collectingOften = true;
  return true;
}

/** Set by collectOftenWhileLoading, until stopCollectingOften gives V8 its own factor back. */
let collectingOften = false;

/**
 * Gives V8 its own growth of the old generation back, once the server's first load is compiled
 * (util/large-load.ts startupLoadIsOver), on stdio as over HTTP: serving, a tight old generation
 * would mean more full collections. True when it was set.
 */
export function stopCollectingOften(): boolean {
  if (!collectingOften) return false;
  v8().setFlagsFromString(`--heap-growing-percent=${V8_HEAP_GROWTH_PERCENT}`);
  collectingOften = false;
  return true;
}

/**
 * Lets the young generation grow again, up to about YOUNG_GENERATION_CAP, once the manifest is
 * loaded and the HTTP server listens. Many requests in flight at once are what survive a small
 * young generation: with 32 PostgreSQL calls in flight, 6 to 9% of the bytes a call allocated
 * outlived two scavenges and were promoted, and the collections took a fifth of each call's CPU.
 * V8 grows the semi-spaces only while much survives, so a server with one client at a time keeps
 * the initial size, and it shrinks them again when the process is idle.
 *
 * The size is read after collections (a PerformanceObserver of `gc` entries, delivered between
 * turns of the event loop): growth is off at the cap and on again below it, after such a shrink.
 * One long synchronous stretch (a large reload) can grow it past the cap, to V8's own limit, before
 * the observer runs. Like keepYoungGenerationSmall, it leaves a user's own sizing alone.
 */
export function letYoungGenerationGrow(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
): boolean {
  growing = true;
  if (sizedByUser(execArgv, nodeOptions)) return false;
  let factor = V8_GROWTH_FACTOR;
  v8().setFlagsFromString(`--semi-space-growth-factor=${factor}`);
  const observer = new (perfHooks().PerformanceObserver)(() => {
    const wanted = youngGenerationBytes() < YOUNG_GENERATION_CAP ? V8_GROWTH_FACTOR : 1;
    if (wanted === factor) return;
    factor = wanted;
    v8().setFlagsFromString(`--semi-space-growth-factor=${factor}`);
  });
  observer.observe({ entryTypes: ['gc'] });
  return true;
}

/** The young generation's size now (new_space: both semi-spaces). */
export function youngGenerationBytes(): number {
  const newSpace = v8()
    .getHeapSpaceStatistics()
    .find((s) => s.space_name === 'new_space');
  return newSpace?.space_size ?? 0;
}
