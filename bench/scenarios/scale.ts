/**
 * Scenario `scale`: `tools/list` of 10,000 tools over HTTP, walked page by page to the end (mcp-run
 * at its default page size and at `server.pageSize: 1000`, the largest), against the SDK servers
 * (which answer the whole list in one page); then the RSS of each server process.
 */
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { manyToolsText, writeManifest } from '../lib/fixtures.js';
import { goal } from '../lib/goals.js';
import { interleave } from '../lib/load.js';
import { BASE_HEADERS, type Era, LEGACY, legacyHttpSession, modernHeaders, request } from '../lib/mcp.js';
import { benchServer, mcpRun, type ServerProcess, startAll, stopAll } from '../lib/proc.js';
import { fmt, latency, median } from '../lib/stats.js';
import type { BenchOptions, Scenario } from '../lib/types.js';

interface Walks {
  readonly walkMs: number;
  /** The walk less the client's own JSON.parse: what the server and the wire cost. */
  readonly serverMs: number;
  readonly firstPageMs: number;
  readonly pages: number;
  readonly walks: number;
  /** Bytes of JSON one full walk receives. */
  readonly bytes: number;
}

/** One full walk: tools/list, then again with each nextCursor, until there is none. */
async function walk(
  client: Client,
  path: string,
  era: Era,
  headers: Record<string, string>,
  expected: number,
) {
  let cursor: string | undefined;
  let tools = 0;
  let pages = 0;
  let firstPageMs = 0;
  let bytes = 0;
  let parseMs = 0;
  const t0 = performance.now();
  do {
    const res = await client.request({
      path,
      method: 'POST',
      headers,
      body: JSON.stringify(request(era, pages + 1, 'tools/list', cursor ? { cursor } : {})),
    });
    const text = await res.body.text();
    bytes += Buffer.byteLength(text);
    const p0 = performance.now();
    const answer = JSON.parse(text) as { result?: { tools: unknown[]; nextCursor?: string } };
    parseMs += performance.now() - p0;
    if (res.statusCode !== 200 || !answer.result) {
      throw new Error(`tools/list answered ${res.statusCode}: ${JSON.stringify(answer).slice(0, 300)}`);
    }
    if (pages === 0) firstPageMs = performance.now() - t0;
    tools += answer.result.tools.length;
    cursor = answer.result.nextCursor;
    pages++;
  } while (cursor !== undefined && pages < 100_000);
  if (tools !== expected) throw new Error(`the walk listed ${tools} tools, not ${expected}`);
  const walkMs = performance.now() - t0;
  return { walkMs, serverMs: walkMs - parseMs, firstPageMs, pages, bytes };
}

/** Full walks one after another for `seconds` (at least one): their median. */
export async function walks(
  server: ServerProcess,
  era: Era,
  headers: Record<string, string>,
  n: number,
  seconds: number,
) {
  const url = new URL(server.url);
  const client = new Client(url.origin);
  try {
    const all: Awaited<ReturnType<typeof walk>>[] = [];
    const end = performance.now() + seconds * 1000;
    do all.push(await walk(client, url.pathname, era, headers, n));
    while (performance.now() < end);
    return {
      walkMs: latency(all.map((w) => w.walkMs)).p50,
      serverMs: latency(all.map((w) => w.serverMs)).p50,
      firstPageMs: latency(all.map((w) => w.firstPageMs)).p50,
      pages: all[0]!.pages,
      walks: all.length,
      bytes: all[0]!.bytes,
    };
  } finally {
    await client.close();
  }
}

