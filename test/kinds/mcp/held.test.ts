/**
 * The upstream calls held between 2026 rounds (src/kinds/mcp/held.ts), without an upstream: the
 * per-caller bound refuses one call more and frees its place when a retry takes one; a retry from
 * another principal cancels the call (its upstream request is aborted, its question refused); a
 * question left waiting past the wait is forgotten and its upstream request aborted.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  HeldCall,
  HeldCalls,
  heldPerCaller,
  MAX_HELD_BYTES,
  MAX_HELD_PER_CALLER,
} from '../../../src/kinds/mcp/held.js';
import { DEFAULT_MAX_CONCURRENCY } from '../../../src/kinds/mcp/source.info.js';

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
    // A source with places enough that the process's bound is the one met.
    const held = new HeldCalls(60_000, () => {}, 4 * MAX_HELD_PER_CALLER);
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
    const held = new HeldCalls(60_000, () => {}, DEFAULT_MAX_CONCURRENCY);
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
      const held = new HeldCalls(
        50,
        (why) => {
          told = why;
          resolve();
        },
        DEFAULT_MAX_CONCURRENCY,
      );
      void asking('p', 'c').then((asked) => held.hold(asked.call, asked.question));
    });
    // The wait's timer is unref'd (it never holds a server open): this one keeps the test's loop alive.
    const alive = setInterval(() => {}, 1000);
    await forgotten.finally(() => clearInterval(alive));
    assert.match(told, /cancelled and forgotten: its question waited 50 ms/);
  });

  test("one caller holds at most a quarter of a source's maxConcurrency: a held call keeps its place there", async () => {
    assert.deepEqual([1, 2, 7, 8, 16, 1000].map(heldPerCaller), [1, 1, 1, 2, 4, MAX_HELD_PER_CALLER]);
    const held = new HeldCalls(60_000, () => {}, DEFAULT_MAX_CONCURRENCY);
    const calls = [];
    for (let i = 0; i < DEFAULT_MAX_CONCURRENCY / 4; i++) {
      const asked = await asking('p', 'alice');
      assert.equal(held.hold(asked.call, asked.question), undefined);
      calls.push(asked);
    }
    const extra = await asking('p', 'alice');
    assert.match(
      held.hold(extra.call, extra.question) ?? '',
      /you already have 4 calls of this source waiting/,
    );
    const bob = await asking('q', 'bob');
    assert.equal(held.hold(bob.call, bob.question), undefined, "another caller's places are its own");
    held.dispose();
    extra.call.cancel('refused');
    await Promise.all([...calls, extra, bob].map((a) => a.aborted));
  });

  test('a question counts in UTF-8 bytes, not characters', async () => {
    const call = new HeldCall('p', 'c');
    call.follow(new Promise(() => {}));
    const params = { message: 'é€😀'.repeat(100) };
    call.ask('elicitation/create', params).catch(() => {});
    const turn = await call.next(new AbortController().signal);
    assert.equal(turn.kind === 'question' && turn.question.bytes, Buffer.byteLength(JSON.stringify(params)));
    call.cancel('done');
  });

  test('a result that comes while its call is held counts toward MAX_HELD_BYTES: past it, the call is forgotten', async () => {
    const whys: string[] = [];
    const held = new HeldCalls(60_000, (why) => whys.push(why), DEFAULT_MAX_CONCURRENCY);
    const call = new HeldCall('p', 'c');
    let finish: (result: unknown) => void = () => {};
    call.follow(new Promise((resolve) => (finish = resolve)));
    call.ask('elicitation/create', { message: 'Your name?' }).catch(() => {});
    const turn = await call.next(new AbortController().signal);
    assert.equal(held.hold(call, turn.kind === 'question' ? turn.question : undefined!), undefined);
    finish({ content: [{ type: 'text', text: 'x'.repeat(MAX_HELD_BYTES) }] });
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(call.signal.aborted, 'the call was cancelled');
    assert.match(whys.join('\n'), /passed the \d+ bytes the server holds/);
    assert.deepEqual(held.take(call.id, 'p'), { refused: 'missing' });
  });

  test('questions queued behind a held one count toward MAX_HELD_BYTES: past it, the call is forgotten', async () => {
    const whys: string[] = [];
    const held = new HeldCalls(60_000, (why) => whys.push(why), DEFAULT_MAX_CONCURRENCY);
    const big = { message: 'x'.repeat(1_000_000), requestedSchema: { type: 'object', properties: {} } };
    const calls: HeldCall[] = [];
    // Each held call queues about 4 MB behind its small question: 9 of them pass the 32 MB.
    for (let i = 0; i < 9 && whys.length === 0; i++) {
      const asked = await asking('p', `caller-${i}`);
      assert.equal(held.hold(asked.call, asked.question), undefined);
      calls.push(asked.call);
      for (let q = 0; q < 4; q++) asked.call.ask('elicitation/create', big).catch(() => {});
    }
    assert.equal(calls.length, 9, whys.join('\n'));
    assert.match(whys.join('\n'), /passed the \d+ bytes the server holds/);
    assert.ok(calls.at(-1)!.signal.aborted, 'the call that passed the bound was cancelled');
    held.dispose();
  });
});
