/**
 * A small seeded generator (mulberry32): the same seed gives the same
 * numbers on every machine, so a fuzz case is replayed from its seed alone.
 */
export class SeededRandom {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** The generator of case `index` of a run seeded with `seed`. */
  static forCase(seed: number, index: number): SeededRandom {
    return new SeededRandom((seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, below). */
  below(below: number): number {
    return Math.floor(this.next() * below);
  }

  /** An integer in [from, to]. */
  between(from: number, to: number): number {
    return from + this.below(to - from + 1);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)] as T;
  }

  bytes(length: number): Buffer {
    const out = Buffer.alloc(length);
    for (let index = 0; index < length; index += 1) out[index] = this.below(256);
    return out;
  }

  /** A length most often small, now and then up to `most`. */
  length(most: number): number {
    const roll = this.next();
    if (roll < 0.3) return 0;
    if (roll < 0.7) return this.between(1, Math.min(16, most));
    if (roll < 0.9) return this.between(1, Math.min(256, most));
    return this.between(1, most);
  }
}
