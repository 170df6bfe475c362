/**
 * Scenario `soak`: a load run of N clients for M seconds through HAProxy to two mcp-run replicas
 * with `--state` on a redis-server of the scenario's own. Half the clients hold a 2025 session
 * (served by whichever replica HAProxy picks, taken up from Redis), half send 2026-07-28 stateless
 * requests; each cycles through tools/list, an SQLite query, an HTTP call to a local upstream and a
 * shell program (argv only), and every answer is checked. Two runs: steady, and one where a replica
 * is SIGKILLed midway and started again on its port. The figure that matters is calls lost (no
 * answer at all): 0, and errors only among the calls in flight at the kill.
 */
import type { ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { freePort, haproxy, type OwnRedis, ownRedis } from '../lib/cluster.js';
import { sqlFixture, writeManifest } from '../lib/fixtures.js';
import { goal } from '../lib/goals.js';
import { type Era, LEGACY, legacyHttpSession, modernHeaders, request, toolCall } from '../lib/mcp.js';
import { benchServer, mcpRun, memoryOf, ServerProcess, stopAll } from '../lib/proc.js';
import { fmt, latency } from '../lib/stats.js';
import type { BenchOptions, Scenario, Table } from '../lib/types.js';

/** A call with no answer within this long is lost (it never had one coming). */
const LOST_AFTER_MS = 15_000;

type Kind = 'tools/list' | 'sql' | 'http' | 'shell';
const KINDS: readonly Kind[] = ['tools/list', 'sql', 'http', 'shell'];

function manifest(work: string, upstream: string): string {
  sqlFixture(work); // items.db, 1,000 rows
  return writeManifest(
    work,
    'soak.yaml',
    `server: { name: bench, version: 1.0.0 }
sources:
  shop: { kind: sqlite, path: ./items.db }
  api: { kind: http, baseUrl: "${upstream}" }
tools:
  items:
    kind: sql
    source: shop
    description: The first items of the catalogue.
    input:
      limit: { type: integer, minimum: 1, maximum: 100, description: How many rows }
    sql: SELECT id, name, price FROM items ORDER BY id LIMIT :limit
  get_item:
    kind: http
    source: api
    description: One item of the upstream API.
    method: GET
    path: /items/42
  echo:
    kind: shell
    description: Echoes its argument.
    command: [echo, "{{text}}"]
    maxConcurrency: 8
    input:
      text: { type: string, description: What to echo }
`,
  );
}

/** One call a client makes: its request, and what its answer must hold. */
function callOf(era: Era, kind: Kind, id: number, token: string) {
  if (kind === 'tools/list') {
    return {
      body: request(era, id, 'tools/list'),
      routing: modernHeaders('tools/list'),
      expect: ['"items"', '"get_item"', '"echo"'],
    };
  }
  const [name, args, expect]: [string, object, string] =
    kind === 'sql'
      ? ['items', { limit: 1 + (id % 5) }, `item number ${1 + (id % 5)}`]
      : kind === 'http'
        ? ['get_item', {}, 'widget']
        : ['echo', { text: token }, token];
  return {
    body: toolCall(era, id, name, args),
    routing: modernHeaders('tools/call', name),
    expect: [expect],
  };
}

/** The JSON-RPC message of an answer, whether it came as JSON or as one SSE event. */
function message(
  text: string,
): { id?: unknown; result?: { isError?: boolean }; error?: unknown } | undefined {
  const json = text.trimStart().startsWith('{')
    ? text
    : text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5))
        .join('');
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

interface Call {
  readonly era: Era;
  readonly kind: Kind;
  readonly start: number;
  readonly end: number;
  /**
   * ok: the right answer; error: an answer, but not the right one; closed: the connection closed
   * with no answer (the client knows at once: a failure, as test/faults counts it); lost: silence,
   * nothing at all within LOST_AFTER_MS.
   */
  readonly outcome: 'ok' | 'error' | 'closed' | 'lost';
  readonly detail?: string;
}

interface Sample {
  /** Seconds since the run began. */
  readonly t: number;
  /** RSS of each replica, MB; null while it is down. */
  readonly rssMb: readonly (number | null)[];
}

interface Run {
  readonly label: string;
  readonly seconds: number;
  readonly calls: readonly Call[];
  readonly samples: readonly Sample[];
  /** ms since the run began, and how many calls were in flight then (fault run only). */
  readonly kill?: { readonly at: number; readonly inFlight: number; readonly restartMs: number };
}

/** RSS in MB, or null when there is none to read (a process just killed has no VmRSS left). */
function rssOf(pid: number | undefined): number | null {
  const rss = memoryOf(pid)?.rssMb;
  return rss !== undefined && Number.isFinite(rss) ? rss : null;
}

