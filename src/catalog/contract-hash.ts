/**
 * The contract hash: 16 hex digits the initialize result carries (`_meta`), the same for two
 * manifests that differ only in formatting, comments, key order or list order (order is a list
 * change, not a contract change), and different when anything a client sees changed.
 *
 * Each value is hashed as it is walked, into a number: no canonical text is written. Writing one (a
 * string per part, each kept to name equal parts alike) allocated some 60 MB for an imported API of
 * a thousand tools, all of it while the first answer waited. Equal contents hash alike whatever
 * object holds them, and an object or string met again (compiled descriptors share their schemas,
 * and every schema says `type`) is looked up, not hashed again.
 *
 * The mixing is running-hash.ts's: a change detector, not a security hash.
 */

import { contractOf } from './diff.js';
import { RunningHash } from './running-hash.js';
import { isNameList } from './schema-diff.js';
import type { Catalog } from './types.js';

/** Each kind of value hashes with a seed of its own, so that kinds never hash alike. */
const NULL = 1;
const FALSE = 2;
const TRUE = 3;
const NUMBER = 4;
const STRING = 5;
const ARRAY = 6;
const OBJECT = 7;
const SET = 8;
const PAIR = 9;
const CONTRACT = 10;

const TWO_32 = 2 ** 32;

/** A number's 64 bits, read as two words. */
const FLOAT = new Float64Array(1);
const WORDS = new Uint32Array(FLOAT.buffer);

const NULL_HASH = new RunningHash(NULL).value();
const FALSE_HASH = new RunningHash(FALSE).value();
const TRUE_HASH = new RunningHash(TRUE).value();

/**
 * Hashes JSON values as a client reads them, each to a number of 53 bits (two words: `hash >>> 0`
 * and `hash / 2 ** 32`): an object's members in any order, a `required` list in any order
 * (schema-diff.ts `isNameList`), members JSON leaves out (undefined, functions) left out. What may
 * come in any order is hashed as the sum of its items' hashes, so nothing is sorted.
 */
class ValueHasher {
  private readonly objects = new Map<object, number>();
  private readonly strings = new Map<string, number>();
  /** For a hash of a few numbers, worked out once they are all known (no walk in between). */
  private readonly scratch = new RunningHash();

  of(value: unknown): number {
    switch (typeof value) {
      case 'string': {
        let hash = this.strings.get(value);
        if (hash === undefined) {
          hash = this.scratch.reset(STRING).addText(value).value();
          this.strings.set(value, hash);
        }
        return hash;
      }
      case 'number':
        return this.number(value);
      case 'boolean':
        return value ? TRUE_HASH : FALSE_HASH;
      case 'object': {
        if (value === null) return NULL_HASH;
        let hash = this.objects.get(value);
        if (hash === undefined) {
          hash = Array.isArray(value) ? this.list(value) : this.members(value as Record<string, unknown>);
          this.objects.set(value, hash);
        }
        return hash;
      }
      default:
        // Undefined or a function in an array: JSON writes null.
        return NULL_HASH;
    }
  }

  /** Items whose order means nothing (a list of entries, a `required` list): the sum of their hashes. */
  set(items: readonly unknown[]): number {
    let low = 0;
    let high = 0;
    for (const item of items) {
      const hash = this.of(item);
      low = (low + hash) >>> 0;
      high = (high + hash / TWO_32) >>> 0;
    }
    return this.scratch.reset(SET).add(items.length).add(low).add(high).value();
  }

  /** As JSON writes numbers: NaN and the infinities as null, -0 as 0. */
  private number(value: number): number {
    if (!Number.isFinite(value)) return NULL_HASH;
    FLOAT[0] = value === 0 ? 0 : value;
    return this.scratch.reset(NUMBER).add(WORDS[0]!).add(WORDS[1]!).value();
  }

  private list(items: readonly unknown[]): number {
    const hash = new RunningHash(ARRAY).add(items.length);
    for (const item of items) addHash(hash, this.of(item));
    return hash.value();
  }

  private members(record: Record<string, unknown>): number {
    let count = 0;
    let low = 0;
    let high = 0;
    for (const key of Object.keys(record)) {
      const value = record[key];
      if (value === undefined || typeof value === 'function') continue;
      const keyHash = this.of(key);
      const valueHash = isNameList(key, value) ? this.set(value) : this.of(value);
      const member = this.scratch.reset(PAIR);
      addHash(member, keyHash);
      addHash(member, valueHash);
      const hash = member.value();
      count++;
      low = (low + hash) >>> 0;
      high = (high + hash / TWO_32) >>> 0;
    }
    return this.scratch.reset(OBJECT).add(count).add(low).add(high).value();
  }
}

/** Mixes in a hash of 53 bits: its two words. */
function addHash(hash: RunningHash, value: number): void {
  hash.add(value).add(value / TWO_32);
}

const hashes = new WeakMap<Catalog, string>();

/**
 * The catalog's contract hash, worked out once per catalog, on first use. Each list is a set: its
 * order (manifest order) is a list change, not a contract change.
 */
export function contractHash(catalog: Catalog): string {
  let found = hashes.get(catalog);
  if (found === undefined) {
    const { tools, resources, templates, prompts } = contractOf(catalog);
    const values = new ValueHasher();
    const hash = new RunningHash(CONTRACT);
    for (const list of [tools, resources, templates, prompts]) addHash(hash, values.set(list));
    found = hash.hex();
    hashes.set(catalog, found);
  }
  return found;
}
