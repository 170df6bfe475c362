/**
 * Scenario `toolbox`: mcp-run against MCP Toolbox for Databases (Go) on the same SQL tools, side by
 * side in interleaved rounds: a one-row query on SQLite and on PostgreSQL at 1, 8 and 32
 * connections, `tools/list` of 10 tools, and full `tools/list` walks of 1,000 and 10,000 tools with
 * the RSS of each serving process. Toolbox starts from a `tools.yaml` the bench writes. Skipped,
 * with the reason, when its binary is missing; the PostgreSQL rows need MCP_RUN_BENCH_POSTGRES_URL
 * (or MCP_RUN_TEST_POSTGRES_URL). MCP_RUN_BENCH_TOOLBOX_ONLY=postgres runs the PostgreSQL call rows
 * alone (a short look at that goal; give `--out` so that the partial figures go elsewhere).
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { sqlFixture, writeManifest } from '../lib/fixtures.js';
import { goal } from '../lib/goals.js';
import { cannon, interleave, medians, probe, type Target, type Throughput } from '../lib/load.js';
import {
  answered,
  BASE_HEADERS,
  type Era,
  ID_SLOT,
  LEGACY,
  legacyHttpSession,
  modernHeaders,
  request,
  toolCall,
} from '../lib/mcp.js';
import {
  benchServer,
  cpuMsByProcess,
  cpuMsOf,
  cpuMsSince,
  mcpRun,
  type ServerProcess,
  startAll,
  stopAll,
} from '../lib/proc.js';
import { fmt, median, ratio, times } from '../lib/stats.js';
import {
  mcpRunSqlTools,
  type SqlToolSpec,
  startToolbox,
  type ToolboxSource,
  toolboxBinary,
  toolboxYaml,
} from '../lib/toolbox.js';
import type { BenchOptions, Goal, Scenario, Table } from '../lib/types.js';
import { walks } from './scale.js';

const HEADER = 'server: { name: bench, version: 1.0.0 }\n';
/** The label of bench/servers/bare-sql.mjs in the call tables. */
const CEILING = 'bare node:http + driver (ceiling)';
const TOOLBOX_HEADERS = { ...BASE_HEADERS, 'mcp-protocol-version': LEGACY };

/** `item` (a one-row query by id) and `item_1` … `item_<n-1>` like it: the list scenarios' tools. */
function itemTools(n: number, table: string): SqlToolSpec[] {
  return Array.from({ length: n }, (_, i) => ({
    name: i === 0 ? 'item' : `item_${i}`,
    description: `Item ${i} of the catalogue tools: one item, by id.`,
    sql: `SELECT id, name, price FROM ${table} WHERE id = :id`,
    params: [{ name: 'id', description: 'The item id' }],
  }));
}

function mcpRunManifest(work: string, file: string, source: ToolboxSource, tools: SqlToolSpec[]): string {
  const db =
    source.kind === 'sqlite'
      ? `  db: { kind: sqlite, path: ${JSON.stringify(source.path)} }\n`
      : `  db: { kind: postgres, url: ${JSON.stringify(source.url)} }\n`;
  return writeManifest(work, file, `${HEADER}sources:\n${db}${mcpRunSqlTools(tools)}`);
}

interface Pair {
  readonly mcpRun: ServerProcess;
  /** The same manifest served by `--workers auto` (one worker per core; issue 49): the call rows only. */
  readonly workers?: ServerProcess;
  readonly toolbox: ServerProcess;
  /** bench/servers/bare-sql.mjs on the same table: the call rows' ceiling. */
  readonly bare?: ServerProcess;
  /** The command of the database's own processes (PostgreSQL's backends), whose CPU is counted too. */
  readonly db?: string;
  /** Only the database's processes whose command line holds this (PostgreSQL: the database name). */
  readonly dbOnly?: string;
}

/** A round's throughput, and what one request cost in CPU: the server's (all its threads and worker processes), and the database's. */
interface Costed extends Throughput {
  readonly cpuUs: number;
  readonly dbCpuUs: number;
}

