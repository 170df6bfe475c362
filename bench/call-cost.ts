/**
 * `npx tsx bench/call-cost.ts [--calls n] [--warmup n] [--top n] [--manifest file --tool name
 * --args json --expect text] [--cli path] [--no-bare] [--state url]`: the instructions one HTTP `tools/call` costs the serving process's
 * main thread, counted by callgrind, for mcp-run in both eras and for the bare node:http server
 * answering the same bytes in each era (the http scenario's ceiling), with the ratio of the two.
 * Needs valgrind and the built CLI.
 *
 * Why instructions: at one connection the http scenario's ratio moves with whatever else the
 * machine runs, and a CPU profile taken under load puts the time a process waits for a core on
 * whatever it runs next. callgrind counts the same total for the same code and inputs, loaded or
 * not, so a change of a few per cent shows. Only the main thread is counted: the others are V8's
 * compiler and the concurrent parts of its collector, which work beside it.
 *
 * Each server runs under callgrind with instrumentation off; after `--warmup` calls (V8 has
 * optimized the hot code by then) it is turned on for `--calls` calls, then dumped. V8 writes a
 * perf map of its compiled code (`--perf-basic-prof`), which names the JavaScript functions that
 * callgrind sees only as addresses; `--top n` prints each contender's n costliest functions, by
 * their own instructions. Not a test: a measurement. Defaults: the http scenario's `ping` tool.
 * `--cli` counts another build of mcp-run (another checkout's dist/cli/bin.cjs: before and after a
 * change, on the same machine), `--no-bare` leaves the ceilings out, and `--state redis://…` serves
 * with a shared state (the 2025 session path of replicas and workers).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'undici';
import { cheapManifest } from './lib/fixtures.js';
import type { Target } from './lib/load.js';
import { type Era, ID_SLOT, legacyHttpSession, modernHeaders, toolCall } from './lib/mcp.js';
import { benchServer, CLI } from './lib/proc.js';
import { sameBytesArgs } from './scenarios/http.js';

interface Options {
  readonly calls: number;
  readonly warmup: number;
  readonly top: number;
  readonly manifest?: string;
  readonly tool: string;
  readonly args: object;
  readonly expect: string;
  readonly cli: string;
  readonly bare: boolean;
  /** `--state <url>`: mcp-run serves with this shared state (the 2025 session path of replicas). */
  readonly state?: string;
}

function options(argv: readonly string[]): Options {
  const flag = (name: string) => {
    const at = argv.indexOf(`--${name}`);
    return at < 0 ? undefined : argv[at + 1];
  };
  const manifest = flag('manifest');
  const state = flag('state');
  return {
    calls: Number(flag('calls') ?? 2000),
    warmup: Number(flag('warmup') ?? 8000),
    top: Number(flag('top') ?? 0),
    ...(manifest !== undefined && { manifest }),
    ...(state !== undefined && { state }),
    tool: flag('tool') ?? 'ping',
    args: JSON.parse(flag('args') ?? '{}') as object,
    expect: flag('expect') ?? 'pong',
    cli: flag('cli') ?? CLI,
    bare: !argv.includes('--no-bare'),
  };
}

/** One server under callgrind: where its dumps go, its process, and the URL it serves. */
interface Counted {
  readonly dir: string;
  readonly child: ChildProcess;
  readonly url: string;
}

/** Starts `nodeArgs` under callgrind, instrumentation off, and waits for its "listening on" line. */
async function startCounted(nodeArgs: readonly string[]): Promise<Counted> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-run-call-cost-'));
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      '--separate-threads=yes',
      // V8 writes and rewrites machine code: valgrind must see every change.
      '--smc-check=all',
      `--callgrind-out-file=${join(dir, 'cg.%p')}`,
      process.execPath,
      '--perf-basic-prof',
      ...nodeArgs,
    ],
    // In its own folder: with the perf map, V8 also writes an isolate-*.log where it runs.
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return { dir, child, url: await listening(child) };
}

