/**
 * An `mcp` source's subscription count and cap, and its completion answers' bounds
 * (src/kinds/mcp/follow.ts), on the requests it would send upstream: one subscribe per URI however
 * many followers, one unsubscribe when the last leaves, a refusal forgotten, the cap per source,
 * and an upstream's completion values cut to 100, long ones left out, credentials redacted. The
 * same relay against real upstreams: test/e2e/mcp-upstream-follow.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  completionValues,
  MAX_VALUE_CHARS,
  UPDATE_GAP_MS,
  UpstreamSubscriptions,
} from '../../../src/kinds/mcp/follow.js';
import { StderrLogger } from '../../../src/log.js';

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function subscriptions(max: number, refuse = new Set<string>()) {
  const sent: string[] = [];
  const subs = new UpstreamSubscriptions({
    name: 'upstream test',
    max,
    log: new StderrLogger('silent'),
    redact: (t) => t,
    request: async (method, params) => {
      const uri = (params as { uri: string }).uri;
      sent.push(`${method} ${uri}`);
      if (refuse.has(uri)) throw new Error('no such resource');
      return {};
    },
  });
  return { subs, sent };
}

describe('UpstreamSubscriptions', () => {
  test('one subscribe per URI, one unsubscribe when the last follower leaves; updates reach its followers', async () => {
    const { subs, sent } = subscriptions(10);
    const heard: string[] = [];
    const releaseA = await subs.follow('x://a', () => heard.push('a1'));
    const releaseB = await subs.follow('x://a', () => heard.push('a2'));
    assert.deepEqual(sent, ['resources/subscribe x://a']);
    subs.updated('x://a');
    subs.updated('x://other');
    assert.deepEqual(heard, ['a1', 'a2']);
    releaseA();
    releaseA();
    assert.deepEqual(sent, ['resources/subscribe x://a']);
    // Within the gap: told when it ends, to the one follower left.
    subs.updated('x://a');
    await until('the deferred update', () => heard.length === 3);
    assert.deepEqual(heard, ['a1', 'a2', 'a2']);
    releaseB();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(sent, ['resources/subscribe x://a', 'resources/unsubscribe x://a']);
    subs.updated('x://a');
    assert.equal(heard.length, 3);
  });

  test('a refused subscribe fails the follow and is forgotten; the cap refuses more URIs with a sentence', async () => {
    const { subs, sent } = subscriptions(2, new Set(['x://refused']));
    await assert.rejects(
      subs.follow('x://refused', () => {}),
      /refused the subscription to x:\/\/refused: no such resource/,
    );
    assert.equal(subs.size, 0);
    await assert.rejects(subs.follow('x://refused', () => {}));
    assert.equal(sent.filter((s) => s === 'resources/subscribe x://refused').length, 2);
    const first = await subs.follow('x://1', () => {});
    await subs.follow('x://2', () => {});
    await assert.rejects(
      subs.follow('x://3', () => {}),
      /already follows 2 resources upstream \(its limit\)/,
    );
    // A URI already followed is no new one.
    const second = await subs.follow('x://1', () => {});
    first();
    await assert.rejects(
      subs.follow('x://3', () => {}),
      /its limit/,
    );
    second();
    await subs.follow('x://3', () => {});
    assert.equal(subs.size, 2);
  });

  test('a restart subscribes every followed URI again; dispose unsubscribes them', async () => {
    const { subs, sent } = subscriptions(10);
    await subs.follow('x://a', () => {});
    subs.restarted();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(sent, ['resources/subscribe x://a', 'resources/subscribe x://a']);
    await subs.dispose();
    assert.equal(sent.at(-1), 'resources/unsubscribe x://a');
    await assert.rejects(
      subs.follow('x://b', () => {}),
      /shut down/,
    );
  });
});

test('a flood of updates of one URI is one now and one when the gap ends', async () => {
  const { subs } = subscriptions(10);
  let heard = 0;
  await subs.follow('x://a', () => heard++);
  for (let i = 0; i < 50; i++) subs.updated('x://a');
  assert.equal(heard, 1);
  await until('the update at the end of the gap', () => heard === 2);
  // Nothing else was scheduled: twice the gap later it is still two.
  await new Promise((resolve) => setTimeout(resolve, UPDATE_GAP_MS * 2));
  assert.equal(heard, 2);
  await subs.dispose();
});

describe('completionValues', () => {
  test('at most 100 values, strings only, a long one left out, each redacted', () => {
    const many = Array.from({ length: 150 }, (_, i) => `v${i}`);
    assert.equal(completionValues({ completion: { values: many } }, (t) => t).length, 100);
    const values = completionValues(
      { completion: { values: ['secret-1 here', 7, 'x'.repeat(MAX_VALUE_CHARS + 1), 'ok'] } },
      (t) => t.split('secret-1').join('***'),
    );
    assert.deepEqual(values, ['*** here', 'ok']);
    assert.deepEqual(
      completionValues({ nothing: true }, (t) => t),
      [],
    );
  });
});
