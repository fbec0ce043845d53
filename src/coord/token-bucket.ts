import type { TokenGrant, TokenRequest } from '../core/ports/token-buckets.ts';

/** A bucket between two takes. */
export interface BucketState {
  /** Tokens left, fractions included. */
  tokens: number;
  /** The newest caller time the bucket was refilled to. */
  updatedAt: number;
}

/**
 * One take from a bucket: refill for the time since `updatedAt`, put back
 * what the caller returns (up to the burst), grant what is there, and say
 * when the rest will be. `redis/scripts/token-bucket-1.lua` is
 * the same arithmetic; keep the two in step.
 */
export function takeFromBucket(state: BucketState | undefined, request: TokenRequest): { state: BucketState; grant: TokenGrant } {
  const { ratePerSecond, burst, requested, now } = request;
  let tokens = state?.tokens ?? burst;
  let updatedAt = state?.updatedAt ?? now;
  // A caller whose clock lags another's must neither refill backwards nor twice.
  if (now > updatedAt) {
    tokens = Math.min(burst, tokens + ((now - updatedAt) * ratePerSecond) / 1000);
    updatedAt = now;
  }
  const returned = request.returned ?? 0;
  if (returned > 0) tokens = Math.min(burst, tokens + returned);
  const granted = Math.min(requested, Math.floor(tokens));
  tokens -= granted;
  let retryAfterMs = 0;
  if (granted < requested) {
    const wanted = Math.min(requested - granted, burst);
    retryAfterMs = Math.ceil(((wanted - tokens) * 1000) / ratePerSecond);
  }
  return { state: { tokens, updatedAt }, grant: { granted, retryAfterMs } };
}

/** Milliseconds after `state.updatedAt` at which the bucket is full again, so its state can be forgotten. */
export function msUntilFull(state: BucketState, request: TokenRequest): number {
  return Math.max(1, Math.ceil(((request.burst - state.tokens) * 1000) / request.ratePerSecond));
}