async function costed(pid: number | undefined, pair: Pair, load: () => Promise<Throughput>): Promise<Costed> {
  const db = pair.db;
  const [server0, db0] = [cpuMsOf(pid), db ? cpuMsByProcess(db, pair.dbOnly) : undefined];
  const t0 = performance.now();
  const r = await load();
  const seconds = (performance.now() - t0) / 1000;
  const [server1, db1] = [cpuMsOf(pid), db ? cpuMsByProcess(db, pair.dbOnly) : undefined];
  const perCall = (ms: number | undefined) =>
    ms === undefined || r.rps <= 0 ? Number.NaN : (ms * 1000) / (r.rps * seconds);
  return {
    ...r,
    cpuUs: perCall(server0 === undefined || server1 === undefined ? undefined : server1 - server0),
    dbCpuUs: perCall(db0 && db1 && cpuMsSince(db0, db1)),
  };
}

async function startPair(
  binary: string,
  work: string,
  tag: string,
  source: ToolboxSource,
  tools: SqlToolSpec[],
  options: BenchOptions,
  table?: string,
  database?: string,
): Promise<Pair> {
  const manifest = mcpRunManifest(work, `${tag}.yaml`, source, tools);
  const config = writeManifest(work, `${tag}-tools.yaml`, toolboxYaml(source, tools));
  const driver =
    source.kind === 'sqlite'
      ? ['--sqlite', source.path]
      : ['--postgres', source.url, '--table', table ?? 'items'];
  const specs: Record<string, readonly string[]> = {
    mcpRun: mcpRun(manifest, ['--http', '--port', '0', '--no-watch'], options.profileDir),
  };
  if (table !== undefined) {
    specs.bare = benchServer('bare-sql.mjs', driver);
    specs.workers = mcpRun(
      manifest,
      ['--http', '--port', '0', '--no-watch', '--workers', 'auto'],
      options.profileDir,
    );
  }
  const started = await startAll(specs);
  try {
    const toolbox = await startToolbox(binary, config);
    return {
      mcpRun: started.mcpRun!,
      toolbox,
      ...(started.bare && { bare: started.bare }),
      ...(started.workers && { workers: started.workers }),
      ...(source.kind === 'postgres' && { db: 'postgres', ...(database && { dbOnly: ` ${database} ` }) }),
    };
  } catch (err) {
    await stopAll(started);
    throw err;
  }
}

