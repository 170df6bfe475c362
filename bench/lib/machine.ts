/** What the figures were measured on: they mean little without it. */
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGb: number;
  readonly node: string;
  readonly platform: string;
  /** 1-minute load average when the run started and ended: other work skews the figures. */
  readonly loadAtStart: number;
  loadAtEnd?: number;
  /**
   * How long one fixed loop (SPEED_LOOP additions, JIT-compiled, one core) took when the run
   * started, ms, the median of a few: the same machine kind runs it in very different times from
   * day to day (a virtual machine shares its host), and this says which state a run met.
   */
  readonly loopMs?: number;
  /** The share of CPU time the hypervisor took over the run (Linux's steal time), per cent. */
  stolenPercent?: number;
  /** /proc/stat's CPU ticks at the start: all of them, and the stolen ones. */
  readonly ticksAtStart?: Ticks;
}

interface Ticks {
  readonly total: number;
  readonly steal: number;
}

const SPEED_LOOP = 100_000_000;

export function machine(): Machine {
  const list = cpus();
  const ticks = cpuTicks();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    loadAtStart: loadavg()[0]!,
    loopMs: loopMs(),
    ...(ticks && { ticksAtStart: ticks }),
  };
}

/** `m` as a run (or one scenario of it) ends: the load average then, and the CPU time stolen since the start. */
export function atEnd(m: Machine): Machine {
  const now = cpuTicks();
  const start = m.ticksAtStart;
  const stolen =
    now && start && now.total > start.total
      ? (100 * (now.steal - start.steal)) / (now.total - start.total)
      : undefined;
  return { ...m, loadAtEnd: loadavg()[0]!, ...(stolen !== undefined && { stolenPercent: stolen }) };
}

function loopMs(): number {
  const times: number[] = [];
  let sink = 0;
  for (let round = 0; round < 5; round++) {
    const start = performance.now();
    let x = 0;
    for (let i = 0; i < SPEED_LOOP; i++) x = (x + i * 7) | 0;
    sink ^= x;
    times.push(performance.now() - start);
  }
  if (sink === 0.5) console.error(sink); // never: keeps the loop's result used
  return times.sort((a, b) => a - b)[2]!;
}

/** The CPU line of /proc/stat: user nice system idle iowait irq softirq steal …; undefined off Linux. */
function cpuTicks(): Ticks | undefined {
  try {
    const fields = /^cpu\s+(.*)$/m
      .exec(readFileSync('/proc/stat', 'utf8'))![1]!
      .trim()
      .split(/\s+/)
      .map(Number);
    // guest and guest_nice (the 9th and 10th) are counted in user and nice already.
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    return { total, steal: fields[7] ?? 0 };
  } catch {
    return undefined;
  }
}
