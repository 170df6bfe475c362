/** The running hash behind the contract hash. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RunningHash } from '../../src/catalog/running-hash.js';

const hexOf = (...texts: string[]) => texts.reduce((h, t) => h.addText(t), new RunningHash()).hex();

test('the same texts hash alike, and any change of a text, of where texts part, or of the seed does not', () => {
  assert.match(hexOf('tools:\n  a: {}'), /^[0-9a-f]{16}$/);
  assert.equal(hexOf('tools:\n  a: {}'), hexOf('tools:\n  a: {}'));
  const seen = new Set([
    hexOf('tools:\n  a: {}'),
    hexOf('tools:\n  b: {}'),
    hexOf('ab', 'c'),
    hexOf('a', 'bc'),
    hexOf('abc'),
    hexOf(''),
    hexOf('', ''),
    new RunningHash(1).addText('abc').hex(),
    new RunningHash().add(1).hex(),
    new RunningHash().add(2).hex(),
  ]);
  assert.equal(seen.size, 10);
});

test('value() is the low 53 bits of the 64, an exact number', () => {
  for (const text of ['', 'a', 'manifest text', 'é ’ 😀']) {
    const hash = new RunningHash().addText(text);
    const value = hash.value();
    assert.ok(Number.isSafeInteger(value) && value >= 0);
    assert.equal(value, Number(BigInt(`0x${hash.hex()}`) & ((1n << 53n) - 1n)));
  }
});

test('a word is mixed in whole: a flip of its top bit in two words does not cancel out', () => {
  const top = 0x80000000;
  assert.notEqual(new RunningHash().add(top).add(top).hex(), new RunningHash().add(0).add(0).hex());
  assert.notEqual(
    new RunningHash().add(top).add(1).add(top).hex(),
    new RunningHash().add(0).add(1).add(0).hex(),
  );
});

test('seeds one bit apart give inputs no way back to the same state', () => {
  // Seed 5 then text "A" (its length 1, then 65) against seed 4 then the words 0 and 65.
  assert.notEqual(new RunningHash(5).addText('A').hex(), new RunningHash(4).add(0).add(65).hex());
  assert.notEqual(
    new RunningHash(5).addText('A').hex(),
    new RunningHash(4)
      .add(1 ^ 5 ^ 4)
      .add(65)
      .hex(),
  );
});
