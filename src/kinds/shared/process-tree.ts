/**
 * The processes one `shell` call started, found through /proc (Linux), so that all of them die with
 * the call: the program, its children, their children, and also those that left the process group
 * (`setsid`) or were orphaned when their parent exited (reparented to init, so no ppid chain leads to
 * them any more).
 *
 * Three ways to find them, combined:
 * - the process group and the session of the program (a pgid or sid cannot be reused while any
 *   process still has it);
 * - the ppid chains from the program, sampled every SCAN_MS while the call runs by one shared
 *   scanner, each pid recorded with its start time (field 22 of /proc/<pid>/stat), so that a pid
 *   reused by an unrelated process is never taken for ours;
 * - a marker variable (`MCP_RUN_CALL=<id>`) in the program's environment, inherited by everything it
 *   starts: at the end, every process started after the program whose /proc/<pid>/environ holds the
 *   marker is ours, even an orphan in another session that no scan saw.
 * Elsewhere (no /proc) only the process group is known.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

export const MARKER_VARIABLE = 'MCP_RUN_CALL';
const SCAN_MS = 75;
/** How long `killTree` waits for the killed processes to disappear. */
const GONE_WAIT_MS = 1000;

interface Proc {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly sid: number;
  readonly state: string;
  /** Clock ticks since boot. */
  readonly start: number;
}

const hasProc = (() => {
  try {
    return readFileSync('/proc/self/stat', 'utf8').length > 0;
  } catch {
    return false;
  }
})();

function readStat(pid: number): Proc | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces and ')': cut at the last one.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // f[0] is field 3 (state), so field n is f[n - 3].
  return {
    pid,
    state: f[0] ?? '?',
    ppid: Number(f[1]),
    pgid: Number(f[2]),
    sid: Number(f[3]),
    start: Number(f[19]),
  };
}

function listProcs(): Proc[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const procs: Proc[] = [];
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const p = readStat(Number(name));
    if (p) procs.push(p);
  }
  return procs;
}

/** One call's processes. */
export class ProcessTree {
  /** Put `${MARKER_VARIABLE}=${marker}` in the program's environment. */
  readonly marker = randomUUID();
  private root: Proc | undefined;
  private rootPid: number | undefined;
  /** pid → start time of every process seen belonging to the call. */
  private readonly seen = new Map<number, number>();

  /** Call right after spawning. */
  track(pid: number): void {
    this.rootPid = pid;
    if (!hasProc) return;
    this.root = readStat(pid);
    if (this.root) this.seen.set(pid, this.root.start);
    live.add(this);
    ensureScanner();
  }

  /** Adds what the ppid chains, the group and the session show now. */
  scan(procs: readonly Proc[] = listProcs()): void {
    const root = this.rootPid;
    if (root === undefined) return;
    const byPid = new Map(procs.map((p) => [p.pid, p]));
    let added = true;
    while (added) {
      added = false;
      for (const p of procs) {
        if (this.seen.get(p.pid) === p.start) continue;
        const parent = byPid.get(p.ppid);
        const childOfOurs = parent !== undefined && this.seen.get(parent.pid) === parent.start;
        if (childOfOurs || p.pgid === root || p.sid === root) {
          this.seen.set(p.pid, p.start);
          added = true;
        }
      }
    }
  }

  /** The processes of the call alive now (zombies excluded), each still the one that was recorded. */
  private members(): Proc[] {
    const procs = listProcs();
    this.scan(procs);
    const since = this.root?.start ?? 0;
    const needle = `${MARKER_VARIABLE}=${this.marker}\0`;
    const out: Proc[] = [];
    for (const p of procs) {
      if (p.state === 'Z' || p.pid === process.pid) continue;
      if (this.seen.get(p.pid) === p.start) {
        out.push(p);
        continue;
      }
      // Only processes started after the program can have inherited its environment.
      if (p.start < since) continue;
      try {
        if (readFileSync(`/proc/${p.pid}/environ`).includes(needle)) out.push(p);
      } catch {
        // another user's process, or gone
      }
    }
    return out;
  }

  /** Sends `signal` to the group and to every process of the call. */
  signal(signal: NodeJS.Signals): void {
    if (this.rootPid === undefined) return;
    signalPid(-this.rootPid, signal);
    if (hasProc) for (const p of this.members()) signalPid(p.pid, signal);
  }

  /**
   * SIGKILLs the group and every process of the call, then waits (at most GONE_WAIT_MS) until none
   * is left; a process reparented to init may stay a zombie a moment, which counts as gone.
   */
  async kill(): Promise<void> {
    live.delete(this);
    if (this.rootPid === undefined) return;
    signalPid(-this.rootPid, 'SIGKILL');
    if (!hasProc) return;
    const deadline = Date.now() + GONE_WAIT_MS;
    for (;;) {
      const left = this.members();
      if (left.length === 0 || Date.now() > deadline) return;
      for (const p of left) signalPid(p.pid, 'SIGKILL');
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Synchronous last resort when mcp-run exits. */
  killNow(): void {
    if (this.rootPid === undefined) return;
    signalPid(-this.rootPid, 'SIGKILL');
    if (hasProc) for (const p of this.members()) signalPid(p.pid, 'SIGKILL');
  }
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: already gone.
  }
}

const live = new Set<ProcessTree>();
let scanner: NodeJS.Timeout | undefined;

/** One scan of /proc for all running calls, while there are any. */
function ensureScanner(): void {
  if (scanner) return;
  scanner = setInterval(() => {
    if (live.size === 0) {
      clearInterval(scanner);
      scanner = undefined;
      return;
    }
    const procs = listProcs();
    for (const tree of live) tree.scan(procs);
  }, SCAN_MS);
  scanner.unref();
}

/** Kills what every running call started; for mcp-run's exit. */
export function killAllTrees(): void {
  for (const tree of live) tree.killNow();
  live.clear();
}
