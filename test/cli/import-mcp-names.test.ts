/**
 * The resource names `mcp-run import mcp` writes (resourceNamer): always valid manifest names (the
 * resources' pattern, 64 characters at most), unique, and stable for the same list of names.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { resourceNamer } from '../../src/cli/import-mcp.js';
import { NAME_PATTERNS } from '../../src/manifest/envelope.js';

const VALID = new RegExp(NAME_PATTERNS.resources);

describe('resourceNamer', () => {
  test('a name repeated is numbered, and every key is valid and unique', () => {
    const place = resourceNamer();
    const keys = ['doc', 'doc', 'doc_2', 'doc', 'Dynamic Text', 'Dynamic Text'].map(place);
    assert.deepEqual(keys, ['doc', 'doc_2', 'doc_2_2', 'doc_3', 'Dynamic_Text', 'Dynamic_Text_2']);
  });

  test('a name over 64 characters is cut and ends in a hash of the whole; so are its repeats', () => {
    const place = resourceNamer();
    const long = 'a'.repeat(70);
    const other = `${'a'.repeat(69)}b`;
    const keys = [long, long, other, 'x'.repeat(63), 'x'.repeat(63)].map(place);
    for (const key of keys) assert.match(key, VALID, key);
    assert.equal(new Set(keys).size, keys.length);
    assert.equal(keys[0]!.length, 64);
    assert.match(keys[1]!, /_2$/);
    assert.notEqual(keys[0]!.slice(-8), keys[2]!.slice(-8), 'the hash tells two long names apart');
    assert.equal(keys[4]!.length, 64);
    assert.equal(resourceNamer()(long), keys[0], 'the same name gives the same key');
  });

  test('10,000 repeats of one name are 10,000 valid, distinct keys', () => {
    const place = resourceNamer();
    const keys = Array.from({ length: 10_000 }, () => place('r'.repeat(60)));
    assert.equal(new Set(keys).size, 10_000);
    for (const key of keys) assert.match(key, VALID);
  });

  test('a name of no valid character becomes "resource"', () => {
    assert.equal(resourceNamer()(''), 'resource');
  });
});
