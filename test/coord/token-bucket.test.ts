import { describe, expect, it } from 'vitest';
import { msUntilFull, takeFromBucket } from '../../src/coord/token-bucket.ts';
import type { TokenRequest } from '../../src/core/ports/token-buckets.ts';

/** The arithmetic both adapters share (the memory adapter calls it; the Redis script is the same in Lua). */
const request = (fields: Partial<TokenRequest> = {}): TokenRequest => ({ ratePerSecond: 10, burst: 10, requested: 1, now: 1000, ...fields });

describe('takeFromBucket', () => {
  it('starts a bucket full at the caller’s time', () => {
    expect(takeFromBucket(undefined, request({ requested: 3 }))).toEqual({ state: { tokens: 7, updatedAt: 1000 }, grant: { granted: 3, retryAfterMs: 0 } });
  });

  it('refills at the rate for the time since the last take, never above the burst', () => {
    expect(takeFromBucket({ tokens: 0, updatedAt: 0 }, request({ now: 500, requested: 0 })).state).toEqual({ tokens: 5, updatedAt: 500 });
    expect(takeFromBucket({ tokens: 2, updatedAt: 0 }, request({ now: 60_000, requested: 0 })).state).toEqual({ tokens: 10, updatedAt: 60_000 });
  });

  it('neither refills nor moves its time for a caller whose clock is behind', () => {
    expect(takeFromBucket({ tokens: 1.5, updatedAt: 2000 }, request({ now: 1500 }))).toEqual({ state: { tokens: 0.5, updatedAt: 2000 }, grant: { granted: 1, retryAfterMs: 0 } });
    expect(takeFromBucket({ tokens: 1.5, updatedAt: 2000 }, request({ now: 2000, requested: 0 })).state).toEqual({ tokens: 1.5, updatedAt: 2000 });
  });

  it('takes back returned tokens up to the burst before granting', () => {
    expect(takeFromBucket({ tokens: 4, updatedAt: 1000 }, request({ returned: 3, requested: 0 })).state.tokens).toBe(7);
    expect(takeFromBucket({ tokens: 8, updatedAt: 1000 }, request({ returned: 5, requested: 10 }))).toEqual({ state: { tokens: 0, updatedAt: 1000 }, grant: { granted: 10, retryAfterMs: 0 } });
  });

  it('grants whole tokens only, and says when the rest of what was asked (at most a burst) will be there', () => {
    expect(takeFromBucket({ tokens: 3.5, updatedAt: 1000 }, request({ requested: 6 }))).toEqual({ state: { tokens: 0.5, updatedAt: 1000 }, grant: { granted: 3, retryAfterMs: 250 } });
    // 30 asked of a bucket of 10: the wait is for a full burst, not for all 30.
    expect(takeFromBucket({ tokens: 0, updatedAt: 1000 }, request({ requested: 30 })).grant).toEqual({ granted: 0, retryAfterMs: 1000 });
  });
});

describe('msUntilFull', () => {
  it('is the time the missing tokens take at the rate, at least 1 ms', () => {
    expect(msUntilFull({ tokens: 4, updatedAt: 0 }, request({ ratePerSecond: 2 }))).toBe(3000);
    expect(msUntilFull({ tokens: 9.99, updatedAt: 0 }, request())).toBe(1);
    expect(msUntilFull({ tokens: 10, updatedAt: 0 }, request())).toBe(1);
  });
});
