import type { Leases } from './leases.ts';
import type { TokenBuckets } from './token-buckets.ts';

/** A coordination key in the namespace of one app: `app:<appId>:<part>:<part>…`. */
export function appKey(appId: string, ...parts: string[]): string {
  return ['app', appId, ...parts].join(':');
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
  ping(): Promise<void>;
  close(): Promise<void>;
}
