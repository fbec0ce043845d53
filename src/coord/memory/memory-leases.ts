import { randomUUID } from 'node:crypto';
import type { Clock } from '../../core/clock.ts';

interface Holding {
  holder: string;
  expiresAt: number;
}

/**
 * The lease table of `MemoryCoordination`: who holds which name until when.
 * Each acquisition gets its own holder id, so a holder whose lease expired and
 * was taken over can neither extend nor release the new holder's lease.
 */
export class MemoryLeases {
  readonly #clock: Clock;
  readonly #holdings = new Map<string, Holding>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  get size(): number {
    return this.#holdings.size;
  }

  /** Answers the new holder's id, or null while someone else holds `name`. */
  acquire(name: string, ttlMs: number): string | null {
    if (this.#live(name) !== undefined) return null;
    const holder = randomUUID();
    this.#holdings.set(name, { holder, expiresAt: this.#clock.now() + ttlMs });
    return holder;
  }

  extend(name: string, holder: string, ttlMs: number): boolean {
    const holding = this.#live(name);
    if (holding?.holder !== holder) return false;
    holding.expiresAt = this.#clock.now() + ttlMs;
    return true;
  }

  release(name: string, holder: string): void {
    if (this.#holdings.get(name)?.holder === holder) this.#holdings.delete(name);
  }

  sweep(now: number): void {
    for (const [name, holding] of this.#holdings) {
      if (holding.expiresAt <= now) this.#holdings.delete(name);
    }
  }

  clear(): void {
    this.#holdings.clear();
  }

  #live(name: string): Holding | undefined {
    const holding = this.#holdings.get(name);
    if (holding === undefined || holding.expiresAt > this.#clock.now()) return holding;
    this.#holdings.delete(name);
    return undefined;
  }
}
