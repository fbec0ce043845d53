/** One request for tokens from a bucket. */
export interface TokenRequest {
  /** Tokens added per second, shared by every caller of the bucket. */
  ratePerSecond: number;
  /** Most tokens the bucket holds, so the most a quiet bucket grants at once; a whole number, at least 1. */
  burst: number;
  /** Tokens wanted now; a whole number, at least 1. May exceed `burst`, which is then the most granted. */
  requested: number;
  /** The caller's clock reading, in milliseconds. */
  now: number;
  /**
   * Tokens of an earlier grant the caller gives back unspent (it could not
   * send on them in time), put back before this take: never above `burst`,
   * so a bucket holds no more than it would have. A whole number; absent: 0.
   */
  returned?: number;
}

/** What a bucket gave. */
export interface TokenGrant {
  /** Tokens taken, from 0 up to the request. */
  granted: number;
  /**
   * 0 when the whole request was granted; otherwise how long until the rest of
   * it (at most `burst`) will have refilled, were nobody else taking.
   */
  retryAfterMs: number;
}

/**
 * Token buckets shared by every node: one global rate per key however many
 * senders draw on it (a push's `flow_control`). Taking is atomic. Time comes in
 * with each request, like `Coordination.recordEvent`, so the refill follows the
 * callers' clocks; a reading older than the bucket's last one refills nothing.
 */
export interface TokenBuckets {
  /** Takes up to `request.requested` tokens from the bucket at `key`; a bucket not seen before starts full. */
  takeTokens(key: string, request: TokenRequest): Promise<TokenGrant>;
}
