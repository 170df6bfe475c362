/**
 * "Did you mean" (src/util/suggest.ts): a typo, a transposition and a missing letter are offered
 * their name; a far name is not; and a caller's over-long input gets no suggestion at all (it is
 * never a typo, and the distance table over it is the work a caller would otherwise buy).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { suggest } from '../../src/util/suggest.js';

const NAMES = ['pets_list', 'pet_adopt', 'own_group', 'ping'];

test('a typo, a transposition or a missing letter is offered the closest name', () => {
  assert.equal(suggest('pets_lsit', NAMES), 'pets_list');
  assert.equal(suggest('pet_adpot', NAMES), 'pet_adopt');
  assert.equal(suggest('pong', NAMES), 'ping');
  assert.equal(suggest('PING', NAMES), 'ping');
  assert.equal(suggest('own_grop', NAMES), 'own_group');
});

test('a name far from every candidate gets none', () => {
  assert.equal(suggest('weather', NAMES), undefined);
  assert.equal(suggest('x', []), undefined);
});

test('an input over 128 characters gets none, even one letter off a candidate', () => {
  const long = `${'a'.repeat(150)}_tool`;
  assert.equal(suggest(`${long.slice(0, -1)}x`, [long]), undefined);
  assert.equal(suggest('a'.repeat(120), ['a'.repeat(121)]), 'a'.repeat(121), 'up to 128, as before');
});

test('an input more than twice the longest candidate gets none, however long', () => {
  assert.equal(suggest('p'.repeat(100_000), NAMES), undefined);
  assert.equal(suggest('pingpingpi', ['ping']), undefined);
});
