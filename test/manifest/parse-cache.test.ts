/**
 * The parse cache (src/manifest/parse-cache.ts), through the built CLI as a user runs it: a large
 * manifest's data is kept once parsed and read back by the next start; what is kept is only ever the
 * data of that very text, from this build; `${env:…}` is resolved at every load; a broken or foreign
 * file is ignored; small manifests, and `MCP_RUN_CACHE_DIR=off`, keep nothing; a folder that cannot
 * be written serves as before.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { deserialize, serialize } from 'node:v8';
import { runCli } from '../helpers/run-cli.js';

/** A manifest of `n` content tools, over the cache's 256 KiB threshold for n ≥ 1,200. */
function manifest(n: number, description = 'Tool {i}: returns a fixed text.'): string {
  const tools = Array.from(
    { length: n },
    (_, i) =>
      `  tool_${i}:\n    kind: content\n    description: "${description.replace('{i}', String(i))}"\n    content: [{ text: "the answer of tool ${i}, padded to make the manifest large enough to be worth keeping" }]\n`,
  );
  // tool_0's description comes from the environment, resolved after parsing.
  tools[0] = tools[0]!.replace(/description: .*/, 'description: ${env:BIG_DESCRIPTION:-none}');
  return `server:\n  name: big\n  version: 1.0.0\ntools:\n${tools.join('')}`;
}

