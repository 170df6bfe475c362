/**
 * The SharedState primitives, the same cases on both implementations: memory, and Redis (the
 * machine's, under a prefix of this test's own; skipped with the reason without
 * MCP_RUN_TEST_REDIS_URL). Logs stay bounded (oldest dropped, newest kept), closed logs refuse
 * appends, a claim is won once, values beyond their bound are refused, prefixes keep apart.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { hostState, IpcState } from '../../src/state/ipc.js';
import { MemoryState } from '../../src/state/memory.js';
import { parseStateUrl, RedisState } from '../../src/state/redis.js';
import { MAX_VALUE_BYTES, type SharedState, StateError } from '../../src/state/shared.js';
import { CLI, REPO } from '../helpers/demo.js';
import { ipcPair } from '../helpers/ipc-pair.js';
import { captureLogger } from '../protocol/harness.js';
import { REDIS_URL, stateUrl } from './replicas-harness.js';

const BOUNDS = { items: 3, bytes: 100, ttlMs: 60_000 };

/** A worker's IpcState on the primary's hostState, over a channel in this process. */
function ipcState(): SharedState {
  const { client, rooms } = ipcPair();
  hostState(rooms);
  return new IpcState(client);
}

const implementations: [string, string | undefined, () => Promise<SharedState>][] = [
  ['memory', undefined, async () => new MemoryState()],
  ['ipc (the state --workers reach in the primary)', undefined, async () => ipcState()],
  [
    'redis',
    REDIS_URL === undefined ? 'MCP_RUN_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379)' : undefined,
    async () => {
      const state = new RedisState(stateUrl(), captureLogger());
      assert.ok(await state.connect(), 'Redis answers');
      return state;
    },
  ],
];

