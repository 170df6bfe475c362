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

  /**
   * `seed`: hashes with different seeds differ for the same input (a kind of value, a purpose). It
   * is multiplied in, not only xored: seeds 4 and 5 would otherwise start one bit apart, a
   * difference the next 16-bit input can cancel (the text "A" hashed as the number 1.4e-312 did).
   */
  constructor(seed = 0) {
    this.h1 = Math.imul(0xdeadbeef ^ seed, M1);
    this.h2 = Math.imul(0x41c6ce57 ^ seed, M2);
  }

  /** Starts again, as a new one with `seed`: one object can hash many short inputs in turn. */
  reset(seed = 0): this {
    this.h1 = Math.imul(0xdeadbeef ^ seed, M1);
    this.h2 = Math.imul(0x41c6ce57 ^ seed, M2);
    return this;
  }

  /**
   * Mixes in one word: the low 32 bits of `word`, as two 16-bit halves, as a text's characters are.
   * A step multiplies, which carries a bit only upwards: mixed in whole, a word's top bit reached
   * nothing but the top bit, and the same flip in two words cancelled out (`1` and
   * `-1.0000004768371582`, whose doubles differ so, hashed alike).
   */
  add(word: number): this {
    const low = word & 0xffff;
    const high = word >>> 16;
    this.h1 = Math.imul(Math.imul(this.h1 ^ low, M1) ^ high, M1);
    this.h2 = Math.imul(Math.imul(this.h2 ^ low, M2) ^ high, M2);
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
    const low = this.low();
    return 2 ** 32 * (this.high(low) & 0x1fffff) + (low >>> 0);
  }

  /** All 64 bits, as 16 hex digits. */
  hex(): string {
    const low = this.low();
    const hex = (word: number) => (word >>> 0).toString(16).padStart(8, '0');
    return hex(this.high(low)) + hex(low);
  }

  // cyrb53's last mix, one word each (two functions, so that a value is no array).
  private low(): number {
    const { h1, h2 } = this;
    return Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  }

  private high(low: number): number {
    const { h2 } = this;
    return Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(low ^ (low >>> 13), 3266489909);
  }
}
