import type { Redis } from 'ioredis';
import Redlock, { ExecutionError, ResourceLockedError, type Lock } from 'redlock';
import type { Lease, Leases } from '../../core/ports/leases.ts';
import { checkLeaseName, checkTtl } from '../coordination-arguments.ts';

/** How `RedisLeases` runs a call: refusing once closed and mapping errors, as every other call. */
export interface RedisCallGuard {
  run<T>(operation: () => Promise<T>): Promise<T>;
}

/**
 * Leases as redlock locks under `lease:<name>` (after the key prefix). One
 * attempt per call, no retry loop: a would-be leader polls `acquireLease`
 * itself, and an outage must surface at once rather than after retries.
 */
export class RedisLeases implements Leases {
  readonly #redlock: Redlock;
  readonly #guard: RedisCallGuard;

  constructor(client: Redis, guard: RedisCallGuard) {
    this.#redlock = new Redlock([client], { retryCount: 0 });
    this.#guard = guard;
  }

  async acquireLease(name: string, ttlMs: number): Promise<Lease | null> {
    checkLeaseName(name);
    checkTtl(ttlMs);
    const lock = await this.#guard.run(() => unlessLocked(() => this.#redlock.acquire([leaseKey(name)], Math.ceil(ttlMs))));
    return lock === null ? null : new RedisLease(name, lock, this.#guard);
  }
}

class RedisLease implements Lease {
  readonly name: string;
  readonly #guard: RedisCallGuard;
  #lock: Lock;

  constructor(name: string, lock: Lock, guard: RedisCallGuard) {
    this.name = name;
    this.#lock = lock;
    this.#guard = guard;
  }

  async extend(ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    const extended = await this.#guard.run(() => unlessLocked(() => this.#lock.extend(Math.ceil(ttlMs))));
    if (extended === null) return false;
    this.#lock = extended;
    return true;
  }

  async release(): Promise<void> {
    // Releasing a lease that expired or was taken over deletes nothing: harmless.
    await this.#guard.run(() => unlessLocked(() => this.#lock.release()));
  }
}

function leaseKey(name: string): string {
  return `lease:${name}`;
}

/**
 * Runs a redlock operation; answers null when the lease is held under another
 * value (or, for `extend`, already expired here), and rethrows the client's own
 * error when the server could not be asked.
 */
async function unlessLocked<T>(operation: () => Promise<T>): Promise<T | null> {
  try {
    return await operation();
  } catch (error) {
    if (!(error instanceof ExecutionError)) throw error;
    const stats = await Promise.all(error.attempts);
    const against = stats.flatMap((attempt) => [...attempt.votesAgainst.values()]);
    const [unreachable] = against;
    if (unreachable === undefined || against.some((reason) => reason instanceof ResourceLockedError)) return null;
    throw unreachable;
  }
}
