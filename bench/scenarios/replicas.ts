/**
 * Scenario `replicas`: `tools/call` throughput through HAProxy (round-robin, no stickiness) to 1
 * and to 3 mcp-run replicas sharing 2025 sessions in Redis (`--state`), both eras, and 1 replica
 * without `--state` (memory sessions) as the baseline of what the shared state costs. The 2025 load
 * runs on one session, so every request of it is served by whichever replica HAProxy picks, which
 * takes the session up from Redis. Needs HAProxy and a Redis (MCP_RUN_TEST_REDIS_URL, else
 * redis://127.0.0.1:6379); each run uses a key prefix of its own.
 */
import type { ChildProcess } from 'node:child_process';
import { turnRelay } from '../../test/helpers/turn-relay.js';
import {
  HAPROXY,
  haproxy,
  type OwnRedis,
  ownRedis,
  REDIS_SERVER,
  redisCommandStats,
} from '../lib/cluster.js';
import { cheapManifest } from '../lib/fixtures.js';
import { goal, reported } from '../lib/goals.js';
import { cannon, interleave, medians, probe, type Target, type Throughput } from '../lib/load.js';
import { type Era, ID_SLOT, legacyHttpSession, modernHeaders, toolCall } from '../lib/mcp.js';
import { cpuMsOf, mcpRun, ServerProcess, stopAll } from '../lib/proc.js';
import { fmt, median, ratio, times } from '../lib/stats.js';
import type { BenchOptions, Scenario } from '../lib/types.js';

interface Costed extends Throughput {
  /** CPU the setup used during the round, in cores. */
  readonly cores: number;
  readonly perCore: number;
}

const sumCpu = (pids: readonly (number | undefined)[]): number =>
  pids.reduce((sum: number, pid) => sum + (cpuMsOf(pid) ?? 0), 0);

interface Setup {
  readonly label: string;
  readonly replicas: number;
  readonly shared: boolean;
}

const SETUPS: readonly Setup[] = [
  { label: '1 replica, memory sessions', replicas: 1, shared: false },
  { label: '1 replica, --state', replicas: 1, shared: true },
  { label: '3 replicas, --state', replicas: 3, shared: true },
];

