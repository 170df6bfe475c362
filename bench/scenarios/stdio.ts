/**
 * Scenario `stdio`: `tools/call` round trips over stdio, sequential (one in flight) and pipelined
 * (64 in flight), against the official SDKs' stdio servers and a bare stdio JSON-RPC echo.
 */
import { performance } from 'node:perf_hooks';
import { cheapManifest } from '../lib/fixtures.js';
import { interleave, medians } from '../lib/load.js';
import { type Era, toolCall } from '../lib/mcp.js';
import { benchServer, mcpRun } from '../lib/proc.js';
import { fmt, latency, ratio, times } from '../lib/stats.js';
import { StdioPeer, stdioAnswered } from '../lib/stdio-peer.js';
import type { BenchOptions, Scenario, Table } from '../lib/types.js';

const PIPELINED = 64;

/** `inFlight` callers, each sending its next request as soon as its last one is answered. */
async function roundTrips(peer: StdioPeer, era: Era, inFlight: number, seconds: number) {
  const samples: number[] = [];
  let failed = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  const caller = async () => {
    do {
      const t0 = performance.now();
      const answer = await peer.request(toolCall(era, 0, 'ping'));
      samples.push(performance.now() - t0);
      if (!stdioAnswered(answer)) failed++;
    } while (performance.now() < end);
  };
  await Promise.all(Array.from({ length: inFlight }, caller));
  return { ...latency(samples), rps: samples.length / ((performance.now() - start) / 1000), failed };
}

export const stdioScenario: Scenario = {
  name: 'stdio',
  title: 'stdio round trips',

  async run(options: BenchOptions, work: string) {
    const manifest = cheapManifest(work);
    const contenders = [
      { label: 'mcp-run', era: 'legacy' as Era, args: mcpRun(manifest, ['--no-watch'], options.profileDir) },
      { label: 'mcp-run', era: 'modern' as Era, args: mcpRun(manifest, ['--no-watch'], options.profileDir) },
      {
        label: 'SDK v1 (StdioServerTransport)',
        era: 'legacy' as Era,
        args: benchServer('sdk-v1-stdio.mjs', ['--cheap']),
      },
      {
        label: 'SDK v2 (serveStdio)',
        era: 'modern' as Era,
        args: benchServer('sdk-v2-stdio.mjs', ['--cheap']),
      },
      { label: 'bare stdio echo', era: 'legacy' as Era, args: benchServer('bare-stdio.mjs', []) },
    ];
    const peers = contenders.map((c) => new StdioPeer(c.label, c.args));
    try {
      for (const [i, peer] of peers.entries()) {
        if (contenders[i]!.era === 'legacy') await peer.initialize();
        const probe = await peer.request(toolCall(contenders[i]!.era, 0, 'ping'));
        if (!stdioAnswered(probe)) throw new Error(`${peer.label}: ${JSON.stringify(probe)}`);
      }
      const tables: Table[] = [];
      const raw: Record<string, unknown> = {};
      for (const inFlight of [1, PIPELINED]) {
        const rounds = await interleave(
          contenders.map((c, i) => ({
            label: `${c.label} ${c.era}, ${inFlight} in flight`,
            measure: (s: number) => roundTrips(peers[i]!, c.era, inFlight, s),
          })),
          { rounds: options.rounds, seconds: options.duration, warmup: options.warmup },
          (line) => console.error(`  stdio: ${line}`),
        );
        raw[inFlight] = rounds;
        const m = rounds.map((r) => medians(r));
        const v1 = m[2]!;
        tables.push({
          caption: `${inFlight === 1 ? 'Sequential (1 in flight)' : `Pipelined (${inFlight} in flight)`}, median of ${options.rounds} rounds of ${options.duration} s`,
          columns: ['server', 'era', 'calls/s', 'p50 ms', 'p99 ms', '× SDK v1', 'failed'],
          rows: contenders.map((c, i) => [
            c.label,
            c.era,
            fmt(m[i]!.rps),
            fmt(m[i]!.p50),
            fmt(m[i]!.p99),
            times(ratio(m[i]!.rps, v1.rps)),
            m[i]!.failed,
          ]),
        });
      }
      return {
        name: this.name,
        title: this.title,
        setup: [
          'Tool: `ping` (as in `http`). Each server is one child process on pipes; legacy contenders did the `initialize` handshake first, modern ones send the `_meta` envelope in every request.',
          `Sequential: one request at a time. Pipelined: ${PIPELINED} callers, each sending its next request when its last one is answered. Latency is request write to answer parsed, in the bench process.`,
          'The bare echo parses each line and writes a canned answer: the ceiling of node + pipes.',
        ],
        tables,
        goals: [],
        raw,
      };
    } finally {
      await Promise.all(peers.map((p) => p.close()));
    }
  },
};
