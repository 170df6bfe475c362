/**
 * Scenario `replicas`: `tools/call` throughput through HAProxy (round-robin, no stickiness) to 1
 * and to 3 mcp-run replicas sharing 2025 sessions in Redis (`--state`), both eras, and 1 replica
 * without `--state` (memory sessions) as the baseline of what the shared state costs. The 2025 load
 * runs on one session, so every request of it is served by whichever replica HAProxy picks, which
 * takes the session up from Redis. Needs HAProxy and a Redis (MCP_RUN_TEST_REDIS_URL, else
 * redis://127.0.0.1:6379); each run uses a key prefix of its own.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { cheapManifest } from '../lib/fixtures.js';
import { goal } from '../lib/goals.js';
import { cannon, interleave, medians, probe, type Target, type Throughput } from '../lib/load.js';
import { type Era, ID_SLOT, legacyHttpSession, modernHeaders, toolCall } from '../lib/mcp.js';
import { mcpRun, ServerProcess, stopAll } from '../lib/proc.js';
import { fmt, ratio, times } from '../lib/stats.js';
import type { BenchOptions, Scenario } from '../lib/types.js';

const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((p) => existsSync(p));

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** HAProxy round-robin over the replicas; resolves once it forwards. */
async function haproxy(
  work: string,
  name: string,
  urls: readonly string[],
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const cfg = join(work, `${name}.cfg`);
  writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 1024',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 30s',
      '  timeout server 30s',
      'frontend mcp',
      `  bind 127.0.0.1:${port}`,
      '  default_backend replicas',
      'backend replicas',
      '  balance roundrobin',
      ...urls.map((u, i) => `  server r${i} ${new URL(u).host}`),
      '',
    ].join('\n'),
  );
  const child = spawn(HAPROXY as string, ['-f', cfg, '-db'], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}/mcp`;
  for (let i = 0; ; i++) {
    const ok = await fetch(new URL('/healthz', url)).then(
      (r) => r.text().then(() => r.ok),
      () => false,
    );
    if (ok) break;
    if (i > 200 || child.exitCode !== null) throw new Error('haproxy did not start');
    await new Promise((r) => setTimeout(r, 25));
  }
  return { url, child };
}

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
    const redis = new URL(process.env.MCP_RUN_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
    redis.searchParams.set('prefix', `bench-${process.pid}-${Date.now().toString(36)}`);
    const manifest = cheapManifest(work);
    const connections = 32;
    const servers: Record<string, ServerProcess> = {};
    const balancers: ChildProcess[] = [];
    try {
      const rows: { setup: Setup; era: Era; target: Target }[] = [];
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
        rows.push({
          setup,
          era: 'modern',
          target: {
            url: lb.url,
            headers: modernHeaders('tools/call', 'ping'),
            body: JSON.stringify(toolCall('modern', ID_SLOT, 'ping')),
          },
        });
        rows.push({
          setup,
          era: 'legacy',
          target: {
            url: lb.url,
            headers: await legacyHttpSession(lb.url),
            body: JSON.stringify(toolCall('legacy', ID_SLOT, 'ping')),
          },
        });
      }
      for (const row of rows) await probe(row.target);
      const rounds: Throughput[][] = await interleave(
        rows.map((row) => ({
          label: `${row.setup.label} ${row.era}`,
          measure: (seconds: number) =>
            cannon(row.target, connections, seconds, options.smoke ? connections * 2 : undefined),
        })),
        { rounds: options.rounds, seconds: options.duration, warmup: options.warmup },
        (line) => console.error(`  replicas: ${line}`),
      );
      const m = rounds.map((r) => medians(r));
      const find = (label: string, era: Era) =>
        m[rows.findIndex((r) => r.setup.label === label && r.era === era)]!;
      const scale: [string, number][] = (['modern', 'legacy'] as const).map((era) => [
        era,
        ratio(find('3 replicas, --state', era).rps, find('1 replica, --state', era).rps),
      ]);
      return {
        name: this.name,
        title: this.title,
        setup: [
          'Tool: `ping` (a `content` tool answering "pong"). Every setup is reached through its own HAProxy (round-robin, no stickiness, keep-alive to the clients); the replicas are `mcp-run --http` processes.',
          '2026-07-28: stateless POSTs with the `_meta` envelope. 2025-11-25: one session (`initialize` through the balancer), every POST on it; with `--state` each replica takes the session up from Redis and refreshes it per request.',
          `Load: autocannon, ${connections} connections, unique JSON-RPC id per request, every answer checked. All processes (load generator, HAProxy, Redis, replicas) share this machine's cores, so 3 replicas cannot show more than the spare cores allow.`,
        ],
        tables: [
          {
            caption: `${connections} connections (median of ${options.rounds} rounds of ${options.duration} s)`,
            columns: ['setup', 'era', 'req/s', 'p50 ms', 'p99 ms', 'failed'],
            rows: rows.map((row, i) => {
              const x = m[i]!;
              return [row.setup.label, row.era, fmt(x.rps), fmt(x.p50), fmt(x.p99), x.failed];
            }),
          },
        ],
        goals: [
          goal(
            '3 replicas vs 1 (both with --state)',
            '≥ 1× (no loss from sharing)',
            scale,
            (v) => v >= 1,
            times,
          ),
        ],
        raw: { rows: rows.map((r) => ({ setup: r.setup.label, era: r.era })), rounds },
      };
    } finally {
      for (const child of balancers) child.kill('SIGTERM');
      await stopAll(servers);
    }
  },
};