export const replicasScenario: Scenario = {
  name: 'replicas',
  title: 'Replicas behind HAProxy: 1 vs 3, sessions in Redis',

  async run(options: BenchOptions, work: string) {
    if (HAPROXY === undefined) throw new Error('HAProxy is not installed (apt-get install -y haproxy)');
    // Our own Redis when redis-server is here (the command counts are then ours alone).
    const own = REDIS_SERVER === undefined ? undefined : await ownRedis();
    const redis = new URL(own?.url ?? process.env.MCP_RUN_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
    redis.searchParams.set('prefix', `bench-${process.pid}-${Date.now().toString(36)}`);
    const manifest = cheapManifest(work);
    const connections = 32;
    const servers: Record<string, ServerProcess> = {};
    const balancers: ChildProcess[] = [];
    try {
      const rows: { setup: Setup; era: Era; target: Target; pids: () => (number | undefined)[] }[] = [];
      for (const [s, setup] of SETUPS.entries()) {
        const urls: string[] = [];
        for (let i = 0; i < setup.replicas; i++) {
          const flags = [
            '--http',
            '--port',
            '0',
            '--no-watch',
            ...(setup.shared ? ['--state', redis.toString()] : []),
          ];
          const proc = await ServerProcess.http(`${setup.label} #${i}`, mcpRun(manifest, flags));
          servers[`${s}-${i}`] = proc;
          urls.push(proc.url);
        }
        const lb = await haproxy(work, `lb${s}`, urls);
        balancers.push(lb.child);
        const procs = Object.entries(servers)
          .filter(([key]) => key.startsWith(`${s}-`))
          .map(([, proc]) => proc);
        // What serving costs: the replicas, their balancer, and (with --state) our Redis.
        const pids = () => [
          ...procs.map((proc) => proc.child.pid),
          lb.child.pid,
          ...(setup.shared ? [own?.child.pid] : []),
        ];
        rows.push({
          setup,
          era: 'modern',
          target: {
            url: lb.url,
            headers: modernHeaders('tools/call', 'ping'),
            body: JSON.stringify(toolCall('modern', ID_SLOT, 'ping')),
          },
          pids,
        });
        rows.push({
          setup,
          era: 'legacy',
          target: {
            url: lb.url,
            headers: await legacyHttpSession(lb.url),
            body: JSON.stringify(toolCall('legacy', ID_SLOT, 'ping')),
          },
          pids,
        });
      }
      for (const row of rows) await probe(row.target);
      const rounds: Costed[][] = await interleave(
        rows.map((row) => ({
          label: `${row.setup.label} ${row.era}`,
          measure: async (seconds: number): Promise<Costed> => {
            const cpu0 = sumCpu(row.pids());
            const t0 = performance.now();
            const r = await cannon(
              row.target,
              connections,
              seconds,
              options.smoke ? connections * 2 : undefined,
            );
            const elapsed = (performance.now() - t0) / 1000;
            const cores = (sumCpu(row.pids()) - cpu0) / 1000 / elapsed;
            return { ...r, cores, perCore: cores > 0 ? r.rps / cores : Number.NaN };
          },
        })),
        { rounds: options.rounds, seconds: options.duration, warmup: options.warmup },
        (line) => console.error(`  replicas: ${line}`),
      );
      const m = rounds.map((r) => ({
        ...medians(r),
        cores: median(r.map((x) => x.cores)),
        perCore: median(r.map((x) => x.perCore)),
      }));
      const countedCalls = options.smoke ? 30 : 300;
      const traffic = own === undefined ? undefined : await countTraffic(work, manifest, own, countedCalls);
      const find = (label: string, era: Era) =>
        m[rows.findIndex((r) => r.setup.label === label && r.era === era)]!;
      const scale: [string, number][] = (['modern', 'legacy'] as const).map((era) => [
        era,
        ratio(find('3 replicas, --state', era).rps, find('1 replica, --state', era).rps),
      ]);
      const perCore = (['modern', 'legacy'] as const).map((era) => {
        const [three, one] = [
          find('3 replicas, --state', era).perCore,
          find('1 replica, --state', era).perCore,
        ];
        return `calls per CPU-second ${fmt(three)} vs ${fmt(one)}: ${times(ratio(three, one))}`;
      });
      return {
        name: this.name,
        title: this.title,
        setup: [
          'Tool: `ping` (a `content` tool answering "pong"). Every setup is reached through its own HAProxy (round-robin, no stickiness, keep-alive to the clients); the replicas are `mcp-run --http` processes.',
          '2026-07-28: stateless POSTs with the `_meta` envelope. 2025-11-25: one session (`initialize` through the balancer), every POST on it; with `--state` each replica takes the session up from Redis once, then serves it from its copy of the record (read again when another replica announces a change, and at most every 10 s).',
          `Load: autocannon, ${connections} connections, unique JSON-RPC id per request, every answer checked. All processes (load generator, HAProxy, Redis, replicas) share this machine's cores, so 3 replicas cannot show more than the spare cores allow.`,
          '`cores` is the CPU the setup used during the round (user + system of its replicas, its HAProxy and, with --state, Redis; from /proc/<pid>/stat), in cores; `req/s per core` divides the throughput by it, which is calls per CPU-second: what the setup serves per core it uses, which the load of the machine moves far less than req/s.',
          `Redis traffic per call: ${countedCalls} sequential 2025 \`tools/call\`s on a new session through HAProxy to 3 replicas of their own (the session's take-up on each replica counted in), whose Redis is the scenario's redis-server reached through a relay. Commands are counted by Redis (\`INFO commandstats\` before and after, every client; a script's or a MULTI's inner commands count one each, with the EVALSHA or MULTI/EXEC around them); round trips by the relay: a flight of bytes from a client after Redis has spoken, so a pipelined batch, a MULTI…EXEC or a script is one (one call in flight at a time: exact). Each replica serves a session it holds from its copy of the record; a take-up or a refresh (at most every 10 s per replica) is one script.`,
        ],
        tables: [
          {
            caption: `${connections} connections (median of ${options.rounds} rounds of ${options.duration} s)`,
            columns: ['setup', 'era', 'req/s', 'p50 ms', 'p99 ms', 'cores', 'req/s per core', 'failed'],
            rows: rows.map((row, i) => {
              const x = m[i]!;
              return [
                row.setup.label,
                row.era,
                fmt(x.rps),
                fmt(x.p50),
                fmt(x.p99),
                fmt(x.cores),
                fmt(x.perCore),
                x.failed,
              ];
            }),
          },
        ],
        goals: [
          {
            // Issue 32 asks to show it, per core used; with more processes than this machine's cores
            // (3 replicas, Redis, HAProxy, the load), 3 replicas cannot serve more than 1.
            ...reported('3 replicas vs 1 (both with --state), and per core used', scale, times),
            // Per core used beside it: the machine's load moves it far less than req/s.
            measured: scale.map(([era, v], i) => `${era}: ${times(v)} (${perCore[i]})`).join('; '),
          },
          {
            ...goal(
              'Redis round trips per 2025 tools/call through HAProxy, 3 replicas',
              '≤ 1',
              [['', traffic?.turns ?? Number.NaN]],
              (v) => v <= 1,
              (v) => v.toFixed(3),
            ),
            // The commands beside the round trips: a script or a MULTI is one trip of several.
            ...(traffic !== undefined && {
              measured: `${traffic.turns.toFixed(3)} round trips, ${traffic.commands.toFixed(3)} commands per call (${traffic.byCommand || 'none'})`,
            }),
          },
        ],
        raw: { rows: rows.map((r) => ({ setup: r.setup.label, era: r.era })), rounds },
      };
    } finally {
      for (const child of balancers) child.kill('SIGTERM');
      await stopAll(servers);
      own?.child.kill('SIGKILL');
    }
  },
};

interface Traffic {
  /** Redis round trips per call, as the relay counts them. */
  readonly turns: number;
  /** Redis commands per call, as Redis counts them. */
  readonly commands: number;
  /** The commands per call by name, most first: `evalsha 0.010, …`. */
  readonly byCommand: string;
}

/**
 * The Redis traffic of `calls` sequential 2025 `tools/call`s through HAProxy to 3 replicas of their
 * own, whose Redis (ours, so nothing else is counted) is reached through a relay counting round trips.
 */
async function countTraffic(work: string, manifest: string, own: OwnRedis, calls: number): Promise<Traffic> {
  const relay = await turnRelay('127.0.0.1', own.port);
  const state = `redis://127.0.0.1:${relay.port}/?prefix=counted`;
  const servers: Record<string, ServerProcess> = {};
  let balancer: ChildProcess | undefined;
  try {
    for (let i = 0; i < 3; i++)
      servers[`counted-${i}`] = await ServerProcess.http(
        `counted #${i}`,
        mcpRun(manifest, ['--http', '--port', '0', '--no-watch', '--state', state]),
      );
    const lb = await haproxy(
      work,
      'lb-counted',
      Object.values(servers).map((proc) => proc.url),
    );
    balancer = lb.child;
    const headers = await legacyHttpSession(lb.url);
    const body = JSON.stringify(toolCall('legacy', ID_SLOT, 'ping'));
    const before = redisCommandStats(own.port);
    relay.turns = 0;
    for (let i = 0; i < calls; i++) {
      const res = await fetch(lb.url, {
        method: 'POST',
        headers,
        body: body.replaceAll(ID_SLOT, String(i + 1)),
      });
      const text = await res.text();
      if (res.status !== 200 || !text.includes('pong')) throw new Error(`call ${i}: ${res.status} ${text}`);
    }
    const turns = relay.turns / calls;
    const after = redisCommandStats(own.port);
    const diff = [...after]
      .map(([name, n]): [string, number] => [name, (n - (before.get(name) ?? 0)) / calls])
      .filter(([, n]) => n > 0)
      .sort((x, y) => y[1] - x[1]);
    return {
      turns,
      commands: diff.reduce((sum, [, n]) => sum + n, 0),
      byCommand: diff.map(([name, n]) => `${name} ${n.toFixed(3)}`).join(', '),
    };
  } finally {
    balancer?.kill('SIGTERM');
    await stopAll(servers);
    relay.close();
  }
}
