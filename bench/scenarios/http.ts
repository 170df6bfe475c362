/**
 * Scenario `http`, two parts:
 * - `tools/call` of a cheap tool over HTTP, both eras, at 1, 32 and 256 connections, against the
 *   official SDK servers (v2 `createMcpHandler`, v1 stateless Streamable HTTP) and a bare node:http
 *   JSON-RPC echo;
 * - `tools/list` of 10 tools, both eras, at 1 and 32 connections, against a bare node:http server
 *   that answers the very bytes mcp-run sent for that list (captured once, per era): the ceiling of
 *   the "tools/list ≥ 0.5× the bare node:http ceiling serving the same bytes".
 * RSS of every server after the load.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cheapManifest, manyToolsText, writeManifest } from '../lib/fixtures.js';
import { goal } from '../lib/goals.js';
import { cannon, interleave, medians, probe, type Target, type Throughput } from '../lib/load.js';
import {
  BASE_HEADERS,
  type Era,
  ID_SLOT,
  legacyHttpSession,
  modernHeaders,
  request,
  toolCall,
} from '../lib/mcp.js';
import { benchServer, mcpRun, type ServerProcess, startAll, stopAll } from '../lib/proc.js';
import { fmt, ratio, times } from '../lib/stats.js';
import type { BenchOptions, Scenario, Table } from '../lib/types.js';

type Server = 'mcp-run' | 'SDK v2' | 'SDK v1' | 'bare' | 'bare, same bytes';

interface Row {
  readonly server: Server;
  readonly era: Era | 'none';
  readonly target: Target;
}

type Medians = ReturnType<typeof medians>;

interface Level {
  readonly connections: number;
  readonly rounds: Throughput[][];
}

const HTTP_FLAGS = ['--http', '--port', '0', '--no-watch'];
/** How many tools the listed manifest has (bench/lib/fixtures.ts `manyToolsText`). */
const LISTED_TOOLS = 10;
/** What every JSON-RPC response of mcp-run starts with, for the request id "1" the capture sends (probe). */
const RESPONSE_HEAD = '{"jsonrpc":"2.0","id":"1","result":';

/** Interleaved rounds of every row at each connection count. */
async function measureLevels(
  what: string,
  rows: readonly Row[],
  connections: readonly number[],
  options: BenchOptions,
): Promise<Level[]> {
  for (const row of rows) await probe(row.target);
  const levels: Level[] = [];
  for (const c of connections) {
    const rounds = await interleave(
      rows.map((row) => ({
        label: `${what} ${row.server} ${row.era}, ${c} connections`,
        measure: (seconds: number) => cannon(row.target, c, seconds, options.smoke ? c * 2 : undefined),
      })),
      { rounds: options.rounds, seconds: options.duration, warmup: options.warmup },
      (line) => console.error(`  http: ${line}`),
    );
    levels.push({ connections: c, rounds });
  }
  return levels;
}

const finder =
  (rows: readonly Row[], m: readonly Medians[]) =>
  (server: Server, era: Row['era']): Medians =>
    m[rows.findIndex((r) => r.server === server && r.era === era)]!;

const caption = (what: string, connections: number, options: BenchOptions) =>
  `${what}, ${connections} connection${connections === 1 ? '' : 's'} (median of ${options.rounds} rounds of ${options.duration} s)`;

/** The headers node:http writes on every answer itself; the bare server writes them too. */
const NODE_HEADERS = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);

/**
 * What a bare server needs to answer the bytes mcp-run answered `target` with: the result text,
 * exactly as sent (spliced after each request's id), and the headers mcp-run adds of its own (its
 * `X-Request-Id`, the one taken here, on every answer: the same number of bytes).
 */
