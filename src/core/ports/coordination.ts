import type { Leases } from './leases.ts';
import type { TokenBuckets } from './token-buckets.ts';

/** A coordination key in the namespace of one app: `app:<appId>:<part>:<part>…`. */
export function appKey(appId: string, ...parts: string[]): string {
  return ['app', appId, ...parts].join(':');
}

/** One attempt to reserve under a limit; times are the caller's, as for `recordEvent`. */
export interface AttemptLimit {
  now: number;
  /** Length of the sliding window attempts are counted in. */
  windowMs: number;
  /** Most attempts the window may hold. */
  max: number;
  /** How long a refusal for a full window locks `lockKey`; ignored without one. */
  lockMs: number;
  /**
   * When given, the attempt is *pending* until `settleAttempt` (or for this
   * long at most, then taken as judged): a full window that still holds a
   * pending attempt refuses as `busy` and sets no lock, since what locks is
   * attempts that failed, not attempts under way.
   */
  pendingMs?: number;
}

/** What `reserveAttempt` decided. */
export interface AttemptReservation {
  /** Whether the attempt may go ahead; it has then been counted. */
  allowed: boolean;
  /** Attempts in the window, this one included when allowed. */
  count: number;
  /** When the lock ends (caller's time), or 0 when the subject is not locked. */
  lockedUntil: number;
  /** Refused only because the window is full of attempts some of which are still pending; nothing was locked. */
  busy: boolean;
  /** The attempt, for `settleAttempt`; empty when refused. */
  attempt: string;
}

/**
 * Short-lived shared state between nodes: counters, flags and codes with
 * expiry, token buckets and leases. Keys are namespaced per app by the caller.
 * Components that need only buckets or leases depend on `TokenBuckets` or
 * `Leases`; the adapter serves all three.
 *
 * Adapters backed by a server reject with `ServiceUnavailableError` while it
 * cannot be reached, promptly rather than by queueing.
 */
export interface Coordination extends TokenBuckets, Leases {
  /** Sets `key` only when absent; answers whether it was set. Also the `req_id` dedup claim. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  get(key: string): Promise<string | null>;
  /** Reads and removes `key` in one step. */
  take(key: string): Promise<string | null>;
  delete(key: string): Promise<void>;
  /**
   * Records one event at `now` in a sliding window and answers how many events
   * the window of `windowMs` ending at `now` holds, this one included.
   */
  recordEvent(key: string, now: number, windowMs: number): Promise<number>;
  /**
   * Reserves one attempt before it is made, in one atomic step, so that a burst
   * of concurrent callers cannot get more than `max` attempts into a window:
   * refused while `lockKey` holds a lock that has not ended at `limit.now`;
   * refused when the window at `windowKey` already holds `max` attempts (then,
   * with a `lockKey`, the lock is set for `lockMs`); otherwise recorded and
   * allowed. A refused attempt is not counted. Deleting `windowKey` forgets
   * the attempts. With `limit.pendingMs`, a full window holding a pending
   * attempt refuses as `busy`, without locking.
   */
  reserveAttempt(windowKey: string, lockKey: string | null, limit: AttemptLimit): Promise<AttemptReservation>;
  /** Marks a pending attempt judged (it stays counted); nothing when it is gone or was never pending. */
  settleAttempt(windowKey: string, attempt: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