interface Cluster {
  readonly url: string;
  readonly replicas: ServerProcess[];
  readonly start: (i: number) => Promise<ServerProcess>;
}

/** N clients for `seconds`; with `fault`, replica 0 is SIGKILLed midway and started again. */
async function loadRun(
  cluster: Cluster,
  label: string,
  clients: number,
  seconds: number,
  fault: boolean,
): Promise<Run> {
  const sessions = await Promise.all(
    Array.from({ length: clients }, (_, c) =>
      c % 2 === 0 ? legacyHttpSession(cluster.url) : Promise.resolve(undefined),
    ),
  );
  const calls: Call[] = [];
  const samples: Sample[] = [];
  const open = new Set<number>();
  let nextId = 1;
  const t0 = performance.now();
  const sample = () =>
    samples.push({
      t: (performance.now() - t0) / 1000,
      rssMb: cluster.replicas.map((r) =>
        r.child.exitCode === null && r.child.signalCode === null ? rssOf(r.child.pid) : null,
      ),
    });
  sample();
  const sampler = setInterval(sample, 1000);
  let kill: Run['kill'];
  let restarted: Promise<void> = Promise.resolve();
  const faultTimer = fault
    ? setTimeout(
        () => {
          const victim = cluster.replicas[0]!;
          kill = { at: performance.now() - t0, inFlight: open.size, restartMs: Number.NaN };
          victim.child.kill('SIGKILL');
          const k0 = performance.now();
          restarted = new Promise<void>((ok) => victim.child.once('exit', () => ok()))
            .then(() => {
              sample(); // one sample of it down, whatever the second
              return cluster.start(0);
            })
            .then((proc) => {
              cluster.replicas[0] = proc;
              if (kill) kill = { ...kill, restartMs: performance.now() - k0 };
            });
        },
        (seconds * 1000) / 2,
      )
    : undefined;
  // The load goes on until the restarted replica is back, so calls reach it too.
  let restartDone = !fault;
  const stopAt = t0 + seconds * 1000;
  const client = async (c: number) => {
    const era: Era = c % 2 === 0 ? 'legacy' : 'modern';
    const headers = sessions[c];
    for (let n = c; performance.now() < stopAt || !restartDone; n++) {
      const kind = KINDS[n % KINDS.length]!;
      const id = nextId++;
      const token = `soak-${c}-${id}`;
      const call = callOf(era, kind, id, token);
      const start = performance.now();
      open.add(id);
      let outcome: Call['outcome'];
      let detail: string | undefined;
      try {
        const res = await fetch(cluster.url, {
          method: 'POST',
          headers: era === 'legacy' ? headers! : call.routing,
          body: JSON.stringify(call.body),
          signal: AbortSignal.timeout(LOST_AFTER_MS),
        });
        const text = await res.text();
        const msg = message(text);
        const right =
          res.status === 200 &&
          msg?.id === id &&
          msg.result !== undefined &&
          msg.result.isError !== true &&
          call.expect.every((e) => text.includes(e));
        outcome = right ? 'ok' : 'error';
        if (!right) detail = `${res.status} ${text.slice(0, 200)}`;
      } catch (err) {
        outcome = (err as Error).name === 'TimeoutError' ? 'lost' : 'closed';
        const cause = (err as Error).cause as Error | undefined;
        detail = cause ? `${(err as Error).message}: ${cause.message}` : (err as Error).message;
      }
      open.delete(id);
      calls.push({
        era,
        kind,
        start: start - t0,
        end: performance.now() - t0,
        outcome,
        ...(detail && { detail }),
      });
    }
  };
  const running = Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  if (fault) {
    await new Promise((r) => setTimeout(r, (seconds * 1000) / 2 + 10));
    await restarted;
    restartDone = true;
  }
  await running;
  clearTimeout(faultTimer);
  clearInterval(sampler);
  sample();
  return { label, seconds: (performance.now() - t0) / 1000, calls, samples, ...(kill && { kill }) };
}

/**
 * How long after the kill HAProxy may still hand a new call to the dead replica: on a keep-alive
 * connection to it whose close it has not read yet, or before a check takes it out (every 300 ms).
 * test/faults/replicas.test.ts allows the same 500 ms.
 */
const NOTICE_MS = 500;

/** Calls of a run that were in flight at its kill: begun before, answered (or not) after. */
const inFlight = (run: Run, c: Call): boolean =>
  run.kill !== undefined && c.start <= run.kill.at && c.end >= run.kill.at;

