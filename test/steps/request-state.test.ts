/** The requestState signer on its own: binding, expiry, single use, keys. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  argumentsDigest,
  StateSigner,
  stateKey,
  type UsedStates,
  usedStatesOn,
} from '../../src/protocol/request-state.js';
import { MemoryState } from '../../src/state/memory.js';
import { captureLogger } from '../protocol/harness.js';

const binding = { method: 'tools/call', name: 'delete_note', args: { id: 3, tags: ['a', 'b'] } };
const state = { values: { reason: 'done' }, done: ['ask'] };

function signer(
  now = () => 1_000_000,
  secret = 'a secret of thirty-two characters or more!',
  shared?: UsedStates,
) {
  return new StateSigner(stateKey(secret, captureLogger()), 60_000, now, shared);
}

const refusal = async (fn: () => unknown): Promise<string> => {
  try {
    await fn();
  } catch (err) {
    assert.equal((err as { code?: number }).code, -32602);
    return (err as Error).message;
  }
  return assert.fail('expected a refusal');
};

test('a sealed state opens once, for the same call, with what it carried', async () => {
  const s = signer();
  const token = s.seal(binding, state);
  assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  // Arguments bind by value, whatever the key order.
  const opened = await s.open(token, { ...binding, args: { tags: ['a', 'b'], id: 3 } });
  assert.deepEqual(opened.state, state);
  assert.match(await refusal(() => s.open(token, binding)), /already used/);
});

test('a reservation given back (the retry failed before acting) may be used again', async () => {
  const s = signer();
  const token = s.seal(binding, state);
  s.release(await s.open(token, binding));
  assert.deepEqual((await s.open(token, binding)).state, state);
});

test('other call, other arguments, expiry and another key are each refused with their reason', async () => {
  let now = 1_000_000;
  const s = signer(() => now);
  const token = s.seal(binding, state);
  assert.match(
    await refusal(() => s.open(token, { ...binding, name: 'read_note' })),
    /issued for tools\/call "delete_note"/,
  );
  assert.match(
    await refusal(() => s.open(token, { ...binding, method: 'prompts/get' })),
    /issued for tools\/call/,
  );
  assert.match(await refusal(() => s.open(token, { ...binding, args: { id: 4 } })), /other arguments/);
  assert.match(
    await refusal(() => signer(() => now, 'another secret, also thirty-two characters').open(token, binding)),
    /integrity/,
  );
  now += 60_000;
  assert.match(
    await refusal(() => s.open(token, binding)),
    /expired \(a requestState is good for 1 minute\)/,
  );
});

test('the same secret gives the same key (replicas); none gives a random one; a short one warns', () => {
  const log = captureLogger();
  assert.deepEqual(stateKey('x'.repeat(40), log), stateKey('x'.repeat(40), log));
  assert.notDeepEqual(stateKey(undefined, log), stateKey(undefined, log));
  assert.equal(log.lines.length, 0);
  stateKey('short', log);
  assert.match(log.lines[0]!, /^warn: MCP_RUN_STATE_KEY is shorter than 32 characters/);
});

test('the arguments digest ignores key order, not values', () => {
  assert.equal(argumentsDigest({ a: 1, b: { c: [1, 2] } }), argumentsDigest({ b: { c: [1, 2] }, a: 1 }));
  assert.notEqual(argumentsDigest({ a: 1 }), argumentsDigest({ a: '1' }));
  assert.equal(argumentsDigest(undefined), argumentsDigest({}));
});

test('with a shared state, a token is used once across the processes that accept it', async () => {
  // Two replicas (or two workers) with one key and one store: a replay to the other is refused.
  const store = new MemoryState();
  const a = signer(Date.now, undefined, usedStatesOn(store, 'replica-a'));
  const b = signer(Date.now, undefined, usedStatesOn(store, 'replica-b'));
  const token = a.seal(binding, state);
  const opened = await a.open(token, binding);
  assert.match(await refusal(() => b.open(token, binding)), /already used/);
  // Given back (the retry failed before acting), the other may take it, once.
  a.release(opened);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual((await b.open(token, binding)).state, state);
  assert.match(await refusal(() => a.open(token, binding)), /already used/);
});

test('a shared state that does not answer refuses the retry rather than risk a second run', async () => {
  const down: UsedStates = {
    claim: () => Promise.reject(new Error('unreachable')),
    release: () => Promise.resolve(),
  };
  const s = signer(Date.now, undefined, down);
  const token = s.seal(binding, state);
  assert.match(await refusal(() => s.open(token, binding)), /cannot be checked now/);
});
