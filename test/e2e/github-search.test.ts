/**
 * The GitHub REST import (1,223 operations, bench/lib/github-description.ts) served in search mode
 * by the built CLI over stdio, against an upstream on 127.0.0.1:
 *
 * - its tools/list is at most 1,500 tokens, counted with o200k_base (gpt-tokenizer), not estimated;
 * - every operation is found by searching its own title (its description's first sentence when it
 *   has none) within the first five, and called through `call_tool` with arguments made from its
 *   schema: the upstream receives its method and path, so the call passed the wrapper's validation
 *   and reached the http kind.
 *
 * The document is fetched once into node_modules/.cache by the bench's helper; without it (no
 * network, no MCP_RUN_BENCH_GITHUB_OPENAPI) the suite is skipped with the reason.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import yaml from 'js-yaml';
import { githubDescription } from '../../bench/lib/github-description.js';
import { realTokenizers } from '../../src/lint/tokenizers.js';
import { CLI, tempFiles } from '../helpers/demo.js';
import { RawStdioPeer } from '../helpers/raw-stdio.js';

type Json = any;

let spec: string | undefined;
let unavailable: string | undefined;
try {
  spec = githubDescription();
} catch (err) {
  unavailable = `the GitHub description is not available: ${(err as Error).message}`;
}

/**
 * Strings of the shapes API patterns ask for (base64, a digest, an SSH key, a commit SHA, a ref, a
 * version, a token's format): the first that `pattern` accepts stands for a string argument.
 */
const CANDIDATES = [
  'x',
  'aGVsbG8=',
  `sha256:${'a'.repeat(64)}`,
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA',
  'a'.repeat(40),
  'refs/heads/main',
  'pkg-1',
  '1.0.0',
  'https://example.com',
  'github',
  'issue',
  'ghp_token_1',
  `prefix_${'a'.repeat(32)}`,
  `updated_secret_${'A'.repeat(16)}`,
];

function matching(pattern: string, fallback: string): string {
  const regex = new RegExp(pattern, 'u');
  return regex.test(fallback) ? fallback : (CANDIDATES.find((c) => regex.test(c)) ?? fallback);
}

/** Arguments that satisfy `schema` (the required ones only), made from its types, enums and bounds. */
function sample(schema: Json, root: Json, depth = 0): unknown {
  if (schema === undefined || schema === true || depth > 12) return 'x';
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((node: Json, key: string) => node?.[key], root);
    return sample(target, root, depth + 1);
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum.find((v: unknown) => v !== null) ?? schema.enum[0];
  for (const key of ['oneOf', 'anyOf'] as const)
    if (Array.isArray(schema[key])) return sample(schema[key][0], root, depth + 1);
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((s: Json) => sample(s, root, depth + 1));
    return parts.every((p: unknown) => typeof p === 'object' && p !== null && !Array.isArray(p))
      ? Object.assign({}, ...parts)
      : parts[0];
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return Math.max(1, schema.minimum ?? 1);
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, (_, i) => {
        const item = sample(schema.items, root, depth + 1);
        return typeof item === 'number' ? item + i : typeof item === 'string' ? `${item}${i}` : item;
      });
    case 'string': {
      if (schema.format === 'date-time') return '2024-01-01T00:00:00Z';
      if (schema.format === 'date') return '2024-01-01';
      if (schema.format === 'uri') return 'https://example.com';
      if (schema.format === 'email') return 'a@example.com';
      const plain = 'x'.repeat(Math.max(1, schema.minLength ?? 1));
      return typeof schema.pattern === 'string' ? matching(schema.pattern, plain) : plain;
    }
    default: {
      if (type !== 'object' && schema.properties === undefined) return 'x';
      const out: Record<string, unknown> = {};
      for (const name of schema.required ?? [])
        out[name] = sample(schema.properties?.[name], root, depth + 1);
      return out;
    }
  }
}