describe('the parse cache of large manifests', () => {
  let dir: string;
  let cache: string;
  let file: string;
  const env = (more: NodeJS.ProcessEnv = {}) => ({ ...process.env, MCP_RUN_CACHE_DIR: cache, ...more });
  const list = (more?: NodeJS.ProcessEnv) => {
    const run = runCli(['list', file, '--json'], { env: env(more) });
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as { tools: { name: string; description: string }[] };
  };
  const kept = () => readdirSync(cache).filter((f) => f.endsWith('.v8'));

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-run-parse-cache-'));
    cache = join(dir, 'cache');
    file = join(dir, 'big.yaml');
    writeFileSync(file, manifest(1500));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the data of a large manifest once parsed, and reads it back at the next start', () => {
    const first = list();
    assert.equal(first.tools.length, 1500);
    assert.equal(kept().length, 1);
    // The kept file holds the data and the hash of its text; changing its data shows it is read.
    const path = join(cache, kept()[0]!);
    const entry = deserialize(readFileSync(path)) as { sha256: string; data: any };
    assert.match(entry.sha256, /^[0-9a-f]{64}$/);
    entry.data.tools.tool_7.description = 'read back from the cache';
    writeFileSync(path, serialize(entry));
    const second = list();
    assert.equal(second.tools.find((t) => t.name === 'tool_7')?.description, 'read back from the cache');
    assert.deepEqual(
      second.tools.filter((t) => t.name !== 'tool_7'),
      first.tools.filter((t) => t.name !== 'tool_7'),
    );
  });

  it('reads nothing kept for another text: an edit is parsed, and kept beside', () => {
    writeFileSync(file, manifest(1500, 'Edited tool {i}.'));
    const edited = list();
    assert.equal(edited.tools.find((t) => t.name === 'tool_7')?.description, 'Edited tool 7.');
    assert.equal(kept().length, 2);
  });

  it('resolves ${env:…} at every load, never from what was kept', () => {
    const described = (value: string) =>
      list({ BIG_DESCRIPTION: value }).tools.find((t) => t.name === 'tool_0')?.description;
    assert.equal(described('first'), 'first');
    assert.equal(described('second'), 'second');
    assert.equal(kept().length, 2);
  });

  it('ignores a kept file that is broken or not of this text, and parses', () => {
    for (const name of kept()) writeFileSync(join(cache, name), 'not a serialized value');
    assert.equal(list().tools.find((t) => t.name === 'tool_7')?.description, 'Edited tool 7.');
    // The text's file was written again, whole; the other text's stays broken until it is served.
    const readable = kept().flatMap((name) => {
      try {
        return [
          { name, entry: deserialize(readFileSync(join(cache, name))) as { sha256: string; data: any } },
        ];
      } catch {
        return [];
      }
    });
    assert.equal(readable.length, 1);
    const [{ name, entry }] = readable as [(typeof readable)[number]];
    entry.data.tools.tool_7.description = 'from a file of another text';
    writeFileSync(join(cache, name), serialize({ sha256: '0'.repeat(64), data: entry.data }));
    assert.equal(list().tools.find((t) => t.name === 'tool_7')?.description, 'Edited tool 7.');
  });

  it('keeps at most 16 files, the least recently used removed first', () => {
    const ours = kept().length;
    const old = new Date(Date.now() - 3_600_000);
    for (let i = 0; i < 20; i++) {
      const name = join(cache, `${String(i).padStart(40, '0')}.v8`);
      writeFileSync(name, 'stale');
      utimesSync(name, old, old);
    }
    writeFileSync(file, manifest(1500, 'Edited again, tool {i}.'));
    list();
    const left = kept();
    assert.equal(left.length, 16);
    // Ours, and the one just written, were used last: the stale ones make up the rest.
    assert.equal(left.filter((f) => f.startsWith('0000')).length, 16 - ours - 1);
  });

  it('keeps nothing for a small manifest, nor with MCP_RUN_CACHE_DIR=off', () => {
    const own = mkdtempSync(join(dir, 'xdg-'));
    const small = join(dir, 'small.yaml');
    writeFileSync(small, manifest(20));
    for (const [target, more] of [
      [small, { MCP_RUN_CACHE_DIR: '', XDG_CACHE_HOME: own }],
      [file, { MCP_RUN_CACHE_DIR: 'off', XDG_CACHE_HOME: own }],
    ] as const) {
      const run = runCli(['list', target, '--json'], { env: { ...process.env, ...more } });
      assert.equal(run.code, 0, run.stderr);
    }
    assert.deepEqual(readdirSync(own), []);
  });

  it('neither reads nor writes a folder others may write in: a file planted there is not served', () => {
    // The kept entry of the manifest as it is now, its data changed, planted under every kept name
    // in a folder anyone may write in.
    const sha256 = createHash('sha256').update(readFileSync(file, 'utf8')).digest('hex');
    const entry = kept()
      .flatMap((name) => {
        try {
          return [deserialize(readFileSync(join(cache, name))) as { sha256: string; data: any }];
        } catch {
          return [];
        }
      })
      .find((e) => e.sha256 === sha256);
    assert.ok(entry, 'the manifest as it is now was kept');
    entry.data.tools.tool_7.description = 'planted';
    const shared = join(dir, 'shared');
    mkdirSync(shared);
    for (const name of kept()) writeFileSync(join(shared, name), serialize(entry));
    chmodSync(shared, 0o777);
    const before = readdirSync(shared).sort();
    const served = list({ MCP_RUN_CACHE_DIR: shared }).tools.find((t) => t.name === 'tool_7')?.description;
    assert.equal(served, 'Edited again, tool 7.');
    assert.deepEqual(readdirSync(shared).sort(), before, 'nothing written there');
    // The same folder made the user's own: the planted file is what a kept one would be, and is read.
    chmodSync(shared, 0o700);
    assert.equal(
      list({ MCP_RUN_CACHE_DIR: shared }).tools.find((t) => t.name === 'tool_7')?.description,
      'planted',
    );
  });

  it('serves as before when the folder cannot be written', () => {
    const blocked = join(dir, 'blocked');
    writeFileSync(blocked, 'a file where the folder would be');
    const run = runCli(['list', file, '--json'], {
      env: { ...process.env, MCP_RUN_CACHE_DIR: join(blocked, 'x') },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal((JSON.parse(run.stdout) as { tools: unknown[] }).tools.length, 1500);
  });
});