/** Interleaved rounds of mcp-run (2025 and 2026) and Toolbox on one request, at each connection count. */
async function compare(
  pair: Pair,
  what: string,
  body: (era: Era) => string,
  method: string,
  name: string | undefined,
  verify: (body: string) => boolean,
  connections: readonly number[],
  options: BenchOptions,
): Promise<{
  table: Table;
  ratios: [string, number][];
  workerRatios: [string, number][];
  ceiling: [string, number][];
  raw: Costed[][][];
}> {
  /** mcp-run's two eras on one of its servers; `goal` says which goal their ratios count for. */
  const eras = async (server: ServerProcess, tag: string, goal: 'single' | 'workers') => [
    {
      label: `mcp-run${tag} 2025`,
      target: { url: server.url, headers: await legacyHttpSession(server.url), body: body('legacy'), verify },
      pid: server.child.pid,
      goal,
    },
    {
      label: `mcp-run${tag} 2026`,
      target: { url: server.url, headers: modernHeaders(method, name), body: body('modern'), verify },
      pid: server.child.pid,
      goal,
    },
  ];
  const targets: {
    label: string;
    target: Target;
    pid: number | undefined;
    goal?: 'single' | 'workers';
  }[] = [
    ...(await eras(pair.mcpRun, '', 'single')),
    ...(pair.workers && method === 'tools/call'
      ? await eras(pair.workers, ' --workers auto', 'workers')
      : []),
    ...(pair.bare && method === 'tools/call'
      ? [
          {
            label: CEILING,
            target: { url: pair.bare.url, headers: BASE_HEADERS, body: body('legacy'), verify },
            pid: pair.bare.child.pid,
          },
        ]
      : []),
    {
      label: 'Toolbox 2025',
      target: { url: pair.toolbox.url, headers: TOOLBOX_HEADERS, body: body('legacy'), verify },
      pid: pair.toolbox.child.pid,
    },
  ];
  const toolbox = targets.length - 1;
  for (const t of targets) await probe(t.target);
  const rows: (string | number)[][] = [];
  const ratios: [string, number][] = [];
  const workerRatios: [string, number][] = [];
  const ceiling: [string, number][] = [];
  const raw: Costed[][][] = [];
  for (const c of connections) {
    const rounds = await interleave(
      targets.map((t) => ({
        label: `${t.label}, ${what}, ${c} conn`,
        measure: (s: number) =>
          costed(t.pid, pair, () => cannon(t.target, c, s, options.smoke ? c * 20 : undefined)),
        // Each worker compiles its own code from the calls it sees: N workers warm up N times as
        // long, so that each sees as many calls as the single process does in its warmup.
        ...(t.goal === 'workers' && { warmup: options.warmup * availableParallelism() }),
      })),
      { rounds: options.rounds, seconds: options.duration, warmup: options.warmup },
      (line) => console.error(`  toolbox: ${line}`),
    );
    raw.push(rounds);
    const m = rounds.map((r) => ({
      ...medians(r),
      cpuUs: median(r.map((x) => x.cpuUs)),
      dbCpuUs: median(r.map((x) => x.dbCpuUs)),
    }));
    // Per-round ratios (rounds are interleaved, so each pair ran under the same load): their median.
    const perRound = (i: number) =>
      rounds[i]!.map((r, k) => ratio(r.rps, rounds[toolbox]![k]!.rps)).sort((a, b) => a - b);
    targets.forEach((t, i) => {
      const rs = perRound(i);
      const mid = rs[Math.floor(rs.length / 2)]!;
      if (t.goal === 'single') ratios.push([`${t.label}, ${c} conn`, mid]);
      if (t.goal === 'workers') workerRatios.push([`${t.label}, ${c} conn`, mid]);
      if (t.label === CEILING) ceiling.push([`${c} conn`, mid]);
      rows.push([
        t.label,
        c,
        fmt(m[i]!.rps),
        fmt(m[i]!.p50),
        fmt(m[i]!.p99),
        i < toolbox ? `${times(mid)} [${times(rs[0]!)}–${times(rs.at(-1)!)}]` : '—',
        fmt(m[i]!.cpuUs),
        fmt(1e6 / m[i]!.cpuUs),
        ...(pair.db ? [fmt(m[i]!.dbCpuUs)] : []),
        m[i]!.failed,
      ]);
    });
  }
  return {
    table: {
      caption: `${what} (median of ${options.rounds} interleaved rounds of ${options.duration} s)`,
      columns: [
        'server',
        'connections',
        'req/s',
        'p50 ms',
        'p99 ms',
        '× Toolbox (median [min–max] of rounds)',
        'server CPU µs/call',
        'calls per server CPU-second',
        ...(pair.db ? ['PostgreSQL backend CPU µs/call'] : []),
        'failed',
      ],
      rows,
    },
    ratios,
    workerRatios,
    ceiling,
    raw,
  };
}

const LOCK_FUNCTIONS = `pg_advisory_lock(bigint), pg_advisory_lock(integer, integer),
  pg_advisory_lock_shared(bigint), pg_advisory_lock_shared(integer, integer),
  pg_try_advisory_lock(bigint), pg_try_advisory_lock(integer, integer),
  pg_try_advisory_lock_shared(bigint), pg_try_advisory_lock_shared(integer, integer)`;

