/**
 * A running 64-bit hash (cyrb53's mixing, by bryc, public domain), the contract hash's: a change
 * detector, not a security hash. Not node:crypto: loading it would cost a stdio start about 5 ms
 * before its first answer (util/lazy-node.ts), for a hash nobody needs to be unforgeable.
 */
const M1 = 2654435761;
const M2 = 1597334677;

export class RunningHash {
  private h1: number;
  private h2: number;

  /** `seed`: hashes with different seeds differ for the same input (a kind of value, a purpose). */
  constructor(seed = 0) {
    this.h1 = 0xdeadbeef ^ seed;
    this.h2 = 0x41c6ce57 ^ seed;
  }

  /** Mixes in one word: the low 32 bits of `word`. */
  add(word: number): this {
    this.h1 = Math.imul(this.h1 ^ word, M1);
    this.h2 = Math.imul(this.h2 ^ word, M2);
    return this;
  }

  /** Mixes in a text, its length first (so `ab`, `c` and `a`, `bc` differ). */
  addText(text: string): this {
    let h1 = Math.imul(this.h1 ^ text.length, M1);
    let h2 = Math.imul(this.h2 ^ text.length, M2);
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, M1);
      h2 = Math.imul(h2 ^ c, M2);
    }
    this.h1 = h1;
    this.h2 = h2;
    return this;
  }

  /** 53 of the 64 bits, as an exact number (`value >>> 0` and `value / 2 ** 32` are its two words). */
  value(): number {
    const [low, high] = this.final();
    return 2 ** 32 * (high & 0x1fffff) + low;
  }

  /** All 64 bits, as 16 hex digits. */
  hex(): string {
    const [low, high] = this.final();
    return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
  }

  private final(): [number, number] {
    const { h1, h2 } = this;
    const a = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    const b = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909);
    return [a >>> 0, b >>> 0];
  }
}