describe('the GitHub import in search mode', { skip: unavailable }, () => {
  const files = tempFiles({});
  const full = join(files.dir, 'github.yaml');
  const seen: string[] = [];
  const upstream = createServer((req, res) => {
    seen.push(`${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`);
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  let peer: RawStdioPeer;
  let tools: Record<string, Json>;
  let id = 1;
  const request = (method: string, params: Json = {}) =>
    peer.request({ jsonrpc: '2.0', id: id++, method, params });
  const call = async (name: string, args: Json) =>
    (await request('tools/call', { name, arguments: args })).result;

  before(async () => {
    const ran = spawnSync(process.execPath, [CLI, 'import', 'openapi', spec!, '-o', full, '--force'], {
      encoding: 'utf8',
    });
    assert.equal(ran.status, 0, ran.stderr);
    const text = readFileSync(full, 'utf8');
    tools = (yaml.load(text) as Json).tools;
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const search = join(files.dir, 'github-search.yaml');
    const served = text
      .replace(/^server:\n/m, 'server:\n  catalog: { mode: search }\n')
      .replace(/^(\s+)baseUrl: .*$/m, `$1baseUrl: ${base}`);
    assert.ok(served.includes(`baseUrl: ${base}`), 'the source points at the upstream');
    writeFileSync(search, served);
    peer = new RawStdioPeer([search]);
    await request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'github-search', version: '1' },
    });
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  });
  after(async () => {
    await peer?.end();
    upstream.close();
    files.cleanup();
  });

  test('tools/list is at most 1,500 o200k_base tokens', async () => {
    const listed = (await request('tools/list')).result.tools;
    assert.deepEqual(
      listed.map((t: Json) => t.name),
      ['search_tools', 'browse_tools', 'describe_tool', 'call_tool'],
    );
    const [o200k] = await realTokenizers();
    assert.ok(o200k?.name.startsWith('o200k_base'), 'gpt-tokenizer is installed (a devDependency)');
    if (o200k === undefined) return;
    const tokens = o200k.count(JSON.stringify(listed));
    assert.ok(tokens <= 1500, `${tokens} o200k_base tokens`);
  });

  // 3,669 requests over one stdio pipe, 16 operations at a time: one by one they took more than the
  // runner's two minutes for a file on a loaded 2-core machine.
  test('all 1,223 operations are found by their own title and called through call_tool', async () => {
    const names = Object.keys(tools);
    assert.equal(names.length, 1223);
    const lost: string[] = [];
    const unreached: string[] = [];
    const walk = async (name: string) => {
      const config = tools[name];
      const query = config.title ?? String(config.description).split(/[.\n]/)[0];
      const found = (await call('search_tools', { query, limit: 5 })).content[0].text as string;
      if (!found.split('\n').some((line) => line.startsWith(`${name}:`))) lost.push(`${name} (${query})`);
      const described = JSON.parse((await call('describe_tool', { name })).content[0].text);
      const args = sample(described.inputSchema, described.inputSchema) as Json;
      const result = await call('call_tool', { name, arguments: args });
      // The upstream answers `{}`, which an operation's outputSchema may refuse: only a result that
      // says the arguments were refused or the tool unknown means the call fell short.
      const text = String(result?.content?.[0]?.text ?? '');
      if (/^Invalid arguments|Unknown tool/i.test(text)) unreached.push(`${name}: ${text.slice(0, 200)}`);
    };
    for (let i = 0; i < names.length; i += 16) await Promise.all(names.slice(i, i + 16).map(walk));
    assert.deepEqual(lost, [], 'every operation is in the first five for its own title');
    assert.deepEqual(unreached, [], 'every call through call_tool reaches the upstream');
    // Every call made one upstream request, and each operation's own route is among them.
    assert.equal(seen.length, 1223);
    const missing = names.filter((name) => {
      const { method, path } = tools[name];
      const route = new RegExp(`^${method} ${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      return !seen.some((line) => route.test(line));
    });
    assert.deepEqual(missing, [], "every operation's route reached the upstream");
  });
});
