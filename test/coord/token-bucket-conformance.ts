import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TokenBuckets, TokenRequest } from '../../src/core/ports/token-buckets.ts';
import type { CoordinationUnderTest } from './coordination-conformance.ts';

// Ten tokens a second, ten at most: a drained bucket takes a full second to
// refill, far longer than the calls of one test, so the state a Redis key
// keeps (expiring on the server clock) is still there when the next call runs.
const rate = 10;
const burst = 10;

/**
 * The behaviour every `TokenBuckets` adapter must share. Time is passed in with
 * each request, so most cases pick their instants instead of waiting.
 */
export function describeTokenBucketConformance(name: string, make: () => Promise<CoordinationUnderTest>): void {
  describe(`${name} (TokenBuckets conformance)`, () => {
    let subject: CoordinationUnderTest;
    let buckets: TokenBuckets;
    let key: string;
    let start: number;

    const take = (requested: number, now: number, bucket = key): ReturnType<TokenBuckets['takeTokens']> =>
      buckets.takeTokens(bucket, { ratePerSecond: rate, burst, requested, now });

    beforeEach(async () => {
      subject = await make();
      buckets = subject.coord;
      key = `buckets:${randomUUID()}`;
      start = subject.clock.now();
    });

    afterEach(async () => {
      await subject.cleanup();
    });

    it('grants a bucket never used its whole burst at once', async () => {
      expect(await take(burst, start)).toEqual({ granted: burst, retryAfterMs: 0 });
    });

    it('grants what is left and tells when the rest will have refilled', async () => {
      expect(await take(7, start)).toEqual({ granted: 7, retryAfterMs: 0 });
      // Three left; the two missing take 200 ms at ten a second.
      expect(await take(5, start)).toEqual({ granted: 3, retryAfterMs: 200 });
      expect(await take(1, start)).toEqual({ granted: 0, retryAfterMs: 100 });
    });

    it('refills at the rate, fractions of a token included', async () => {
      await take(burst, start);
      expect(await take(burst, start + 550)).toEqual({ granted: 5, retryAfterMs: 450 });
      // The half token left over after 550 ms makes a whole one 50 ms later.
      expect(await take(1, start + 600)).toEqual({ granted: 1, retryAfterMs: 0 });
    });

    it('takes back tokens a caller returns, and holds no more than the burst for them', async () => {
      await take(burst, start);
      // Six of the ten could not be spent in time: given back, they are there for the next take, this one's included.
      expect(await buckets.takeTokens(key, { ratePerSecond: rate, burst, requested: 4, now: start, returned: 6 })).toEqual({ granted: 4, retryAfterMs: 0 });
      expect(await take(3, start)).toEqual({ granted: 2, retryAfterMs: 100 });
      // A bucket refilled to nearly full keeps only what fits.
      expect(await buckets.takeTokens(key, { ratePerSecond: rate, burst, requested: 1, now: start + 900, returned: 8 })).toEqual({ granted: 1, retryAfterMs: 0 });
      expect(await take(burst + 5, start + 900)).toEqual({ granted: burst - 1, retryAfterMs: 600 });
      await expect(buckets.takeTokens(key, { ratePerSecond: rate, burst, requested: 1, now: start, returned: -1 })).rejects.toThrow(RangeError);
    });

    it('never holds more than the burst, and grants at most the burst to a larger request', async () => {
      await take(burst, start);
      expect(await take(25, start + 60_000)).toEqual({ granted: burst, retryAfterMs: 1000 });
    });

    it('refills nothing for a clock reading older than one it has seen', async () => {
      expect(await take(burst, start + 1000)).toEqual({ granted: burst, retryAfterMs: 0 });
      // Another node whose clock lags by a second.
      expect(await take(1, start)).toEqual({ granted: 0, retryAfterMs: 100 });
      expect(await take(1, start + 1000)).toEqual({ granted: 0, retryAfterMs: 100 });
      expect(await take(1, start + 1100)).toEqual({ granted: 1, retryAfterMs: 0 });
    });

    it('keeps buckets apart', async () => {
      await take(burst, start);
      expect(await take(burst, start, `${key}:other`)).toEqual({ granted: burst, retryAfterMs: 0 });
    });

    it('never grants many concurrent takers more than burst + rate × elapsed', async () => {
      const shared = { ratePerSecond: 100, burst: 10 };
      const first = subject.clock.now();
      let granted = 0;
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          for (let round = 0; round < 5; round += 1) {
            const grant = await buckets.takeTokens(key, { ...shared, requested: 4, now: subject.clock.now() });
            granted += grant.granted;
            await subject.advance(20);
          }
        }),
      );
      const elapsedMs = subject.clock.now() - first;
      // 400 tokens were asked for; far fewer can have been there.
      expect(granted).toBeLessThanOrEqual(shared.burst + (shared.ratePerSecond * elapsedMs) / 1000);
      expect(granted).toBeGreaterThanOrEqual(shared.burst);
    });

    it.each<[string, Partial<TokenRequest>, string]>([
      ['a rate of zero', { ratePerSecond: 0 }, 'ratePerSecond must be positive, got 0'],
      ['a negative rate', { ratePerSecond: -5 }, 'ratePerSecond must be positive, got -5'],
      ['an infinite rate', { ratePerSecond: Number.POSITIVE_INFINITY }, 'ratePerSecond must be positive, got Infinity'],
      ['a burst of zero', { burst: 0 }, 'burst must be a whole number of at least 1, got 0'],
      ['a fractional burst', { burst: 2.5 }, 'burst must be a whole number of at least 1, got 2.5'],
      ['a request for zero tokens', { requested: 0 }, 'requested must be a whole number of at least 1, got 0'],
      ['a request for part of a token', { requested: 0.5 }, 'requested must be a whole number of at least 1, got 0.5'],
      ['a time that is not a number', { now: Number.NaN }, 'now must be a time in milliseconds, got NaN'],
    ])('refuses %s, taking nothing from the bucket', async (_case, override, message) => {
      await expect(buckets.takeTokens(key, { ratePerSecond: rate, burst, requested: 1, now: start, ...override })).rejects.toThrow(new RangeError(message));
      expect(await take(burst, start)).toEqual({ granted: burst, retryAfterMs: 0 });
    });
  });
}
