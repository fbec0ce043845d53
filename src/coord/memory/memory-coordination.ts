import type { Clock } from '../../core/clock.ts';
import type { AttemptLimit, AttemptReservation, Coordination } from '../../core/ports/coordination.ts';
import type { Lease } from '../../core/ports/leases.ts';
import type { TokenGrant, TokenRequest } from '../../core/ports/token-buckets.ts';
import { checkAttemptLimit, checkLeaseName, checkTokenRequest, checkTtl } from '../coordination-arguments.ts';
import { msUntilFull, takeFromBucket, type BucketState } from '../token-bucket.ts';
import { MemoryLeases } from './memory-leases.ts';

export interface MemoryCoordinationOptions {
  /** Time that TTLs are measured by. */
  clock: Clock;
  /** How often expired entries are purged when nobody reads them; default one minute. */
  sweepIntervalMs?: number;
}

interface Entry {
  value: string;
  expiresAt: number;
}

interface EventWindow {
  /** Event times, ascending. */
  times: number[];
  /** When the newest event leaves its window, so the whole key can go. */
  expiresAt: number;
  /** Attempts reserved with `pendingMs` and not settled yet, with when each stops being pending. */
  pending?: Map<string, number>;
}

interface Bucket extends BucketState {
  /** When the bucket is full again and its state can go. */
  expiresAt: number;
}

/**
 * The embedded `Coordination`: one process, plain maps. Expired keys read as
 * absent at once and are dropped on access or by a periodic sweep, so keys that
 * are written once and never read again do not accumulate.
 *
 * Every operation completes synchronously inside its promise, which is what makes
 * `setIfAbsent`, `take`, `takeTokens` and leases atomic here.
 */
export class MemoryCoordination implements Coordination {
  readonly #clock: Clock;
  readonly #entries = new Map<string, Entry>();
  readonly #events = new Map<string, EventWindow>();
  readonly #buckets = new Map<string, Bucket>();
  readonly #leases: MemoryLeases;
  /** Numbers the attempts `reserveAttempt` answers. */
  #attempts = 0;
  #sweeper: NodeJS.Timeout | null;
  #closed = false;

  constructor(options: MemoryCoordinationOptions) {
    this.#clock = options.clock;
    this.#leases = new MemoryLeases(options.clock);
    this.#sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 60_000);
    // The sweep is housekeeping; it must not keep the process alive on shutdown.
    this.#sweeper.unref();
  }

