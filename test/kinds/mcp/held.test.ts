/**
 * The upstream calls held between 2026 rounds (src/kinds/mcp/held.ts), without an upstream: the
 * per-caller bound refuses one call more and frees its place when a retry takes one; a retry from
 * another principal cancels the call (its upstream request is aborted, its question refused); a
 * question left waiting past the wait is forgotten and its upstream request aborted.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HeldCall, HeldCalls, MAX_HELD_PER_CALLER } from '../../../src/kinds/mcp/held.js';

/** A held call whose upstream is a promise that ends when the call is cancelled, with one question asked. */
async function asking(principal: string, caller: string) {
  const call = new HeldCall(principal, caller);
  const aborted = new Promise<void>((resolve) => call.signal.addEventListener('abort', () => resolve()));
  call.follow(aborted.then(() => Promise.reject(new Error('cancelled upstream'))));
  const answer = call.ask('elicitation/create', { message: 'Your name?' });
  // The upstream's side would await it; a cancelled call refuses it.
  answer.catch(() => {});
  const turn = await call.next(new AbortController().signal);
  assert.equal(turn.kind, 'question');
  return { call, answer, question: turn.kind === 'question' ? turn.question : undefined!, aborted };
}

describe('held upstream calls', () => {
  test('one caller holds at most MAX_HELD_PER_CALLER; a retry that takes one frees its place', async () => {
    const held = new HeldCalls(60_000, () => {});
    const mine = [];
    for (let i = 0; i < MAX_HELD_PER_CALLER; i++) {
      const asked = await asking('p', 'alice');
      assert.equal(held.hold(asked.call, asked.question), undefined);
      mine.push(asked);
    }
    const extra = await asking('p', 'alice');
    assert.match(held.hold(extra.call, extra.question) ?? '', /you already have 16 upstream calls waiting/);
    const bob = await asking('q', 'bob');
    assert.equal(held.hold(bob.call, bob.question), undefined, "another caller's place is its own");

    const taken = held.take(mine[0]!.call.id, 'p');
    assert.ok(taken instanceof HeldCall);
    taken.asked?.answer({ action: 'accept', content: { name: 'Ada' } });
    assert.deepEqual(await mine[0]!.answer, { action: 'accept', content: { name: 'Ada' } });
    assert.equal(held.hold(extra.call, extra.question), undefined);
    held.dispose();
    await Promise.all([...mine.slice(1), extra, bob].map((a) => a.aborted));
  });

  test('a retry from another principal is refused and cancels the call', async () => {
    const held = new HeldCalls(60_000, () => {});
    const asked = await asking('alice', 'alice');
    held.hold(asked.call, asked.question);
    assert.deepEqual(held.take(asked.call.id, 'mallory'), { refused: 'principal' });
    await asked.aborted;
    await assert.rejects(asked.answer, /another caller presented its requestState/);
    assert.deepEqual(held.take(asked.call.id, 'alice'), { refused: 'missing' });
  });

  test('a question left waiting is forgotten and the upstream call cancelled', async () => {
    let told = '';
    const forgotten = new Promise<void>((resolve) => {
      const held = new HeldCalls(50, (why) => {
        told = why;
        resolve();
      });
      void asking('p', 'c').then((asked) => held.hold(asked.call, asked.question));
    });
    // The wait's timer is unref'd (it never holds a server open): this one keeps the test's loop alive.
    const alive = setInterval(() => {}, 1000);
    await forgotten.finally(() => clearInterval(alive));
    assert.match(told, /cancelled and forgotten: its question waited 50 ms/);
  });
});
