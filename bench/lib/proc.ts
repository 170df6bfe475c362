/**
 * Contender processes. Every server runs in its own child process (plain `node`, no TypeScript
 * loader), so the load generator in the bench process and the server under test each get their own
 * core on a 2-core machine. Children are tracked and killed if the bench itself dies.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

export const REPO = resolve(import.meta.dirname, '../..');
export const CLI = join(REPO, 'dist/cli/bin.cjs');
export const SERVERS = join(REPO, 'bench/servers');

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** node's arguments to run mcp-run on `manifest`, with a CPU profile when asked. */
export function mcpRun(manifest: string, flags: readonly string[], profileDir?: string): string[] {
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  return [...profile, CLI, manifest, ...flags];
}

/** node's arguments to run one of bench/servers/*.mjs. */
export function benchServer(file: string, flags: readonly string[]): string[] {
  return [join(SERVERS, file), ...flags];
}

export interface Memory {
  /** Resident set size now, MB. */
  readonly rssMb: number;
  /** The highest RSS the process reached, MB. */
  readonly peakMb: number;
}

/** RSS of a process from /proc (Linux); undefined elsewhere. */
export function memoryOf(pid: number | undefined): Memory | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
    return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

/** Linux's USER_HZ, the unit of the CPU times in /proc/<pid>/stat (100 on every mainstream arch). */
const TICKS_PER_SECOND = 100;

/** user + system CPU ms of one process, its reaped children included; undefined if it is gone. */
function ownCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces and parentheses): state is field 3.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]); // utime stime cutime cstime
    return (ticks * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/**
 * CPU ms (user + system, all threads) of a process and its live descendants (an SQLite worker, say),
 * from /proc (Linux); undefined elsewhere. The difference over a round, per request, is what one
 * request costs the machine, which a noisy machine disturbs far less than it does requests/s.
 */
export function cpuMsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  const own = ownCpuMs(pid);
  if (own === undefined) return undefined;
  return childrenOf(pid).reduce((sum, child) => sum + (cpuMsOf(child) ?? 0), own);
}

/**
 * The CPU time so far, in ms, of each process whose command is `name` (PostgreSQL's backends:
 * `postgres`) and, when `only` is given, whose command line holds it (a backend's title names its
 * database); Linux only. From /proc/<pid>/schedstat: nanoseconds on a CPU, where /proc/<pid>/stat
 * counts 10 ms ticks, too coarse for backends that each run a few ms per round.
 */
export function cpuMsByProcess(name: string, only?: string): Map<number, number> | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return undefined;
  }
  const cpu = new Map<number, number>();
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== name) continue;
      if (only !== undefined && !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(only)) continue;
      cpu.set(Number(pid), Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6);
    } catch {
      // gone meanwhile
    }
  }
  return cpu;
}

/**
 * The CPU ms the processes of `after` used since `before` (both from cpuMsByProcess): a process
 * begun meanwhile counts whole (its start is part of the work), one gone meanwhile not at all (its
 * last figures cannot be read), so that a pool closing an idle connection never makes it negative.
 */
export function cpuMsSince(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ms] of after) sum += Math.max(0, ms - (before.get(pid) ?? 0));
  return sum;
}

export class ServerProcess {
  stderr = '';
  /** Milliseconds from spawn to the `listening on` line. */
  startMs = Number.NaN;
  private constructor(
    readonly label: string,
    readonly child: ChildProcess,
  ) {
    live.add(child);
    child.once('exit', () => live.delete(child));
    child.stderr?.setEncoding('utf8').on('data', (s: string) => {
      // Keep the tail only: a chatty server must not grow the bench's memory.
      this.stderr = (this.stderr + s).slice(-16_384);
    });
  }

  /** Starts an HTTP server and resolves with its URL once it prints `listening on <url>`. */
  static async http(label: string, args: readonly string[], timeoutMs = 120_000): Promise<ServerProcess> {
    const t0 = performance.now();
    const proc = new ServerProcess(
      label,
      spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] }),
    );
    await proc.waitFor(/listening on (http:\/\/\S+)/, timeoutMs);
    proc.startMs = performance.now() - t0;
    return proc;
  }

  /** A server process started elsewhere (another program than node) that serves at `url`. */
  static adopt(label: string, child: ChildProcess, url: string): ServerProcess {
    const proc = new ServerProcess(label, child);
    proc.fixedUrl = url;
    return proc;
  }

  private fixedUrl: string | undefined;

  get url(): string {
    return this.fixedUrl ?? /listening on (http:\/\/\S+)/.exec(this.stderr)?.[1] ?? '';
  }

  memory(): Memory | undefined {
    return memoryOf(this.child.pid);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  private waitFor(pattern: RegExp, timeoutMs: number): Promise<void> {
    return new Promise((ok, fail) => {
      const timer = setTimeout(() => {
        this.child.kill('SIGKILL');
        fail(new Error(`${this.label} did not start within ${timeoutMs} ms: ${this.stderr}`));
      }, timeoutMs);
      const check = () => {
        if (!pattern.test(this.stderr)) return;
        clearTimeout(timer);
        this.child.stderr?.off('data', check);
        ok();
      };
      this.child.stderr?.on('data', check);
      this.child.once('exit', (code) => {
        clearTimeout(timer);
        fail(new Error(`${this.label} exited (${code}) before listening: ${this.stderr}`));
      });
    });
  }
}

/** Starts servers one after another (in parallel they would fight for the two cores). */
export async function startAll<K extends string>(
  specs: Readonly<Record<K, readonly string[]>>,
): Promise<Record<K, ServerProcess>> {
  const started = {} as Record<K, ServerProcess>;
  try {
    for (const [label, args] of Object.entries(specs) as [K, readonly string[]][]) {
      started[label] = await ServerProcess.http(label, args);
    }
  } catch (err) {
    await stopAll(started);
    throw err;
  }
  return started;
}

export async function stopAll(servers: Readonly<Record<string, ServerProcess>>): Promise<void> {
  await Promise.all(Object.values(servers).map((s) => s.stop()));
}
