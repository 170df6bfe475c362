/** The requestState signer on its own: binding, expiry, single use, keys. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { argumentsDigest, StateSigner, stateKey } from '../../src/protocol/request-state.js';
import { captureLogger } from '../protocol/harness.js';

const binding = { method: 'tools/call', name: 'delete_note', args: { id: 3, tags: ['a', 'b'] } };
const state = { values: { reason: 'done' }, done: ['ask'] };

function signer(now = () => 1_000_000, secret = 'a secret of thirty-two characters or more!') {
  return new StateSigner(stateKey(secret, captureLogger()), 60_000, now);
}

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    assert.equal((err as { code?: number }).code, -32602);
    return (err as Error).message;
  }
  return assert.fail('expected a refusal');
};

test('a sealed state opens once, for the same call, with what it carried', () => {
  const s = signer();
  const token = s.seal(binding, state);
  assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  // Arguments bind by value, whatever the key order.
  const opened = s.open(token, { ...binding, args: { tags: ['a', 'b'], id: 3 } });
  assert.deepEqual(opened.state, state);
  assert.match(
    refusal(() => s.open(token, binding)),
    /already used/,
  );
});

test('a reservation given back (the retry failed before acting) may be used again', () => {
  const s = signer();
  const token = s.seal(binding, state);
  s.release(s.open(token, binding));
  assert.deepEqual(s.open(token, binding).state, state);
});

test('other call, other arguments, expiry and another key are each refused with their reason', () => {
  let now = 1_000_000;
  const s = signer(() => now);
  const token = s.seal(binding, state);
  assert.match(
    refusal(() => s.open(token, { ...binding, name: 'read_note' })),
    /issued for tools\/call "delete_note"/,
  );
  assert.match(
    refusal(() => s.open(token, { ...binding, method: 'prompts/get' })),
    /issued for tools\/call/,
  );
  assert.match(
    refusal(() => s.open(token, { ...binding, args: { id: 4 } })),
    /other arguments/,
  );
  assert.match(
    refusal(() => signer(() => now, 'another secret, also thirty-two characters').open(token, binding)),
    /integrity/,
  );
  now += 60_000;
  assert.match(
    refusal(() => s.open(token, binding)),
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
