/**
 * Scenario `reload`: hot-reload latency, from writing the manifest to the
 * `notifications/tools/list_changed` arriving at a connected legacy stdio client, for a 10-tool and
 * a 1,000-tool manifest. Each edit changes one tool's description, so every reload is a real change.
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { manyToolsText, writeManifest } from '../lib/fixtures.js';
import { goal } from '../lib/goals.js';
import { mcpRun } from '../lib/proc.js';
import { fmt, latency } from '../lib/stats.js';
import { StdioPeer } from '../lib/stdio-peer.js';
import type { BenchOptions, Scenario } from '../lib/types.js';

/** Quiet time after each notification, so one write never bleeds into the next measurement. */
const SETTLE_MS = 250;
const TIMEOUT_MS = 10_000;

class ReloadClient {
  notifications = 0;
  private waiter: (() => void) | undefined;

  constructor(
    readonly peer: StdioPeer,
    readonly manifest: string,
    readonly n: number,
  ) {
    peer.onMessage((m) => {
      if (m.method !== 'notifications/tools/list_changed') return;
      this.notifications++;
      this.waiter?.();
      this.waiter = undefined;
    });
  }

  /** Writes edit number `edit` and resolves with the milliseconds until the notification. */
  async edit(edit: number): Promise<number> {
    const arrived = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no list_changed within ${TIMEOUT_MS} ms`)),
        TIMEOUT_MS,
      );
      this.waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    const t0 = performance.now();
    writeFileSync(this.manifest, manyToolsText(this.n, { edit }));
    await arrived;
    const ms = performance.now() - t0;
    await sleep(SETTLE_MS);
    return ms;
  }
}

export const reloadScenario: Scenario = {
  name: 'reload',
  title: 'Hot-reload latency',

  async run(options: BenchOptions, work: string) {
    const sizes = options.smoke ? [10, 50] : [10, 1000];
    const runs = options.smoke ? 2 : options.runs * 3;
    const clients: ReloadClient[] = [];
    try {
      for (const n of sizes) {
        const manifest = writeManifest(work, `reload-${n}.yaml`, manyToolsText(n));
        // debug level: the server says when its watcher is ready.
        const peer = new StdioPeer(
          `mcp-run ${n}`,
          mcpRun(manifest, ['--log-level', 'debug'], options.profileDir),
        );
        clients.push(new ReloadClient(peer, manifest, n));
        await peer.initialize();
        await peer.waitForStderr(/watching .* for changes/, 30_000);
      }
      const samples: number[][] = clients.map(() => []);
      for (let run = 1; run <= runs; run++) {
        for (const [i, client] of clients.entries()) samples[i]!.push(await client.edit(run));
      }
      const rows = clients.map((c, i) => ({
        n: c.n,
        ...latency(samples[i]!),
        extra: c.notifications - runs,
      }));
      return {
        name: this.name,
        title: this.title,
        setup: [
          'mcp-run on stdio with hot reload on (the default), a legacy client connected (`initialize` done), the watcher ready. Each run rewrites the whole manifest with a new description for `tool_0` and times write → `notifications/tools/list_changed` on the client, then waits 250 ms of quiet.',
          'The two manifests are edited alternately (10 tools, 1,000 tools, 10, 1,000…). `extra` counts notifications beyond one per write (should be 0).',
        ],
        tables: [
          {
            caption: `Write → list_changed (${runs} edits each)`,
            columns: ['manifest', 'median ms', 'p99 ms', 'worst ms', 'extra notifications'],
            rows: rows.map((r) => [
              `${r.n.toLocaleString('en-US')} tools`,
              fmt(r.p50),
              fmt(r.p99),
              fmt(r.max),
              r.extra,
            ]),
          },
        ],
        goals: [
          goal(
            `Hot reload median, ${sizes[0]} tools`,
            '< 150 ms',
            [['', rows[0]!.p50]],
            (v) => v < 150,
            (v) => `${fmt(v)} ms (worst ${fmt(rows[0]!.max)} ms)`,
          ),
          goal(
            `Hot reload median, ${sizes[1]!.toLocaleString('en-US')} tools`,
            '< 500 ms',
            [['', rows[1]!.p50]],
            (v) => v < 500,
            (v) => `${fmt(v)} ms (worst ${fmt(rows[1]!.max)} ms)`,
          ),
        ],
        raw: Object.fromEntries(clients.map((c, i) => [c.n, samples[i]])),
      };
    } finally {
      await Promise.all(clients.map((c) => c.peer.close()));
    }
  },
};