export const scaleScenario: Scenario = {
  name: 'scale',
  title: 'Scale: `tools/list` of 10,000 tools',

  async run(options: BenchOptions, work: string) {
    const n = options.smoke ? 200 : 10_000;
    const flags = ['--http', '--port', '0', '--no-watch'];
    const servers = await startAll({
      mcpRunDefault: mcpRun(writeManifest(work, 'default.yaml', manyToolsText(n)), flags, options.profileDir),
      mcpRun1000: mcpRun(
        writeManifest(work, 'page1000.yaml', manyToolsText(n, { pageSize: 1000 })),
        flags,
        options.profileDir,
      ),
      sdkV2: benchServer('sdk-v2-http.mjs', ['--many', String(n)]),
      sdkV1: benchServer('sdk-v1-http.mjs', ['--many', String(n)]),
    });
    try {
      const modern = modernHeaders('tools/list');
      const v1 = await legacyHttpSession(servers.sdkV1.url);
      const contenders = [
        {
          label: 'mcp-run, default page size (1000)',
          server: servers.mcpRunDefault,
          era: 'modern' as Era,
          headers: modern,
        },
        {
          label: 'mcp-run, `server.pageSize: 1000`',
          server: servers.mcpRun1000,
          era: 'modern' as Era,
          headers: modern,
        },
        {
          label: 'SDK v2 (whole list, one page)',
          server: servers.sdkV2,
          era: 'modern' as Era,
          headers: modern,
        },
        {
          label: 'SDK v1 (whole list, one page)',
          server: servers.sdkV1,
          era: 'legacy' as Era,
          headers: { ...BASE_HEADERS, ...v1, 'mcp-protocol-version': LEGACY },
        },
      ];
      const rounds: Walks[][] = await interleave(
        contenders.map((c) => ({
          label: c.label,
          measure: (s: number) => walks(c.server, c.era, c.headers, n, s),
        })),
        { rounds: options.rounds, seconds: options.duration, warmup: options.warmup },
        (line) => console.error(`  scale: ${line}`),
      );
      const memory = contenders.map((c) => c.server.memory());
      const m = rounds.map((r) => ({
        walkMs: median(r.map((x) => x.walkMs)),
        serverMs: median(r.map((x) => x.serverMs)),
        firstPageMs: median(r.map((x) => x.firstPageMs)),
        pages: r[0]!.pages,
        walks: r.reduce((sum, x) => sum + x.walks, 0),
        mb: r[0]!.bytes / 2 ** 20,
      }));
      const peak = Math.max(memory[0]?.peakMb ?? Number.NaN, memory[1]?.peakMb ?? Number.NaN);
      return {
        name: this.name,
        title: this.title,
        setup: [
          `${n.toLocaleString('en-US')} tools like \`cold-start\`'s, over HTTP (mcp-run and SDK v2 in the modern era, SDK v1 legacy stateless); one keep-alive undici connection; a walk requests page after page with \`nextCursor\` until there is none, and checks that it saw every tool. Walk times include the client reading and parsing the JSON, as any client does; \`less client parse\` subtracts the client's JSON.parse.`,
          'Each measurement repeats full walks for its duration (at least one) and keeps their median; the table shows the median over rounds.',
          'RSS read from /proc after all the walks; start-up is spawn → `listening on`.',
        ],
        tables: [
          {
            caption: `${n.toLocaleString('en-US')} tools (median of ${options.rounds} rounds of ${options.duration} s)`,
            columns: [
              'server',
              'pages',
              'full walk ms',
              'less client parse ms',
              'first page ms',
              'MB per walk',
              'walks',
              'RSS MB',
              'peak RSS MB',
              'start-up ms',
            ],
            rows: contenders.map((c, i) => [
              c.label,
              m[i]!.pages,
              fmt(m[i]!.walkMs),
              fmt(m[i]!.serverMs),
              fmt(m[i]!.firstPageMs),
              fmt(m[i]!.mb),
              m[i]!.walks,
              memory[i] ? fmt(memory[i]!.rssMb) : 'n/a',
              memory[i] ? fmt(memory[i]!.peakMb) : 'n/a',
              fmt(c.server.startMs),
            ]),
          },
        ],
        goals: [
          goal(
            `tools/list of ${n.toLocaleString('en-US')} tools, full walk`,
            '≤ 20 ms',
            [
              ['pageSize 1000', m[1]!.walkMs],
              ['pageSize 1000 less the client JSON.parse', m[1]!.serverMs],
              ['default page size', m[0]!.walkMs],
            ],
            (v) => v <= 20,
            (v) => `${fmt(v)} ms`,
          ),
          goal(
            `RSS with ${n.toLocaleString('en-US')} tools after load (mcp-run, peak)`,
            '≤ 150 MB',
            [['', peak]],
            (v) => v <= 150,
            (v) => `${fmt(v)} MB`,
          ),
        ],
        raw: { n, contenders: contenders.map((c) => c.label), rounds, memory },
      };
    } finally {
      await stopAll(servers);
    }
  },
};
