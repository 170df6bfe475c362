/**
 * Scenario `tool-search`: the GitHub REST import (1,223 tools) served in full and in search mode
 * (`server.catalog: { mode: search }`, docs/big-catalogs.md), each over stdio as a client sees it.
 *
 * - `tools/list` tokens, counted with real tokenizers (src/lint/tokenizers.ts: o200k_base from
 *   gpt-tokenizer, and @anthropic-ai/tokenizer) over the compact JSON of the listed tools, every page;
 *   the lint heuristic beside them.
 * - Search quality: each request of test/fixtures/tool-search/github-requests.json (a user's words,
 *   with the tools that answer it) sent to `search_tools`; hits@1 and hits@5 are the share whose
 *   answer is first, or in the first five.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { estimateJsonTokens } from '../../src/lint/estimate.js';
import { realTokenizers } from '../../src/lint/tokenizers.js';
import { GITHUB_PACKAGE, githubDescription } from '../lib/github-description.js';
import { goal } from '../lib/goals.js';
import { request, toolCall } from '../lib/mcp.js';
import { CLI, REPO } from '../lib/proc.js';
import { fmt, median } from '../lib/stats.js';
import { StdioPeer } from '../lib/stdio-peer.js';
import type { BenchOptions, Scenario } from '../lib/types.js';

const REQUESTS = join(REPO, 'test/fixtures/tool-search/github-requests.json');
/** The done-when figure of issue 46: the search mode's tools/list, o200k_base tokens. */
const SEARCH_LIST_LIMIT = 1500;
const HITS5_TARGET = 0.85;

interface Request {
  readonly q: string;
  readonly a: readonly string[];
}

/** Every page of tools/list, as one array of the tools a client gets, and how long they took. */
async function listAll(peer: StdioPeer): Promise<{ tools: unknown[]; ms: number }> {
  const t0 = performance.now();
  const all: unknown[] = [];
  let cursor: string | undefined;
  do {
    const page = await peer.request(request('legacy', 0, 'tools/list', cursor ? { cursor } : {}));
    if (!page.result) throw new Error(`tools/list failed: ${JSON.stringify(page).slice(0, 300)}`);
    const { tools, nextCursor } = page.result as { tools: unknown[]; nextCursor?: string };
    all.push(...tools);
    cursor = nextCursor;
  } while (cursor !== undefined);
  return { tools: all, ms: performance.now() - t0 };
}

/** The names search_tools answers for a request, best first. */
async function searched(peer: StdioPeer, query: string, limit: number): Promise<string[]> {
  const answer = await peer.request(toolCall('legacy', 0, 'search_tools', { query, limit }));
  const text = (answer.result?.content as { text?: string }[] | undefined)?.[0]?.text;
  if (answer.result?.isError || text === undefined)
    throw new Error(`search_tools answered ${JSON.stringify(answer).slice(0, 300)}`);
  return text.split('\n').map((line) => line.slice(0, line.indexOf(':')));
}

async function served<T>(manifest: string, use: (peer: StdioPeer) => Promise<T>): Promise<T> {
  const peer = new StdioPeer('mcp-run', [CLI, manifest], { GITHUB_BASE_URL: 'http://127.0.0.1:9' });
  try {
    await peer.initialize();
    return await use(peer);
  } finally {
    await peer.close();
  }
}