/** Calls begun after the kill, before HAProxy can have noticed it. */
const justAfter = (run: Run, c: Call): boolean =>
  run.kill !== undefined && c.start > run.kill.at && c.start <= run.kill.at + NOTICE_MS;

function figures(run: Run) {
  const lat = latency(run.calls.filter((c) => c.outcome === 'ok').map((c) => c.end - c.start));
  const errors = run.calls.filter((c) => c.outcome === 'error' || c.outcome === 'closed');
  return {
    calls: run.calls.length,
    rps: run.calls.filter((c) => c.outcome === 'ok').length / run.seconds,
    p50: lat.p50,
    p99: lat.p99,
    errors: errors.length,
    closed: run.calls.filter((c) => c.outcome === 'closed').length,
    lost: run.calls.filter((c) => c.outcome === 'lost').length,
    errorsInFlight: errors.filter((c) => inFlight(run, c)).length,
    errorsJustAfter: errors.filter((c) => justAfter(run, c)).length,
    /** Errors of every other call: must be 0. */
    errorsOutside: errors.filter((c) => !inFlight(run, c) && !justAfter(run, c)).length,
  };
}

function rssTable(run: Run, caption: string, unit: (i: number) => string): Table {
  return {
    caption,
    columns: ['second', ...[0, 1].map((i) => `replica ${i + 1} ${unit(i)}`)],
    rows: run.samples.map((s) => [s.t.toFixed(1), ...s.rssMb.map((v) => (v === null ? 'down' : fmt(v)))]),
  };
}