for (const [name, skip, open] of implementations) {
  describe(`SharedState: ${name}`, { skip }, () => {
    const opened: SharedState[] = [];
    const make = async () => {
      const state = await open();
      opened.push(state);
      return state;
    };
    after(async () => {
      for (const state of opened) await state.close();
    });

    test('a log keeps at most its items and bytes, the newest always, in order', async () => {
      const s = await make();
      await s.logCreate('log', 'get', 60_000);
      for (const item of ['a', 'b', 'c', 'd']) await s.logAppend('log', item, BOUNDS);
      let read = await s.logRead('log', 0, 60_000);
      assert.deepEqual(read?.items, [
        { seq: 2, item: 'b' },
        { seq: 3, item: 'c' },
        { seq: 4, item: 'd' },
      ]);
      assert.equal(read?.tag, 'get');
      assert.equal((await s.logRead('log', 3, 60_000))?.items.length, 1);
      const big = 'x'.repeat(150);
      assert.equal(await s.logAppend('log', big, BOUNDS), 5);
      read = await s.logRead('log', 0, 60_000);
      assert.deepEqual(read?.items, [{ seq: 5, item: big }], 'the newest is kept beyond the byte bound');
      await s.logClose('log', 60_000);
      assert.equal((await s.logRead('log', 0, 60_000))?.closed, true);
      await assert.rejects(s.logAppend('log', 'late', BOUNDS), StateError);
      await assert.rejects(s.logAppend('never-created', 'x', BOUNDS), StateError);
      assert.equal(await s.logRead('never-created', 0, 60_000), undefined);
    });

    test('an append with an id is not appended again by its retry, until another append with an id', async () => {
      const s = await make();
      await s.logCreate('once', 'get', 60_000);
      assert.equal(await s.logAppend('once', 'a', BOUNDS, 'id-1'), 1);
      assert.equal(await s.logAppend('once', 'a', BOUNDS, 'id-1'), 1, 'the retry finds it appended');
      assert.equal(await s.logAppend('once', 'plain', BOUNDS), 2);
      assert.equal(
        await s.logAppend('once', 'a', BOUNDS, 'id-1'),
        1,
        'a plain append in between changes nothing',
      );
      assert.equal(await s.logAppend('once', 'b', BOUNDS, 'id-2'), 3);
      assert.deepEqual(
        (await s.logRead('once', 0, 60_000))?.items.map((i) => i.item),
        ['a', 'plain', 'b'],
      );
    });

    test('values: a TTL, a claim won once (and kept by its owner), a bound on bytes, an index by recency', async () => {
      const s = await make();
      await s.set('k', 'v', 60_000);
      assert.equal(await s.get('k'), 'v');
      await s.set('short', 'v', 1);
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(await s.get('short'), undefined, 'expired');
      assert.equal(await s.claim('c', 60_000, 'r1'), true);
      assert.equal(await s.claim('c', 60_000, 'r2'), false, 'another owner loses it');
      assert.equal(await s.claim('c', 60_000, 'r1'), true, 'its owner, retrying, still holds it');
      await assert.rejects(s.set('huge', 'x'.repeat(MAX_VALUE_BYTES + 1), 60_000), StateError);
      await s.indexTouch('idx', 'one', 60_000);
      await s.indexTouch('idx', 'two', 60_000);
      assert.deepEqual((await s.indexRecent('idx', 60_000)).sort(), ['one', 'two']);
      await s.indexRemove('idx', 'one');
      assert.deepEqual(await s.indexRecent('idx', 60_000), ['two']);
      await s.del(['k']);
      assert.equal(await s.get('k'), undefined);
    });

    test('pub/sub delivers to every subscriber', async () => {
      const s = await make();
      const got: string[] = [];
      await s.subscribe('ch', (m) => got.push(m));
      // Redis: the SUBSCRIBE is sent on the subscriber connection; wait until a message comes round.
      for (let i = 0; got.length === 0 && i < 100; i++) {
        await s.publish('ch', `m${i}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(got.length > 0);
      assert.ok(got.every((m) => /^m\d+$/.test(m)));
      assert.equal(s.delivering, true, 'a confirmed subscription delivers');
      assert.equal(s.gaps, 0);
    });

    test('setAndTouch writes, indexes and announces; getAndTouch reads and indexes only what exists', async () => {
      const s = await make();
      const got: string[] = [];
      await s.subscribe('news', (m) => got.push(m));
      for (let i = 0; !s.delivering && i < 100; i++) await new Promise((r) => setTimeout(r, 20));
      const index = { key: 'byUse', member: 'r1' };
      await s.setAndTouch('r1', 'record', 60_000, index, { channel: 'news', message: 'r1 changed' });
      await s.setAndTouch('quiet', 'record', 60_000, { key: 'byUse', member: 'quiet' });
      assert.equal(await s.get('r1'), 'record');
      assert.deepEqual((await s.indexRecent('byUse', 60_000)).sort(), ['quiet', 'r1']);
      await s.set('g1', 'stream', 1000);
      assert.equal(await s.getAndTouch('r1', ['g1'], { key: 'used', member: 'r1' }, 60_000), 'record');
      assert.equal(await s.getAndTouch('gone', ['g1'], { key: 'used', member: 'gone' }, 60_000), undefined);
      assert.deepEqual(await s.indexRecent('used', 60_000), ['r1'], 'an absent key is not indexed');
      await new Promise((r) => setTimeout(r, 1100));
      assert.equal(await s.get('g1'), 'stream', 'the other key was extended with it');
      for (let i = 0; got.length === 0 && i < 100; i++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(got, ['r1 changed'], 'one announcement, for the write that asked for it');
      await assert.rejects(s.setAndTouch('huge', 'x'.repeat(MAX_VALUE_BYTES + 1), 60_000, index), StateError);
    });
  });
}

test('--state URLs: redis:// only, a checked prefix under mcp-run:, no credentials in `where`', () => {
  const parsed = parseStateUrl('redis://user:secret@127.0.0.1:6379/2?prefix=team-a');
  assert.equal(parsed.prefix, 'mcp-run:team-a:');
  assert.equal(parsed.where, 'redis://127.0.0.1:6379/2');
  assert.doesNotMatch(parsed.url, /prefix/);
  assert.equal(parseStateUrl('redis://127.0.0.1').prefix, 'mcp-run:');
  assert.throws(() => parseStateUrl('http://127.0.0.1'), /redis:\/\/ or rediss:\/\//);
  assert.throws(() => parseStateUrl('redis://h?prefix=a b'), /prefix/);
  assert.throws(() => parseStateUrl('not a url'), /not a URL/);
});

test('mcp-run refuses --state without --http, and a --state that is not a Redis URL (exit 2)', () => {
  const run = (args: string[]) =>
    spawnSync(process.execPath, [CLI, join(REPO, 'mcp.yaml.example'), ...args], {
      encoding: 'utf8',
      timeout: 20_000,
    });
  const stdio = run(['--state', 'redis://127.0.0.1:6379']);
  assert.equal(stdio.status, 2);
  assert.match(stdio.stderr, /--state .* needs --http/);
  const bad = run(['--http', '--port', '0', '--state', 'memcached://127.0.0.1']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--state takes a redis:\/\/ or rediss:\/\/ URL/);
});