/**
 * `items` (1,000 rows) in a database of the bench's own, read by a role of its own that cannot take
 * session advisory locks there (as docs/kinds-sql.md advises), so that every server's backends are
 * the only ones of that database (their CPU is counted alone) and mcp-run's reads skip the unlock.
 * A login that may not create databases gets a schema in its own database instead, read as itself.
 */
async function postgresItems(
  url: string,
): Promise<{ url: string; table: string; database: string; note: string; drop: () => Promise<void> }> {
  const tag = `mcp_run_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const fill = async (client: pg.Client, table: string) => {
    await client.query(
      `CREATE TABLE ${table} (id integer PRIMARY KEY, name text NOT NULL, price double precision NOT NULL)`,
    );
    await client.query(
      `INSERT INTO ${table} SELECT i, 'item number ' || i, round(i * 137.5) / 100 FROM generate_series(1, 1000) i`,
    );
  };
  try {
    await admin.query(`CREATE DATABASE ${tag}`);
  } catch {
    try {
      await admin.query(`CREATE SCHEMA ${tag}`);
      await fill(admin, `${tag}.items`);
      const database = (await admin.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db;
      return {
        url,
        table: `${tag}.items`,
        database,
        note: 'PostgreSQL: a schema of the bench’s own, read as the URL’s login (it may not create databases); `PostgreSQL backend CPU µs/call` counts every backend of that database.',
        async drop() {
          const c = new pg.Client({ connectionString: url });
          await c.connect();
          await c.query(`DROP SCHEMA ${tag} CASCADE`).finally(() => c.end());
        },
      };
    } finally {
      await admin.end();
    }
  }
  const inDb = new URL(url);
  inDb.pathname = `/${tag}`;
  const setup = new pg.Client({ connectionString: inDb.toString() });
  await setup.connect();
  try {
    await admin.query(`CREATE ROLE ${tag} LOGIN`);
    await fill(setup, 'items');
    await setup.query(`GRANT SELECT ON items TO ${tag}`);
    await setup.query(`REVOKE EXECUTE ON FUNCTION ${LOCK_FUNCTIONS} FROM PUBLIC`);
  } finally {
    await setup.end();
    await admin.end();
  }
  const asRole = new URL(inDb);
  asRole.username = tag;
  asRole.password = '';
  return {
    url: asRole.toString(),
    table: 'items',
    database: tag,
    note: `PostgreSQL: a database of the bench’s own (\`${tag}\`), read by a role of its own (every server uses it) that may execute none of the session advisory lock functions there (revoked from PUBLIC, as docs/kinds-sql.md advises): mcp-run’s reads then skip \`pg_advisory_unlock_all()\` (BEGIN, read-only as the connection started, the statement, ROLLBACK). \`PostgreSQL backend CPU µs/call\` counts the backends of that database only (one contender runs at a time, so they are that contender's).`,
    async drop() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${tag} WITH (FORCE)`);
        await c.query(`DROP ROLE IF EXISTS ${tag}`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * The one-row call goals: ≥ 1.0× Toolbox at every connection count, except SQLite at one connection,
 * where Toolbox's Go server is near what node reaches with no server work at all: there ≥ 0.95×
 * Toolbox, or ≥ 0.9× the in-process ceiling (bench/servers/bare-sql.mjs, the same query on the event
 * loop). Ratios to the ceiling are taken from the same rounds (× Toolbox over the ceiling's × Toolbox).
 */
function callGoals(
  engine: string,
  calls: { ratios: readonly [string, number][]; ceiling: readonly [string, number][] },
): Goal[] {
  if (engine !== 'SQLite') {
    return [goal(`${engine} one-row call vs Toolbox`, '≥ 1.0×', calls.ratios, (v) => v >= 1, times)];
  }
  const one = calls.ratios.filter(([label]) => label.endsWith(', 1 conn'));
  const more = calls.ratios.filter(([label]) => !label.endsWith(', 1 conn'));
  const ceiling = calls.ceiling.find(([at]) => at === '1 conn')?.[1] ?? Number.NaN;
  const points = one.map(([label, vsToolbox]) => ({ label, vsToolbox, vsCeiling: vsToolbox / ceiling }));
  const usable = points.filter((p) => Number.isFinite(p.vsToolbox) && Number.isFinite(p.vsCeiling));
  return [
    // A smoke pass measures one connection only.
    ...(more.length > 0
      ? [goal('SQLite one-row call vs Toolbox, 8 and 32 connections', '≥ 1.0×', more, (v) => v >= 1, times)]
      : []),
    {
      goal: 'SQLite one-row call at 1 connection',
      target: '≥ 0.95× Toolbox, or ≥ 0.9× the in-process ceiling',
      measured: points
        .map((p) => `${p.label}: ${times(p.vsToolbox)} Toolbox, ${times(p.vsCeiling)} the ceiling`)
        .join('; '),
      met:
        usable.length > 0 && usable.length === points.length
          ? usable.every((p) => p.vsToolbox >= 0.95 || p.vsCeiling >= 0.9)
          : null,
    },
  ];
}

export const toolboxScenario: Scenario = {
  name: 'toolbox',
  title: 'Against MCP Toolbox for Databases: SQL calls and lists',

  async run(options: BenchOptions, work: string) {
    const binary = toolboxBinary();
    const base = { name: this.name, title: this.title };
    if ('missing' in binary) {
      return {
        ...base,
        setup: [`Skipped: ${binary.missing}.`],
        tables: [],
        goals: [],
        raw: { skipped: binary.missing },
      };
    }
    const connections = options.smoke ? [1] : [1, 8, 32];
    const pgOnly = process.env.MCP_RUN_BENCH_TOOLBOX_ONLY === 'postgres';
    const sizes = pgOnly ? [] : options.smoke ? [200] : [1000, 10_000];
    const tables: Table[] = [];
    const goals: Goal[] = [];
    const raw: Record<string, unknown> = {};
    const notes: string[] = [];
    const ceilings: [string, [string, number][]][] = [];
    const verifyRow = (body: string) => answered(body) && body.includes('item number 1');
    const call = (era: Era) => JSON.stringify(toolCall(era, ID_SLOT, 'item', { id: 1 }));
    const list = (era: Era) => JSON.stringify(request(era, ID_SLOT, 'tools/list'));
    const verifyList = (body: string) => answered(body) && body.includes('"item_9"');

    const { db } = sqlFixture(work);
    const engines: {
      label: string;
      source: ToolboxSource;
      table: string;
      database?: string;
      drop?: () => Promise<void>;
    }[] = [];
    if (!pgOnly) engines.push({ label: 'SQLite', source: { kind: 'sqlite', path: db }, table: 'items' });
    const pgUrl = process.env.MCP_RUN_BENCH_POSTGRES_URL ?? process.env.MCP_RUN_TEST_POSTGRES_URL;
    if (pgUrl) {
      const items = await postgresItems(pgUrl);
      notes.push(items.note);
      engines.push({
        label: 'PostgreSQL',
        source: { kind: 'postgres', url: items.url },
        table: items.table,
        database: items.database,
        drop: items.drop,
      });
    } else
      notes.push(
        'PostgreSQL rows skipped: MCP_RUN_BENCH_POSTGRES_URL (or MCP_RUN_TEST_POSTGRES_URL) is not set.',
      );

    try {
      for (const engine of engines) {
        const pair = await startPair(
          binary.path,
          work,
          engine.label,
          engine.source,
          itemTools(10, engine.table),
          options,
          engine.table,
          engine.database,
        );
        try {
          const calls = await compare(
            pair,
            `${engine.label} one-row tools/call`,
            call,
            'tools/call',
            'item',
            verifyRow,
            connections,
            options,
          );
          tables.push(calls.table);
          raw[`${engine.label} call`] = calls.raw;
          goals.push(...callGoals(engine.label, calls));
          const spread = calls.workerRatios.filter(([label]) => !label.endsWith(', 1 conn'));
          if (spread.length > 0)
            goals.push(
              goal(
                `${engine.label} one-row call vs Toolbox, --workers auto, 8 and 32 connections`,
                '≥ 1.0×',
                spread,
                (v) => v >= 1,
                times,
              ),
            );
          ceilings.push([engine.label, calls.ceiling]);
          if (engine.source.kind === 'sqlite') {
            const lists = await compare(
              pair,
              'tools/list, 10 SQL tools',
              list,
              'tools/list',
              undefined,
              verifyList,
              connections,
              options,
            );
            tables.push(lists.table);
            raw['list 10'] = lists.raw;
            goals.push(
              goal('tools/list, 10 tools, vs Toolbox', '≥ 1.0×', lists.ratios, (v) => v >= 1, times),
            );
          }
        } finally {
          const { db: _, dbOnly: __, ...processes } = pair;
          await stopAll(processes);
        }
      }

      const walkRows: (string | number)[][] = [];
      const walkRatios: [string, number][] = [];
      const memory: [string, number][] = [];
      for (const n of sizes) {
        const pair = await startPair(
          binary.path,
          work,
          `walk${n}`,
          engines[0]!.source,
          itemTools(n, 'items'),
          options,
        );
        try {
          const contenders = [
            {
              label: 'mcp-run (default page size, 1000)',
              server: pair.mcpRun,
              era: 'modern' as Era,
              headers: modernHeaders('tools/list'),
            },
            {
              label: 'Toolbox (one page)',
              server: pair.toolbox,
              era: 'legacy' as Era,
              headers: TOOLBOX_HEADERS,
            },
          ];
          const rounds = await interleave(
            contenders.map((c) => ({
              label: `${c.label}, ${n} tools`,
              measure: (s: number) => walks(c.server, c.era, c.headers, n, s),
            })),
            { rounds: options.rounds, seconds: options.duration, warmup: options.warmup },
            (line) => console.error(`  toolbox: ${line}`),
          );
          raw[`walk ${n}`] = rounds;
          const perRound = rounds[0]!
            .map((r, k) => ratio(rounds[1]![k]!.walkMs, r.walkMs))
            .sort((a, b) => a - b);
          const mid = perRound[Math.floor(perRound.length / 2)]!;
          walkRatios.push([`${n.toLocaleString('en-US')} tools`, mid]);
          contenders.forEach((c, i) => {
            const r = rounds[i]!;
            const med = (f: (x: (typeof r)[number]) => number) =>
              r.map(f).sort((a, b) => a - b)[Math.floor(r.length / 2)]!;
            const mem = c.server.memory();
            if (i === 0 && mem && n === sizes.at(-1))
              memory.push([`${n.toLocaleString('en-US')} SQL tools`, mem.rssMb]);
            walkRows.push([
              c.label,
              n,
              r[0]!.pages,
              fmt(med((x) => x.walkMs)),
              fmt(r[0]!.bytes / n),
              mem ? fmt(mem.rssMb) : 'n/a',
              fmt(c.server.startMs),
              i === 0 ? `${times(mid)} [${times(perRound[0]!)}–${times(perRound.at(-1)!)}]` : '—',
            ]);
          });
        } finally {
          await stopAll({ mcpRun: pair.mcpRun, toolbox: pair.toolbox });
        }
      }
      if (sizes.length > 0) {
        tables.push({
          caption: `Full tools/list walk of SQL tools (median of ${options.rounds} interleaved rounds of ${options.duration} s)`,
          columns: [
            'server',
            'tools',
            'pages',
            'full walk ms',
            'bytes per tool',
            'RSS MB',
            'start-up ms',
            '× Toolbox (median [min–max] of rounds)',
          ],
          rows: walkRows,
        });
        goals.push(goal('full tools/list walk vs Toolbox', '≥ 1.0×', walkRatios, (v) => v >= 1, times));
        goals.push(
          goal(
            'RSS of the serving process after the walks (mcp-run)',
            '≤ 150 MB',
            memory,
            (v) => v <= 150,
            (v) => `${fmt(v)} MB`,
          ),
        );
      }
    } finally {
      for (const e of engines) await e.drop?.().catch(() => undefined);
    }
    return {
      ...base,
      setup: [
        "Toolbox 1.12 (`@toolbox-sdk/server-linux-x64`, a Go binary) serves a `tools.yaml` the bench writes with the same tools as the mcp-run manifest: `item` … `item_9`, each `SELECT id, name, price FROM items WHERE id = :id` (`$1` on Toolbox's postgres-sql, `?` on sqlite-sql) with one integer parameter. Toolbox logs at WARN (at INFO it logs every request).",
        `\`mcp-run --workers auto\` is the same manifest served by ${availableParallelism()} worker processes (one per core of this machine) on one port (docs/scaling.md): its 2025 session lives in the state its primary process holds, reached over IPC by whichever worker a request lands on; its server CPU counts the primary and every worker. It warms up ${availableParallelism()} times as long as the other contenders (each worker process compiles its own code from the calls it sees, so each sees as many in its warmup as the single process does). \`calls per server CPU-second\` is 1 ÷ server CPU per call: what a core buys in each mode.`,
        "Toolbox speaks the 2025 protocol statelessly (no session); mcp-run is measured on a 2025 session and on the 2026 path. Default pools on both sides (mcp-run 5 connections to PostgreSQL, Toolbox pgxpool's default).",
        "Ratios are mcp-run ÷ Toolbox (throughput; for walks, Toolbox's walk time ÷ mcp-run's), taken per interleaved round, then the median with the range over rounds: > 1 is mcp-run ahead.",
        'Every answer is checked (the row, or `item_9` in the list); walks check that every tool was seen. RSS is read from /proc of each serving process after its walks.',
        "`server CPU µs/call` is the user + system CPU the server used during the round (all its threads, and its worker processes: mcp-run's SQLite readers), divided by the requests it answered; read from /proc/<pid>/stat at 10 ms resolution. `PostgreSQL backend CPU µs/call` is the time on a CPU of the `postgres` backends of the bench's database during the round (/proc/<pid>/schedstat, in ns; a backend begun in the round counts whole, one ended in it not at all), divided the same way. CPU per call moves far less with the machine's noise than requests/s does: it shows what each server spends, where the ratio only shows who got the cores.",
        "Round trips of one one-row read, counted by `npx tsx bench/round-trips.ts` through a TCP relay: PostgreSQL 1 (BEGIN on a connection that started read-only, else BEGIN READ ONLY, the statement without a Describe after its first call, pg_advisory_unlock_all() unless the role cannot lock, ROLLBACK behind one Sync, the settings step too where the connection did not start with them; `npx tsx bench/pg-cost.ts` counts the statements and the backend's CPU per call beside the bare driver's; 6 before: BEGIN+SETs, DECLARE, FETCH 1, FETCH 4, ROLLBACK, DISCARD ALL), MySQL/MariaDB 3 (SET TRANSACTION READ ONLY, EXECUTE, DO RELEASE_ALL_LOCKS(); 5 before). (Toolbox's own were not counted.)",
        "`bare node:http + driver (ceiling)` is bench/servers/bare-sql.mjs: node:http, JSON.parse, the same query through the same driver (better-sqlite3 in the server's own process; pg, a pool of 5, one named statement) and JSON.stringify, with no MCP, no read-only transaction, no time limit and no worker process. It is what node reaches here with no server work at all: where it is below Toolbox, ≥ 1.0× cannot be met by any node server on this machine.",
        ...ceilings.map(
          ([engine, rs]) =>
            `${engine}: the ceiling is ${rs.map(([at, v]) => `${times(v)} Toolbox at ${at}`).join(', ')}.`,
        ),
        ...notes,
      ],
      tables,
      goals,
      raw,
    };
  },
};