export const toolSearchScenario: Scenario = {
  name: 'tool-search',
  title: 'Big catalogs: tools/list tokens and tool search (GitHub import)',

  async run(options: BenchOptions, work: string) {
    const spec = githubDescription();
    const full = join(work, 'github.yaml');
    const search = join(work, 'github-search.yaml');
    const { requests } = JSON.parse(readFileSync(REQUESTS, 'utf8')) as { requests: Request[] };
    const asked = options.smoke ? requests.slice(0, 5) : requests;
    const ran = spawnSync(process.execPath, [CLI, 'import', 'openapi', spec, '-o', full, '--force'], {
      encoding: 'utf8',
    });
    if (ran.status !== 0) throw new Error(`import failed: ${ran.stderr}`);
    // The same manifest, served in search mode.
    const text = readFileSync(full, 'utf8');
    if (!/^server:\n/m.test(text)) throw new Error('the import wrote no server: section');
    writeFileSync(search, text.replace(/^server:\n/m, 'server:\n  catalog: { mode: search }\n'));

    const tokenizers = await realTokenizers();
    if (tokenizers.length < 2) throw new Error('gpt-tokenizer and @anthropic-ai/tokenizer must be installed');
    const fullList = await served(full, listAll);
    const { searchList, ranks, searchMs } = await served(search, async (peer) => {
      const listed = await listAll(peer);
      const found: number[] = [];
      const took: number[] = [];
      for (const { q, a } of asked) {
        const t0 = performance.now();
        const names = await searched(peer, q, 5);
        took.push(performance.now() - t0);
        found.push(names.findIndex((name) => a.includes(name)));
      }
      return { searchList: listed, ranks: found, searchMs: took };
    });
    const counts = ({ tools, ms }: { tools: unknown[]; ms: number }) => {
      const json = JSON.stringify(tools);
      return {
        ms,
        tools: tools.length,
        bytes: Buffer.byteLength(json),
        counted: tokenizers.map((t) => t.count(json)),
        estimate: estimateJsonTokens(tools),
      };
    };
    const fullCount = counts(fullList);
    const searchCount = counts(searchList);
    const hits1 = ranks.filter((r) => r === 0).length / ranks.length;
    const hits5 = ranks.filter((r) => r >= 0).length / ranks.length;
    const o200k = searchCount.counted[0]!;
    const row = (label: string, c: ReturnType<typeof counts>) => [
      label,
      c.tools,
      fmt(c.bytes),
      ...c.counted.map(fmt),
      fmt(c.estimate),
      fmt(c.ms),
    ];

    return {
      name: this.name,
      title: this.title,
      setup: [
        `Catalog: the GitHub REST import (\`${GITHUB_PACKAGE}\`, every operation, output schemas kept), served over stdio as written (full) and with \`server.catalog: { mode: search }\` added.`,
        `Tokens: the compact JSON of every tool \`tools/list\` returns (all pages), counted by ${tokenizers.map((t) => t.name).join(' and ')}; "estimate" is \`mcp-run lint\`'s heuristic (src/lint/estimate.ts). @anthropic-ai/tokenizer only approximates current Claude models.`,
        `Search: ${asked.length} requests of test/fixtures/tool-search/github-requests.json (a user's words, not the API's), each a \`search_tools\` call with \`limit: 5\`; a hit is any of the request's answers. "list ms" is the whole tools/list walk, "median ms" one search_tools call (the first builds the index), both from the client.`,
      ],
      tables: [
        {
          caption: 'tools/list of the GitHub import, in tokens',
          columns: ['catalog', 'tools', 'bytes', ...tokenizers.map((t) => t.name), 'estimate', 'list ms'],
          rows: [row('full', fullCount), row('search mode', searchCount)],
        },
        {
          caption: 'Tool search over the GitHub import',
          columns: ['requests', 'hits@1', 'hits@5', 'median ms'],
          rows: [[asked.length, hits1.toFixed(3), hits5.toFixed(3), fmt(median(searchMs))]],
        },
      ],
      goals: [
        goal(
          'GitHub import in search mode: tools/list tokens (o200k_base)',
          `≤ ${fmt(SEARCH_LIST_LIMIT)}`,
          [['', o200k]],
          (v) => v <= SEARCH_LIST_LIMIT,
          fmt,
        ),
        goal(
          "Tool search hits@5 on the project's GitHub requests",
          `≥ ${HITS5_TARGET}`,
          [[options.smoke ? `${asked.length} of them (smoke)` : '', hits5]],
          (v) => v >= HITS5_TARGET,
          (v) => v.toFixed(3),
        ),
      ],
      raw: { full: fullCount, search: searchCount, ranks, tokenizers: tokenizers.map((t) => t.name) },
    };
  },
};
