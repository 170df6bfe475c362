/**
 * Search mode as the catalog compiles and serves it (src/catalog/disclosure.ts): the served view,
 * pins, a toolset's own mode over the server's, groups from `group:`, a path or a source, a reload
 * that only turns the mode on (a list change), and the words of tool search (stems and synonyms).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { compileCatalog } from '../../src/catalog/compile.js';
import { diffCatalogs } from '../../src/catalog/diff.js';
import { servedView } from '../../src/catalog/disclosure.js';
import { processTerm, stem } from '../../src/catalog/search-terms.js';
import { boundedQuery, toolIndex } from '../../src/catalog/tool-search.js';
import type { ToolCallContext, ToolResult } from '../../src/catalog/types.js';
import { ManifestError } from '../../src/errors.js';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { StderrLogger } from '../../src/log.js';
import { loadManifest } from '../../src/manifest/load.js';
import { scopesNeeded } from '../../src/transports/http/oauth/scopes.js';
import { callContext, tempDir } from '../kinds/context.js';

async function catalogOf(yaml: string) {
  const file = join(tempDir(), 'mcp.yaml');
  writeFileSync(file, yaml);
  const registry = builtinKinds();
  return compileCatalog(await loadManifest(file, registry, {}), registry, new StderrLogger('silent'));
}

const TOOLS = `
sources:
  api: { kind: http, baseUrl: "http://127.0.0.1:9" }
tools:
  pets_list: { kind: http, source: api, path: /v1/pets, description: Lists the pets., query: {} }
  pet_adopt: { kind: http, source: api, method: POST, path: "/pets/{id}/adopt", description: Adopts a pet., input: { id: { type: string, description: Which } } }
  own_group: { kind: content, group: admin, description: Says hello., content: [{ text: hi }] }
  ping: { kind: content, description: Answers pong., content: [{ text: pong }] }
`;

const names = (tools: ReadonlyMap<string, unknown>) => [...tools.keys()];
const META = ['search_tools', 'browse_tools', 'describe_tool', 'call_tool'];

describe('search mode', () => {
  test('the served view lists the meta-tools and the pinned tools; the toolset view is untouched', async () => {
    const catalog = await catalogOf(`server: { catalog: { mode: search, pin: ["p*"] } }\n${TOOLS}`);
    const served = servedView(catalog, undefined);
    assert.deepEqual(names(served.tools), [...META, 'pets_list', 'pet_adopt', 'ping']);
    assert.equal(servedView(catalog, undefined), served, 'made once per view');
    assert.deepEqual(
      names(served.callable ?? new Map()),
      names(catalog.tools),
      'every tool callable by name',
    );
    assert.deepEqual(names(catalog.tools), ['pets_list', 'pet_adopt', 'own_group', 'ping']);
  });

  test("a toolset's own mode wins over the server's", async () => {
    const catalog = await catalogOf(`server: { catalog: { mode: search } }
toolsets:
  all: { tools: ["*"], catalog: { mode: full } }
  few: { tools: [ping] }
${TOOLS}`);
    assert.deepEqual(names(servedView(catalog, ['all']).tools), [
      'pets_list',
      'pet_adopt',
      'own_group',
      'ping',
    ]);
    assert.deepEqual(names(servedView(catalog, ['few']).tools), META);
  });

  test('groups: group:, else the first literal path segment (a version skipped), else the source', async () => {
    const catalog = await catalogOf(TOOLS);
    assert.deepEqual(
      Object.fromEntries([...(catalog.groups ?? [])].map(([name, place]) => [name, place.group])),
      { pets_list: 'pets', pet_adopt: 'pets', own_group: 'admin', ping: 'other' },
    );
  });

  test('a pin that names no tool, or a meta-tool, is a manifest error', async () => {
    const missing = await catalogOf(`server: { catalog: { mode: search, pin: [pong] } }\n${TOOLS}`).catch(
      (e) => e,
    );
    assert.ok(missing instanceof ManifestError);
    assert.match(missing.message, /pinned tool named "pong".*did you mean "ping"/s);
    const clash = await catalogOf(`server: { catalog: { mode: search, pin: [call_tool] } }
tools:
  call_tool: { kind: content, description: Mine., content: [{ text: mine }] }
`).catch((e) => e);
    assert.ok(clash instanceof ManifestError);
    assert.match(clash.message, /search mode lists its own tool of that name/);
  });

  test('a reload that only turns search mode on is a change of the tools list', async () => {
    const before = await catalogOf(TOOLS);
    const after = await catalogOf(`server: { catalog: { mode: search } }\n${TOOLS}`);
    assert.deepEqual([...diffCatalogs(before, after).keys()], ['tools']);
    assert.deepEqual([...diffCatalogs(before, await catalogOf(TOOLS)).keys()], []);
  });

  test('the index is per catalog: a new catalog is searched anew', async () => {
    const first = await catalogOf(TOOLS);
    const second = await catalogOf(
      `${TOOLS}  kennel_book: { kind: content, title: Book a kennel, description: Reserves a kennel., content: [{ text: ok }] }\n`,
    );
    assert.equal((await toolIndex(first)).search('reserve a kennel', 5).length, 0);
    assert.equal((await toolIndex(second)).search('reserve a kennel', 5)[0]?.name, 'kennel_book');
    assert.equal(toolIndex(first), toolIndex(first), 'built once');
  });
});

describe('the meta-tools and a hostile caller', () => {
  const answer = (result: ToolResult) =>
    result.content.map((part) => ('text' in part ? part.text : '')).join('');
  async function meta(tool: string, args: Record<string, unknown>, sees?: (name: string) => boolean) {
    const served = servedView(await catalogOf(`server: { catalog: { mode: search } }\n${TOOLS}`), undefined);
    const ctx: ToolCallContext = { ...callContext(), ...(sees && { sees }) };
    return served.tools.get(tool)!.call(args, ctx);
  }

  test('describe_tool refuses a 100 KB name plainly: no lookup, no suggestion', async () => {
    const result = await meta('describe_tool', { name: `ping${'g'.repeat(100_000)}` });
    assert.equal(result.isError, true);
    assert.match(answer(result), /^describe_tool "name" is longer than 256 characters/);
    assert.ok(answer(result).length < 200, 'the name is not echoed');
  });

  test('call_tool refuses a name over 256 characters as invalid params', async () => {
    const served = servedView(await catalogOf(`server: { catalog: { mode: search } }\n${TOOLS}`), undefined);
    const call = served.tools.get('call_tool')!;
    assert.throws(() => call.resolve?.({ name: 'p'.repeat(257) }, undefined), /longer than 256 characters/);
  });

  test("describe_tool's hint names only tools the caller sees", async () => {
    assert.match(answer(await meta('describe_tool', { name: 'pong' })), /did you mean "ping"/);
    const hidden = await meta('describe_tool', { name: 'pong' }, (name) => name !== 'ping');
    assert.equal(answer(hidden), 'Unknown tool: pong');
  });

  test('a search request is read once per word, at most 16 words and 200 characters', async () => {
    assert.equal(boundedQuery('repo '.repeat(200)), 'repo');
    assert.equal(boundedQuery('List repos, list REPOS for org'), 'List repos for org');
    const many = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    assert.equal(boundedQuery(many).split(' ').length, 16);
    assert.ok(
      boundedQuery(`${'x'.repeat(300)} pets`).length <= 200,
      'a word past 200 characters is not read',
    );
    const index = await toolIndex(await catalogOf(TOOLS));
    assert.equal(index.search('adopt '.repeat(500), 5)[0]?.name, 'pet_adopt');
  });
});

describe('the meta-tools are governed as the server governs any tool', () => {
  const run = (
    tool: { call: (a: Record<string, unknown>, c: ToolCallContext) => Promise<ToolResult> },
    ctx: ToolCallContext,
    args: Record<string, unknown> = { query: 'pets' },
  ) =>
    tool.call(args, ctx).then(
      () => 'answered',
      (err: Error) => err.message,
    );

  test("search, browse and describe count against the server's limits; call_tool does not count itself", async () => {
    const catalog = await catalogOf(
      `server: { catalog: { mode: search }, limits: { calls: 3/minute } }\n${TOOLS}`,
    );
    const served = servedView(catalog, undefined);
    const ctx: ToolCallContext = callContext();
    assert.equal(await run(served.tools.get('search_tools')!, ctx), 'answered');
    assert.equal(await run(served.tools.get('browse_tools')!, ctx), 'answered');
    const call = served.tools.get('call_tool')!;
    assert.ok(call.resolve !== undefined, 'call_tool is resolved to its target, which counts');
    const { tool: ping } = call.resolve({ name: 'ping' }, undefined);
    assert.equal(await run(ping, ctx, {}), 'answered');
    assert.match(await run(served.tools.get('describe_tool')!, ctx), /server\.limits\.calls 3\/minute/);
  });

  test('a server-wide policy (appliesTo: all) holds on search, browse and describe', async () => {
    const catalog = await catalogOf(`server:
  catalog: { mode: search }
  policies: { signed: { appliesTo: all, deny: '!has(claims.sub)' } }
${TOOLS}`);
    const served = servedView(catalog, undefined);
    const signed: ToolCallContext = {
      ...callContext(),
      identity: {
        issuer: 'i',
        subject: 'a',
        claims: { sub: 'a' },
        expiresAt: undefined,
        accessToken: () => 't',
      },
    };
    for (const meta of ['search_tools', 'browse_tools', 'describe_tool']) {
      assert.match(await run(served.tools.get(meta)!, callContext()), /signed/, meta);
      assert.equal(await run(served.tools.get(meta)!, signed), 'answered', meta);
    }
  });
});

test('over HTTP, call_tool needs the scopes of the tool it names, and its own', () => {
  const policy = { required: ['mcp'], tools: { pet_adopt: ['pets:write'], call_tool: ['meta'] } };
  const call = (name: string, args?: object) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, ...(args && { arguments: args }) },
  });
  assert.deepEqual(scopesNeeded(call('call_tool', { name: 'pet_adopt' }), policy), [
    'mcp',
    'meta',
    'pets:write',
  ]);
  assert.deepEqual(scopesNeeded(call('call_tool', { name: 'ping' }), policy), ['mcp', 'meta']);
  assert.deepEqual(scopesNeeded(call('search_tools', { name: 'pet_adopt' }), policy), ['mcp']);
});

describe('the words of tool search', () => {
  test('plurals, past tenses and gerunds meet their stem', () => {
    assert.equal(stem('repositories'), stem('repository'));
    assert.equal(stem('starred'), stem('star'));
    assert.equal(stem('deleting'), stem('delete'));
    assert.equal(stem('followers'), stem('follow'));
  });

  test('each word stands for its synonym group; abbreviations are spelled out; common words go', () => {
    assert.deepEqual(processTerm('remove'), [stem('remove'), `~${stem('delete')}`]);
    assert.deepEqual(processTerm('PR'), ['pull', stem('request')]);
    assert.equal(processTerm('the'), null);
  });
});
