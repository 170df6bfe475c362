/**
 * A bound the manifest sets is the server's, however many processes serve it: with `--workers N`
 * each worker takes its share of a pool's size, of DuckDB's memory and threads, of SQLite's worker
 * processes (docs/scaling.md#workers), so that N workers never mean N times the connections or the
 * memory. The number of processes is set once at start (cli/serve.ts), like the limit store and the
 * ops hooks, before any source opens; one process (the default) keeps every bound as written.
 */
let processes = 1;
/** Which of them this one is, 1 … processes (a worker keeps its slot when it is forked again). */
let slot = 1;

/** `--workers N`: this process is worker `at` (1 … n) of `n` serving the server. */
export function setProcessCount(n: number, at = 1): void {
  processes = Math.max(1, Math.floor(n));
  slot = Math.min(processes, Math.max(1, Math.floor(at)));
}

/** How many processes serve the server (1 without `--workers`). */
export function processCount(): number {
  return processes;
}

/**
 * This process's share of a bound of the whole server: divided among the processes, the remainder
 * going one each to the first slots (a pool of 5 over 2 workers: 3 and 2), so that the shares add
 * up to the bound; at least 1.
 */
export function shareOf(total: number): number {
  const extra = slot <= total % processes ? 1 : 0;
  return Math.max(1, Math.floor(total / processes) + extra);
}