export const soakScenario: Scenario = {
  name: 'soak',
  title: 'Load run: mixed calls, both eras, two replicas, a replica killed midway',

  async run(options: BenchOptions, work: string) {
    const clients = options.smoke ? 2 : 16;
    const seconds = options.soak;
    let redis: OwnRedis | undefined;
    const servers: Record<string, ServerProcess> = {};
    let balancer: ChildProcess | undefined;
    const cluster: { url: string; replicas: ServerProcess[]; start: (i: number) => Promise<ServerProcess> } =
      {
        url: '',
        replicas: [],
        start: async () => {
          throw new Error('not yet');
        },
      };
    try {
      redis = await ownRedis();
      const state = new URL(redis.url);
      state.searchParams.set('prefix', `bench-soak-${process.pid}`);
      servers.upstream = await ServerProcess.http('upstream', benchServer('upstream.mjs', []));
      const file = manifest(work, servers.upstream.url);
      const ports = [await freePort(), await freePort()];
      let starts = 0;
      // A replica on its fixed port (a restarted one takes the same place in HAProxy's list).
      cluster.start = async (i: number) => {
        const proc = await ServerProcess.http(
          `replica ${i + 1}`,
          mcpRun(file, ['--http', '--port', String(ports[i]), '--no-watch', '--state', state.toString()]),
        );
        servers[`replica-${i}-${starts++}`] = proc;
        return proc;
      };
      cluster.replicas.push(await cluster.start(0), await cluster.start(1));
      const lb = await haproxy(
        work,
        'soak',
        cluster.replicas.map((r) => r.url),
        { failover: true },
      );
      balancer = lb.child;
      cluster.url = lb.url;

      // A short warm-up (JIT, pools, the first SQLite statement) that is not counted.
      await loadRun(cluster, 'warm-up', clients, options.smoke ? 0.3 : 2, false);
      const progress = (line: string) => console.error(`  soak: ${line}`);
      const steady = await loadRun(cluster, 'steady', clients, seconds, false);
      progress(`steady: ${steady.calls.length} calls`);
      const fault = await loadRun(cluster, 'replica 1 SIGKILLed midway', clients, seconds, true);
      progress(`fault: ${fault.calls.length} calls, kill at ${fault.kill?.at.toFixed(0)} ms`);
      for (const run of [steady, fault]) {
        for (const c of run.calls.filter((x) => x.outcome !== 'ok').slice(0, 5))
          progress(`${run.label}: ${c.outcome} ${c.era} ${c.kind} at ${c.start.toFixed(0)} ms: ${c.detail}`);
      }
      const s = figures(steady);
      const f = figures(fault);
      const kill = fault.kill;
      const byCall: Table = {
        caption: 'Steady run, by call',
        columns: ['call', 'era', 'calls', 'p50 ms', 'p99 ms', 'errors', 'lost'],
        rows: KINDS.flatMap((kind) =>
          (['legacy', 'modern'] as const).map((era) => {
            const mine = steady.calls.filter((c) => c.kind === kind && c.era === era);
            const lat = latency(mine.filter((c) => c.outcome === 'ok').map((c) => c.end - c.start));
            return [
              kind,
              era === 'legacy' ? LEGACY : '2026-07-28',
              mine.length,
              fmt(lat.p50),
              fmt(lat.p99),
              mine.filter((c) => c.outcome === 'error' || c.outcome === 'closed').length,
              mine.filter((c) => c.outcome === 'lost').length,
            ];
          }),
        ),
      };
      return {
        name: 'soak',
        title: this.title,
        setup: [
          `${clients} clients at once (${clients / 2} on 2025-11-25 sessions, ${clients / 2} 2026-07-28 stateless), one call at a time each, for ${seconds} s per run, after an uncounted warm-up.`,
          'Each client cycles through `tools/list`, an SQLite query (`LIMIT 1..5` on 1,000 rows), an `http` tool (GET to a node:http upstream of the bench) and a `shell` tool (`[echo, "{{text}}"]`, argv only). Every answer is checked: its id, a result that is not a tool error, and its content (the row, the upstream body, the echoed text).',
          'Two mcp-run replicas with `--state` on a redis-server of the run, behind HAProxy: round-robin, no stickiness, /healthz checks every 300 ms, `retries 3` and `option redispatch`. 2025 sessions move between replicas through Redis.',
          `Fault run: replica 1 is SIGKILLed halfway and started again on its port; the load goes on until it is back. A call is lost when nothing at all comes back within ${LOST_AFTER_MS / 1000} s (silence); it fails with an error when it gets a wrong answer (a 5xx, a JSON-RPC error) or its connection is closed with no answer (the client knows at once, as test/faults counts it; the "closed" column counts these among the errors). "In flight at the kill": begun before the kill, ended after; "just after": begun within ${NOTICE_MS} ms after it, while HAProxy may still hand a call to the dead replica (on a keep-alive connection to it whose close it has not read yet; checks run every 300 ms). No L7 retries: HAProxy retries a failed connect only, never a request a replica may have run.`,
          'RSS of each replica from /proc, once a second.',
        ],
        tables: [
          {
            caption: `Load runs, ${clients} clients, ${seconds} s`,
            columns: [
              'run',
              'calls',
              'calls/s',
              'p50 ms',
              'p99 ms',
              'errors',
              'closed',
              'lost',
              'in flight at the kill',
              'errors in flight',
              'errors just after',
              'other errors',
            ],
            rows: [
              [
                steady.label,
                s.calls,
                fmt(s.rps),
                fmt(s.p50),
                fmt(s.p99),
                s.errors,
                s.closed,
                s.lost,
                '–',
                '–',
                '–',
                s.errorsOutside,
              ],
              [
                `${fault.label} (back after ${kill ? fmt(kill.restartMs) : 'n/a'} ms)`,
                f.calls,
                fmt(f.rps),
                fmt(f.p50),
                fmt(f.p99),
                f.errors,
                f.closed,
                f.lost,
                kill?.inFlight ?? 'n/a',
                f.errorsInFlight,
                f.errorsJustAfter,
                f.errorsOutside,
              ],
            ],
          },
          byCall,
          rssTable(steady, 'RSS over time, steady run', () => 'MB'),
          // The killed replica's column holds "down" while it is: not a column of figures.
          rssTable(fault, 'RSS over time, fault run (MB; replica 1 killed and restarted)', (i) =>
            i === 0 ? '(killed), MB or down' : 'MB',
          ),
        ],
        goals: [
          goal(
            'Calls lost (no answer at all) in the load run, a replica SIGKILLed midway',
            '0',
            [
              ['steady', s.lost],
              ['fault', f.lost],
            ],
            (v) => v === 0,
            String,
          ),
          {
            ...goal(
              'Calls failed with an error, a replica SIGKILLed midway',
              `only calls in flight at the kill or begun ≤ ${NOTICE_MS} ms after it`,
              [
                ['steady', s.errors],
                ['fault, other calls', f.errorsOutside],
              ],
              (v) => v === 0,
              String,
            ),
            measured: `steady: ${s.errors}; fault: ${f.errors} (${f.errorsInFlight} in flight at the kill, of ${kill?.inFlight ?? 'n/a'}; ${f.errorsJustAfter} begun just after; ${f.errorsOutside} other)`,
          },
        ],
        raw: {
          clients,
          seconds,
          runs: [steady, fault].map((run) => ({
            label: run.label,
            seconds: run.seconds,
            kill: run.kill,
            figures: figures(run),
            samples: run.samples,
            failures: run.calls.filter((c) => c.outcome !== 'ok'),
          })),
        },
      };
    } finally {
      balancer?.kill('SIGTERM');
      await stopAll(servers);
      redis?.child.kill('SIGKILL');
    }
  },
};