export async function sameBytesArgs(target: Target, work: string, name: string): Promise<string[]> {
  const res = await fetch(target.url, {
    method: 'POST',
    headers: target.headers,
    body: target.body.replaceAll(ID_SLOT, '1'),
  });
  const text = await res.text();
  if (res.status !== 200 || !text.startsWith(RESPONSE_HEAD) || !text.endsWith('}')) {
    throw new Error(`${target.url} answered an unexpected body: ${res.status} ${text.slice(0, 200)}`);
  }
  const file = join(work, `${name}.json`);
  writeFileSync(file, text.slice(RESPONSE_HEAD.length, -1));
  const own = [...res.headers].filter(([header]) => !NODE_HEADERS.has(header));
  return ['--result', file, ...own.flatMap(([header, value]) => ['--header', `${header}: ${value}`])];
}

export const httpScenario: Scenario = {
  name: 'http',
  title: 'HTTP `tools/call` and `tools/list` throughput and latency',

  async run(options: BenchOptions, work: string) {
    const callConnections = options.smoke ? [1, 32] : [1, 32, 256];
    const listConnections = options.smoke ? [32] : [1, 32];
    const listManifest = writeManifest(work, 'listed.yaml', manyToolsText(LISTED_TOOLS));
    const servers: Record<string, ServerProcess> = await startAll({
      mcpRun: mcpRun(cheapManifest(work), HTTP_FLAGS, options.profileDir),
      mcpRunList: mcpRun(listManifest, HTTP_FLAGS, options.profileDir),
      sdkV2: benchServer('sdk-v2-http.mjs', ['--cheap']),
      sdkV1: benchServer('sdk-v1-http.mjs', ['--cheap']),
      bare: benchServer('bare-http.mjs', []),
    });
    try {
      const modern = (url: string, method: string, body: object, name?: string): Target => ({
        url,
        headers: modernHeaders(method, name),
        body: JSON.stringify(body),
      });
      const legacy = async (url: string, body: object): Promise<Target> => ({
        url,
        headers: await legacyHttpSession(url),
        body: JSON.stringify(body),
      });
      const bareTarget = (url: string, body: object, verify?: (text: string) => boolean): Target => ({
        url,
        headers: BASE_HEADERS,
        body: JSON.stringify(body),
        ...(verify && { verify }),
      });

      // tools/call
      const callRows: Row[] = [
        {
          server: 'mcp-run',
          era: 'modern',
          target: modern(servers.mcpRun!.url, 'tools/call', toolCall('modern', ID_SLOT, 'ping'), 'ping'),
        },
        {
          server: 'mcp-run',
          era: 'legacy',
          target: await legacy(servers.mcpRun!.url, toolCall('legacy', ID_SLOT, 'ping')),
        },
        {
          server: 'SDK v2',
          era: 'modern',
          target: modern(servers.sdkV2!.url, 'tools/call', toolCall('modern', ID_SLOT, 'ping'), 'ping'),
        },
        {
          server: 'SDK v2',
          era: 'legacy',
          target: await legacy(servers.sdkV2!.url, toolCall('legacy', ID_SLOT, 'ping')),
        },
        {
          server: 'SDK v1',
          era: 'legacy',
          target: await legacy(servers.sdkV1!.url, toolCall('legacy', ID_SLOT, 'ping')),
        },
        {
          server: 'bare',
          era: 'none',
          target: bareTarget(servers.bare!.url, toolCall('legacy', ID_SLOT, 'ping')),
        },
      ];

      // The ceiling of a call: a bare server per era answering the result bytes mcp-run answered.
      const callModern = callRows[0]!.target;
      const callLegacy = callRows[1]!.target;
      const bareCall = async (era: Era, target: Target) =>
        benchServer('bare-http.mjs', await sameBytesArgs(target, work, `tools-call-${era}`));
      Object.assign(
        servers,
        await startAll({
          bareCallModern: await bareCall('modern', callModern),
          bareCallLegacy: await bareCall('legacy', callLegacy),
        }),
      );
      callRows.push(
        {
          server: 'bare, same bytes',
          era: 'modern',
          target: { ...callModern, url: servers.bareCallModern!.url },
        },
        {
          server: 'bare, same bytes',
          era: 'legacy',
          target: { ...callLegacy, url: servers.bareCallLegacy!.url },
        },
      );

      // tools/list: mcp-run's answer per era is captured once and handed to a bare server of its own.
      const listed = (text: string) =>
        text.includes('"result"') && text.includes(`"tool_${LISTED_TOOLS - 1}"`);
      const listModern: Target = {
        ...modern(servers.mcpRunList!.url, 'tools/list', request('modern', ID_SLOT, 'tools/list')),
        verify: listed,
      };
      const listLegacy: Target = {
        ...(await legacy(servers.mcpRunList!.url, request('legacy', ID_SLOT, 'tools/list'))),
        verify: listed,
      };
      const bareArgs = async (era: Era, target: Target) =>
        benchServer('bare-http.mjs', await sameBytesArgs(target, work, `tools-list-${era}`));
      Object.assign(
        servers,
        await startAll({
          bareListModern: await bareArgs('modern', listModern),
          bareListLegacy: await bareArgs('legacy', listLegacy),
        }),
      );
      const listRows: Row[] = [
        { server: 'mcp-run', era: 'modern', target: listModern },
        { server: 'mcp-run', era: 'legacy', target: listLegacy },
        // The bare servers take the request of their era, so the bytes in match too.
        {
          server: 'bare',
          era: 'modern',
          target: { ...listModern, url: servers.bareListModern!.url },
        },
        {
          server: 'bare',
          era: 'legacy',
          target: { ...listLegacy, url: servers.bareListLegacy!.url },
        },
      ];

      const callLevels = await measureLevels('tools/call', callRows, callConnections, options);
      const listLevels = await measureLevels('tools/list', listRows, listConnections, options);
      const memory = Object.fromEntries(Object.entries(servers).map(([k, s]) => [k, s.memory()]));

      const tables: Table[] = [];
      const callVsSdk: [string, number][] = [];
      const callVsBare: [string, number][] = [];
      const callVsSameBytes: [string, number][] = [];
      for (const level of callLevels) {
        const m = level.rounds.map((r) => medians(r));
        const find = finder(callRows, m);
        const bare = find('bare', 'none');
        tables.push({
          caption: caption('`tools/call`', level.connections, options),
          columns: [
            'server',
            'era',
            'req/s',
            'p50 ms',
            'p99 ms',
            '× SDK v2 (same era; bare: modern)',
            '× bare',
            'failed',
          ],
          rows: callRows.map((row, i) => {
            const x = m[i]!;
            // The bare echo has no era: its ratio to SDK v2 (modern) shows what node:http itself allows.
            const sdk = find('SDK v2', row.era === 'none' ? 'modern' : row.era);
            return [
              row.server,
              row.era === 'none' ? '—' : row.era,
              fmt(x.rps),
              fmt(x.p50),
              fmt(x.p99),
              times(ratio(x.rps, sdk.rps)),
              times(ratio(x.rps, bare.rps)),
              x.failed,
            ];
          }),
        });
        for (const era of ['modern', 'legacy'] as const) {
          const ours = find('mcp-run', era).rps;
          callVsSdk.push([`${era} ${level.connections}c`, ratio(ours, find('SDK v2', era).rps)]);
          callVsBare.push([`${era} ${level.connections}c`, ratio(ours, bare.rps)]);
          if (level.connections === 1)
            callVsSameBytes.push([`${era} 1c`, ratio(ours, find('bare, same bytes', era).rps)]);
        }
      }
      const listVsBare: [string, number][] = [];
      for (const level of listLevels) {
        const m = level.rounds.map((r) => medians(r));
        const find = finder(listRows, m);
        tables.push({
          caption: caption(`\`tools/list\` of ${LISTED_TOOLS} tools`, level.connections, options),
          columns: ['server', 'era', 'req/s', 'p50 ms', 'p99 ms', '× bare (same era, same bytes)', 'failed'],
          rows: listRows.map((row, i) => {
            const x = m[i]!;
            return [
              row.server,
              row.era,
              fmt(x.rps),
              fmt(x.p50),
              fmt(x.p99),
              times(ratio(x.rps, find('bare', row.era).rps)),
              x.failed,
            ];
          }),
        });
        for (const era of ['modern', 'legacy'] as const) {
          listVsBare.push([
            `${era} ${level.connections}c`,
            ratio(find('mcp-run', era).rps, find('bare', era).rps),
          ]);
        }
      }
      tables.push({
        caption: 'Memory of each server process after all the load above',
        columns: ['server', 'RSS MB', 'peak RSS MB'],
        rows: Object.entries(memory).map(([k, mem]) => [
          k,
          mem ? fmt(mem.rssMb) : 'n/a',
          mem ? fmt(mem.peakMb) : 'n/a',
        ]),
      });
      const peak = Math.max(memory.mcpRun?.peakMb ?? Number.NaN, memory.mcpRunList?.peakMb ?? Number.NaN);
      return {
        name: this.name,
        title: this.title,
        setup: [
          '`tools/call`: tool `ping`, no arguments, answers the text "pong" (mcp-run: a `content` tool; SDKs: `registerTool` with a canned result). The bare echo answers the same result; `bare, same bytes` is a bare node:http server per era answering the result bytes mcp-run answered the call of its era with (captured once), after the request’s id, with the response headers mcp-run adds of its own (`X-Request-Id`, the captured value on every answer): the same bytes on the wire.',
          `\`tools/list\`: ${LISTED_TOOLS} \`content\` tools with one string argument each (bench/lib/fixtures.ts \`manyToolsText\`), one page. mcp-run's answer is captured once per era and handed to a bare node:http server of its own, which answers each request with those result bytes after the request's id, and mcp-run's own response headers (\`X-Request-Id\`): both send the same bytes.`,
          'Modern era: every POST carries the `_meta` envelope and the `MCP-Protocol-Version`, `Mcp-Method` (and for calls `Mcp-Name`) headers. Legacy era: `initialize` once, then every POST on that session (mcp-run mints one session that all connections share; the stateless SDK servers mint none).',
          'SDK v2: `createMcpHandler(factory)` (a new `McpServer` per request) behind a node:http ↔ fetch adapter that passes `parsedBody`; its 2025 traffic goes through the default stateless legacy fallback, which answers with an SSE stream. SDK v1: a new `McpServer` + `StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })` per POST, on node:http.',
          'Load: autocannon (library) in the bench process, unique JSON-RPC id per request; every answer is checked (`failed` counts errors, non-2xx and wrong bodies). Latency from autocannon per-response timings (µs resolution).',
        ],
        tables,
        goals: [
          goal(
            'HTTP `tools/list` vs the bare node:http ceiling serving the same bytes',
            '≥ 0.5×',
            listVsBare,
            (v) => v >= 0.5,
            times,
          ),
          goal(
            'HTTP `tools/call` at 1 connection vs the bare node:http ceiling serving the same bytes',
            '≥ 0.9×',
            callVsSameBytes,
            (v) => v >= 0.9,
            times,
          ),
          goal(
            'HTTP `tools/call` at 32 and 256 connections vs the v2 SDK server',
            '≥ 8×',
            callVsSdk.filter(([label]) => !label.endsWith(' 1c')),
            (v) => v >= 8,
            times,
          ),
          goal('HTTP `tools/call` vs the bare node:http echo', '≥ 0.5×', callVsBare, (v) => v >= 0.5, times),
          goal(
            'RSS under HTTP load (mcp-run, peak)',
            '≤ 150 MB',
            [['', peak]],
            (v) => v <= 150,
            (v) => `${fmt(v)} MB`,
          ),
        ],
        raw: {
          callRows: callRows.map((r) => ({ server: r.server, era: r.era })),
          callLevels,
          listRows: listRows.map((r) => ({ server: r.server, era: r.era })),
          listLevels,
          memory,
        },
      };
    } finally {
      await stopAll(servers);
    }
  },
};
