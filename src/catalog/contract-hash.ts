/**
 * The contract hash: 16 hex digits the initialize result carries (`_meta`), the same for two
 * manifests that differ only in formatting, comments, key order or list order (order is a list
 * change, not a contract change), and different when anything a client sees changed.
 *
 * Each value is hashed as it is walked, into a number per object: no canonical text is written.
 * Writing one (a string per part, each kept to name equal parts alike) allocated some 60 MB for an
 * imported API of a thousand tools, all of it while the first answer waited. Equal contents hash
 * alike whatever object holds them, and an object met again (compiled descriptors share their
 * schemas) is looked up, not walked.
 */
import { contractOf } from './diff.js';
import { isNameList } from './schema-diff.js';
import type { Catalog } from './types.js';

/**
 * A running 64-bit hash (cyrb53's mixing, by bryc, public domain): a change detector, not a
 * security hash. Not node:crypto: loading it would cost a stdio start about 5 ms before its first
 * answer (src/util/lazy-node.ts), for a hash nobody needs to be unforgeable.
 */
class RunningHash {
  private h1 = 0xdeadbeef;
  private h2 = 0x41c6ce57;

  /** Starts again, as a new one: one object hashes each member of an object in turn. */
  reset(): void {
    this.h1 = 0xdeadbeef;
    this.h2 = 0x41c6ce57;
  }

  /** Mixes in one 32-bit number (a character code, a tag, half of a nested hash). */
  add(word: number): void {
    this.h1 = Math.imul(this.h1 ^ word, 2654435761);
    this.h2 = Math.imul(this.h2 ^ word, 1597334677);
  }

  /** Mixes in a string, its length first: `ab`,`c` and `a`,`bc` differ. */
  addText(text: string): void {
    let { h1, h2 } = this;
    h1 = Math.imul(h1 ^ text.length, 2654435761);
    h2 = Math.imul(h2 ^ text.length, 1597334677);
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    this.h1 = h1;
    this.h2 = h2;
  }

  /** The final 64 bits, as two 32-bit halves. */
  private final(): [number, number] {
    let { h1, h2 } = this;
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return [h1 >>> 0, h2 >>> 0];
  }

  /** 16 hex digits. */
  hex(): string {
    const [h1, h2] = this.final();
    return h2.toString(16).padStart(8, '0') + h1.toString(16).padStart(8, '0');
  }

  /** 53 of the 64 bits, as an exact number: what an enclosing value mixes in. */
  value(): number {
    const [h1, h2] = this.final();
    return (h2 >>> 11) * 2 ** 32 + h1;
  }
}

/** What each kind of JSON value is marked with before its content, so that kinds never hash alike. */
const NULL = 1;
const FALSE = 2;
const TRUE = 3;
const NUMBER = 4;
const STRING = 5;
const ARRAY = 6;
const OBJECT = 7;
const SET = 8;

/** A number's 64 bits, read as two words. */
const FLOAT = new Float64Array(1);
const WORDS = new Uint32Array(FLOAT.buffer);

/**
 * Hashes JSON values as a client reads them: object members in any order, `required` lists in any
 * order (schema-diff.ts `isNameList`), members JSON leaves out (undefined, functions) left out.
 * What may come in any order is hashed as a sum of its items' hashes, so nothing is sorted.
 */
class ValueHasher {
  private readonly known = new Map<object, number>();

  /** Mixes `value` into `hash`; an object or array by its own hash, worked out once. */
  mix(hash: RunningHash, value: unknown): void {
    switch (typeof value) {
      case 'string':
        hash.add(STRING);
        hash.addText(value);
        return;
      case 'number':
        // As JSON writes them: NaN and the infinities as null, -0 as 0.
        if (!Number.isFinite(value)) hash.add(NULL);
        else {
          FLOAT[0] = value === 0 ? 0 : value;
          hash.add(NUMBER);
          hash.add(WORDS[0]!);
          hash.add(WORDS[1]!);
        }
        return;
      case 'boolean':
        hash.add(value ? TRUE : FALSE);
        return;
      case 'object':
        if (value === null) hash.add(NULL);
        else addNumber(hash, this.of(value));
        return;
      default:
        // Undefined or a function in an array: JSON writes null.
        hash.add(NULL);
    }
  }

  private of(value: object): number {
    let own = this.known.get(value);
    if (own !== undefined) return own;
    const hash = new RunningHash();
    if (Array.isArray(value)) {
      hash.add(ARRAY);
      hash.add(value.length);
      for (const item of value) this.mix(hash, item);
    } else this.members(hash, value as Record<string, unknown>);
    own = hash.value();
    this.known.set(value, own);
    return own;
  }

  /** Mixes in items whose order means nothing: the sum of their hashes. */
  unordered(hash: RunningHash, items: readonly unknown[]): void {
    const sum = new Sum();
    const item = new RunningHash();
    for (const value of items) {
      item.reset();
      this.mix(item, value);
      sum.add(item.value());
    }
    hash.add(SET);
    sum.into(hash);
  }

  private members(hash: RunningHash, record: Record<string, unknown>): void {
    const sum = new Sum();
    const member = new RunningHash();
    for (const key of Object.keys(record)) {
      const value = record[key];
      if (value === undefined || typeof value === 'function') continue;
      member.reset();
      member.addText(key);
      if (isNameList(key, value)) this.unordered(member, value);
      else this.mix(member, value);
      sum.add(member.value());
    }
    hash.add(OBJECT);
    sum.into(hash);
  }
}

/** Hashes taken in any order: how many, and their sum. */
class Sum {
  private count = 0;
  private low = 0;
  private high = 0;

  add(hash: number): void {
    this.count++;
    this.low = (this.low + (hash >>> 0)) >>> 0;
    this.high = (this.high + Math.floor(hash / 2 ** 32)) >>> 0;
  }

  into(hash: RunningHash): void {
    hash.add(this.count);
    hash.add(this.low);
    hash.add(this.high);
  }
}

/** Mixes in a nested hash (53 bits) as its two halves. */
function addNumber(hash: RunningHash, value: number): void {
  hash.add(Math.floor(value / 2 ** 32));
  hash.add(value >>> 0);
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
    const hash = new RunningHash();
    const values = new ValueHasher();
    for (const list of [tools, resources, templates, prompts]) values.unordered(hash, list);
    found = hash.hex();
    hashes.set(catalog, found);
  }
  return found;
}