  /** Keys held, expired ones not yet purged included; for metrics and tests. */
  get size(): number {
    return this.#entries.size + this.#events.size + this.#buckets.size + this.#leases.size;
  }

  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    return this.#run(() => {
      checkTtl(ttlMs);
      if (this.#live(key) !== undefined) return false;
      this.#entries.set(key, { value, expiresAt: this.#clock.now() + ttlMs });
      return true;
    });
  }

  set(key: string, value: string, ttlMs: number): Promise<void> {
    return this.#run(() => {
      checkTtl(ttlMs);
      this.#entries.set(key, { value, expiresAt: this.#clock.now() + ttlMs });
    });
  }

  get(key: string): Promise<string | null> {
    return this.#run(() => this.#live(key)?.value ?? null);
  }

  take(key: string): Promise<string | null> {
    return this.#run(() => {
      const entry = this.#live(key);
      this.#entries.delete(key);
      return entry?.value ?? null;
    });
  }

  delete(key: string): Promise<void> {
    return this.#run(() => {
      this.#entries.delete(key);
      this.#events.delete(key);
      this.#buckets.delete(key);
    });
  }

  recordEvent(key: string, now: number, windowMs: number): Promise<number> {
    return this.#run(() => {
      checkTtl(windowMs);
      const window = this.#window(key, now, windowMs);
      insertSorted(window.times, now);
      window.expiresAt = Math.max(window.expiresAt, now + windowMs);
      return window.times.length;
    });
  }

  reserveAttempt(windowKey: string, lockKey: string | null, limit: AttemptLimit): Promise<AttemptReservation> {
    return this.#run(() => {
      checkAttemptLimit(limit);
      const { now, windowMs, max, lockMs } = limit;
      const lockedUntil = lockKey === null ? 0 : Number(this.#live(lockKey)?.value ?? 0);
      const window = this.#window(windowKey, now, windowMs);
      if (lockedUntil > now) return refused(window.times.length, lockedUntil);
      if (window.times.length >= max) {
        if (stillPending(window, now)) return { ...refused(window.times.length, 0), busy: true };
        if (lockKey === null || lockMs === 0) return refused(window.times.length, 0);
        this.#entries.set(lockKey, { value: String(now + lockMs), expiresAt: this.#clock.now() + lockMs });
        return refused(window.times.length, now + lockMs);
      }
      insertSorted(window.times, now);
      window.expiresAt = Math.max(window.expiresAt, now + windowMs);
      const attempt = `a${++this.#attempts}`;
      if (limit.pendingMs !== undefined) (window.pending ??= new Map()).set(attempt, now + limit.pendingMs);
      return { allowed: true, count: window.times.length, lockedUntil: 0, busy: false, attempt };
    });
  }

  settleAttempt(windowKey: string, attempt: string): Promise<void> {
    return this.#run(() => {
      this.#events.get(windowKey)?.pending?.delete(attempt);
    });
  }

  takeTokens(key: string, request: TokenRequest): Promise<TokenGrant> {
    return this.#run(() => {
      checkTokenRequest(request);
      const { state, grant } = takeFromBucket(this.#liveBucket(key), request);
      // Expiry runs on the adapter clock, as a Redis key's does on the server's.
      this.#buckets.set(key, { ...state, expiresAt: this.#clock.now() + msUntilFull(state, request) });
      return grant;
    });
  }

  acquireLease(name: string, ttlMs: number): Promise<Lease | null> {
    return this.#run(() => {
      checkLeaseName(name);
      checkTtl(ttlMs);
      const holder = this.#leases.acquire(name, ttlMs);
      return holder === null ? null : this.#lease(name, holder);
    });
  }

  ping(): Promise<void> {
    return this.#run(() => undefined);
  }

  /** Stops the sweep and forgets every key; idempotent. */
  close(): Promise<void> {
    if (this.#sweeper !== null) clearInterval(this.#sweeper);
    this.#sweeper = null;
    this.#closed = true;
    this.#entries.clear();
    this.#events.clear();
    this.#buckets.clear();
    this.#leases.clear();
    return Promise.resolve();
  }

  /** Drops every expired key; runs on the sweep interval. */
  sweep(): void {
    const now = this.#clock.now();
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt <= now) this.#entries.delete(key);
    }
    for (const [key, window] of this.#events) {
      if (window.expiresAt <= now) this.#events.delete(key);
    }
    for (const [key, bucket] of this.#buckets) {
      if (bucket.expiresAt <= now) this.#buckets.delete(key);
    }
    this.#leases.sweep(now);
  }

  #lease(name: string, holder: string): Lease {
    return {
      name,
      extend: (ttlMs) =>
        this.#run(() => {
          checkTtl(ttlMs);
          return this.#leases.extend(name, holder, ttlMs);
        }),
      release: () => this.#run(() => this.#leases.release(name, holder)),
    };
  }

  #liveBucket(key: string): BucketState | undefined {
    const bucket = this.#buckets.get(key);
    if (bucket === undefined || bucket.expiresAt > this.#clock.now()) return bucket;
    this.#buckets.delete(key);
    return undefined;
  }

  /** The events at `key` inside the window ending at `now`; created when absent. */
  #window(key: string, now: number, windowMs: number): EventWindow {
    const window = this.#events.get(key) ?? { times: [], expiresAt: 0 };
    // Events at or before `now - windowMs` are outside the window ending at `now`.
    const firstInside = window.times.findIndex((time) => time > now - windowMs);
    window.times.splice(0, firstInside === -1 ? window.times.length : firstInside);
    this.#events.set(key, window);
    return window;
  }

  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.expiresAt > this.#clock.now()) return entry;
    this.#entries.delete(key);
    return undefined;
  }

  // Errors become rejections, as they would from a networked adapter.
  #run<T>(operation: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('coordination is closed'));
    try {
      return Promise.resolve(operation());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

function refused(count: number, lockedUntil: number): AttemptReservation {
  return { allowed: false, count, lockedUntil, busy: false, attempt: '' };
}

/** Whether an attempt of the window is still pending at `now` (pendingMs is at most the window); forgets those that are not. */
function stillPending(window: EventWindow, now: number): boolean {
  if (window.pending === undefined) return false;
  for (const [attempt, until] of window.pending) {
    if (until > now) return true;
    window.pending.delete(attempt);
  }
  return false;
}

// Callers pass `now` from their own clock reads, so events usually arrive in
// order; the scan from the end keeps that case constant-time.
function insertSorted(times: number[], time: number): void {
  let index = times.length;
  while (index > 0 && (times[index - 1] ?? 0) > time) index -= 1;
  times.splice(index, 0, time);
}
