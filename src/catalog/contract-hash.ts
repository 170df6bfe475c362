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
 * The mixing is cyrb53's (by bryc, public domain): a change detector, not a security hash. Not
 * node:crypto: loading it would cost a stdio start about 5 ms before its first answer
 * (src/util/lazy-node.ts), for a hash nobody needs to be unforgeable.
 */
import { contractOf } from './diff.js';
import { isNameList } from './schema-diff.js';
import type { Catalog } from './types.js';

/**
 * What each kind of JSON value is marked with before its content, so that kinds never hash alike:
 * the two starting words of its hash.
 */
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

const M1 = 2654435761;
const M2 = 1597334677;
const TWO_32 = 2 ** 32;

/** A number's 64 bits, read as two words. */
const FLOAT = new Float64Array(1);
const WORDS = new Uint32Array(FLOAT.buffer);

/**
 * Hashes JSON values as a client reads them, each to a number of 53 bits (two words: `hash >>> 0`
 * and `hash / 2 ** 32`): an object's members in any order, a `required` list in any order
 * (schema-diff.ts `isNameList`), members JSON leaves out (undefined, functions) left out. What may
 * come in any order is hashed as the sum of its items' hashes, so nothing is sorted.
 */
class ValueHasher {
  private readonly objects = new Map<object, number>();
  private readonly strings = new Map<string, number>();

  of(value: unknown): number {
    switch (typeof value) {
      case 'string': {
        let hash = this.strings.get(value);
        if (hash === undefined) {
          hash = textHash(value);
          this.strings.set(value, hash);
        }
        return hash;
      }
      case 'number':
        return numberHash(value);
      case 'boolean':
        return words(value ? TRUE : FALSE);
      case 'object': {
        if (value === null) return words(NULL);
        let hash = this.objects.get(value);
        if (hash === undefined) {
          hash = Array.isArray(value) ? this.list(value) : this.members(value as Record<string, unknown>);
          this.objects.set(value, hash);
        }
        return hash;
      }
      default:
        // Undefined or a function in an array: JSON writes null.
        return words(NULL);
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
    return words(SET, items.length, low, high);
  }

  private list(items: readonly unknown[]): number {
    let h1 = Math.imul(0xdeadbeef ^ ARRAY, M1);
    let h2 = Math.imul(0x41c6ce57 ^ ARRAY, M2);
    for (const item of items) {
      const hash = this.of(item);
      h1 = Math.imul(Math.imul(h1 ^ hash, M1) ^ (hash / TWO_32), M1);
      h2 = Math.imul(Math.imul(h2 ^ hash, M2) ^ (hash / TWO_32), M2);
    }
    return finish(h1, h2);
  }

  private members(record: Record<string, unknown>): number {
    let count = 0;
    let low = 0;
    let high = 0;
    for (const key of Object.keys(record)) {
      const value = record[key];
      if (value === undefined || typeof value === 'function') continue;
      const member = pair(this.of(key), isNameList(key, value) ? this.set(value) : this.of(value));
      count++;
      low = (low + member) >>> 0;
      high = (high + member / TWO_32) >>> 0;
    }
    return words(OBJECT, count, low, high);
  }
}

/** cyrb53's last mix: 53 bits of the two words, as an exact number. */
function finish(h1: number, h2: number): number {
  const a = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  const b = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909);
  return TWO_32 * (b & 0x1fffff) + (a >>> 0);
}

/** The hash of a tag and up to four words (each taken as its low 32 bits). */
function words(tag: number, a = 0, b = 0, c = 0, d = 0): number {
  let h1 = Math.imul(0xdeadbeef ^ tag, M1);
  let h2 = Math.imul(0x41c6ce57 ^ tag, M2);
  h1 = Math.imul(Math.imul(Math.imul(Math.imul(h1 ^ a, M1) ^ b, M1) ^ c, M1) ^ d, M1);
  h2 = Math.imul(Math.imul(Math.imul(Math.imul(h2 ^ a, M2) ^ b, M2) ^ c, M2) ^ d, M2);
  return finish(h1, h2);
}

/** A member: its key's hash and its value's, in that order. */
function pair(key: number, value: number): number {
  return words(PAIR, key, key / TWO_32, value, value / TWO_32);
}

function textHash(text: string): number {
  let h1 = Math.imul(Math.imul(0xdeadbeef ^ STRING, M1) ^ text.length, M1);
  let h2 = Math.imul(Math.imul(0x41c6ce57 ^ STRING, M2) ^ text.length, M2);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, M1);
    h2 = Math.imul(h2 ^ c, M2);
  }
  return finish(h1, h2);
}

/** As JSON writes numbers: NaN and the infinities as null, -0 as 0. */
function numberHash(value: number): number {
  if (!Number.isFinite(value)) return words(NULL);
  FLOAT[0] = value === 0 ? 0 : value;
  return words(NUMBER, WORDS[0]!, WORDS[1]!);
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
    let h1 = Math.imul(0xdeadbeef ^ CONTRACT, M1);
    let h2 = Math.imul(0x41c6ce57 ^ CONTRACT, M2);
    for (const list of [tools, resources, templates, prompts]) {
      const hash = values.set(list);
      h1 = Math.imul(Math.imul(h1 ^ hash, M1) ^ (hash / TWO_32), M1);
      h2 = Math.imul(Math.imul(h2 ^ hash, M2) ^ (hash / TWO_32), M2);
    }
    found = hex(h1, h2);
    hashes.set(catalog, found);
  }
  return found;
}

/** All 64 bits of the last mix, as 16 hex digits. */
function hex(h1: number, h2: number): string {
  const a = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  const b = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909);
  return (b >>> 0).toString(16).padStart(8, '0') + (a >>> 0).toString(16).padStart(8, '0');
}