/** The URL a server (mcp-run or a bench server) prints it listens on, on stderr. */
function listening(child: ChildProcess): Promise<string> {
  let stderr = '';
  return new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${stderr.slice(-500)}`)));
  });
}

/** What a server is sent: the headers and the body of a call of `o.tool` (ID_SLOT for its id). */
async function callTarget(url: string, era: Era, o: Options): Promise<Target> {
  const headers = era === 'modern' ? modernHeaders('tools/call', o.tool) : await legacyHttpSession(url);
  return { url, headers, body: JSON.stringify(toolCall(era, ID_SLOT, o.tool, o.args)) };
}

/** One request at a time on one keep-alive connection, each answer checked. */
async function calls({ url, headers, body }: Target, n: number, o: Options): Promise<void> {
  const { origin, pathname } = new URL(url);
  const client = new Client(origin, { pipelining: 1 });
  try {
    for (let i = 0; i < n; i++) {
      const res = await client.request({
        path: pathname,
        method: 'POST',
        headers,
        body: body.replace(ID_SLOT, String(i)),
      });
      const text = await res.body.text();
      if (res.statusCode !== 200 || !text.includes(o.expect))
        throw new Error(`${url} answered ${res.statusCode}: ${text.slice(0, 300)}`);
    }
  } finally {
    await client.close();
  }
}

const control = (pid: number, ...args: string[]) =>
  execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'ignore' });

interface Cost {
  /** Instructions of the main thread per call. */
  readonly perCall: number;
  /** The costliest functions by their own instructions per call. */
  readonly top: readonly (readonly [string, number])[];
}

/** The server `nodeArgs` start, counted while it answers `o.calls` calls as `target` says. */
async function measure(
  nodeArgs: readonly string[],
  target: (url: string) => Promise<Target>,
  o: Options,
): Promise<Cost> {
  const server = await startCounted(nodeArgs);
  const pid = server.child.pid!;
  try {
    const sent = await target(server.url);
    await calls(sent, o.warmup, o);
    control(pid, '--instr=on');
    await calls(sent, o.calls, o);
    control(pid, '--instr=off');
    control(pid, '--dump');
    // The dump of the main thread: callgrind names it <out>.<dump number>-01.
    const dump = readdirSync(server.dir).find((f) => /\.\d+-01$/.test(f));
    if (dump === undefined) throw new Error(`no callgrind dump of the main thread in ${server.dir}`);
    const perf = `/tmp/perf-${pid}.map`;
    const costs = selfCosts(
      readFileSync(join(server.dir, dump), 'utf8'),
      existsSync(perf) ? perf : undefined,
    );
    const total = [...costs.values()].reduce((a, b) => a + b, 0);
    const top = [...costs].sort((a, b) => b[1] - a[1]).slice(0, o.top);
    return { perCall: total / o.calls, top: top.map(([name, c]) => [name, c / o.calls] as const) };
  } finally {
    server.child.kill('SIGKILL');
    rmSync(server.dir, { recursive: true, force: true });
    rmSync(`/tmp/perf-${pid}.map`, { force: true });
  }
}

/**
 * Each function's own instructions in a callgrind dump. Names are compressed (`fn=(12) name` the
 * first time, `(12)` after, also in `cfn=` lines); a cost line after `calls=` is the callee's
 * inclusive cost, not the function's own. JIT code is `0x<address>`, named from V8's perf map.
 */
function selfCosts(dump: string, perfMap: string | undefined): Map<string, number> {
  const names = new Map<string, string>();
  const byId = new Map<string, number>();
  let current: string | undefined;
  let inclusiveNext = false;
  for (const line of dump.split('\n')) {
    const named = /^c?fn=\((\d+)\)(?: (.*))?$/.exec(line);
    if (named) {
      if (named[2] !== undefined) names.set(named[1]!, named[2]);
      if (line.startsWith('fn=')) current = named[1];
    } else if (line.startsWith('calls=')) inclusiveNext = true;
    else if (/^[0-9+\-*]/.test(line)) {
      if (inclusiveNext) inclusiveNext = false;
      else if (current !== undefined) {
        const cost = Number(line.split(' ')[1]);
        if (Number.isFinite(cost)) byId.set(current, (byId.get(current) ?? 0) + cost);
      }
    }
  }
  const jit = perfMap === undefined ? undefined : jitNames(readFileSync(perfMap, 'utf8'));
  const costs = new Map<string, number>();
  for (const [id, cost] of byId) {
    const name = names.get(id) ?? id;
    const address = /^0x([0-9a-f]+)/.exec(name);
    const label = (address && jit?.(Number.parseInt(address[1]!, 16))) ?? name;
    costs.set(label, (costs.get(label) ?? 0) + cost);
  }
  return costs;
}

/** The function a perf map (`<start> <size> <name>` a line, hex) places at an address. */
function jitNames(map: string): (address: number) => string | undefined {
  const entries = map
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [start, size, ...name] = line.split(' ');
      return {
        start: Number.parseInt(start!, 16),
        end: Number.parseInt(start!, 16) + Number.parseInt(size!, 16),
        name: name.join(' '),
      };
    })
    .sort((a, b) => a.start - b.start);
  return (address) => {
    let lo = 0;
    let hi = entries.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const e = entries[mid]!;
      if (address < e.start) hi = mid - 1;
      else if (address >= e.end) lo = mid + 1;
      else return e.name;
    }
    return undefined;
  };
}

const o = options(process.argv.slice(2));
try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.log('skipped: valgrind is not installed');
  process.exit(0);
}
if (!existsSync(o.cli)) throw new Error(`${o.cli} is missing: run npm run build`);
const work = mkdtempSync(join(tmpdir(), 'mcp-run-call-cost-work-'));
try {
  const manifest = o.manifest ?? cheapManifest(work);
  const serve = [
    o.cli,
    manifest,
    '--http',
    '--port',
    '0',
    '--no-watch',
    ...(o.state === undefined ? [] : ['--state', o.state]),
  ];
  const rows: [string, Cost, number][] = [];
  for (const era of ['modern', 'legacy'] as const) {
    const ours = await measure(serve, (url) => callTarget(url, era, o), o);
    if (!o.bare) {
      rows.push([`mcp-run ${era}`, ours, Number.NaN]);
      continue;
    }
    // The ceiling, as in the http scenario: a bare node:http server answering the bytes mcp-run
    // answered in this era, sent the same requests. mcp-run's answer is captured outside callgrind.
    const capture = spawn(process.execPath, serve, { stdio: ['ignore', 'ignore', 'pipe'] });
    let sent: Target;
    let bareArgs: string[];
    try {
      sent = await callTarget(await listening(capture), era, o);
      bareArgs = benchServer('bare-http.mjs', await sameBytesArgs(sent, work, `call-cost-${era}`));
    } finally {
      capture.kill('SIGKILL');
    }
    const bare = await measure(bareArgs, async (url) => ({ ...sent, url }), o);
    rows.push([`mcp-run ${era}`, ours, bare.perCall], [`bare, same bytes (${era})`, bare, bare.perCall]);
  }
  console.log(`instructions per tools/call of ${o.tool}, main thread, ${o.calls} calls after ${o.warmup}:`);
  for (const [label, cost, bare] of rows) {
    const times = Number.isNaN(bare) ? '' : `  ${(cost.perCall / bare).toFixed(2)}×`;
    console.log(`  ${label.padEnd(28)} ${Math.round(cost.perCall).toLocaleString('en').padStart(9)}${times}`);
  }
  for (const [label, cost] of rows) {
    if (cost.top.length === 0) continue;
    console.log(`\n${label}: own instructions per call`);
    for (const [name, c] of cost.top)
      console.log(`  ${Math.round(c).toLocaleString('en').padStart(8)}  ${name.slice(0, 140)}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
